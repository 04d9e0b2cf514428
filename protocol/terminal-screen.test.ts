// The optional `scrolled` of terminal frames (docs/terminal.md, "Scrolled rows"): the schemas accept it on a
// patch (rows of cells, at most TERMINAL_MAX_SCROLLED_ROWS) and only empty on a grid, and TerminalScreen
// exposes the rows of the last applied patch, says whether the ship reports scrolling, and keeps none from a
// patch it ignored.
import { describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { GridFrame, PatchFrame, TERMINAL_MAX_SCROLLED_ROWS, TerminalServerFrame, type Cell } from './terminal.js';
import { TerminalScreen } from './terminal-screen.js';

const checkGrid = Compile(GridFrame);
const checkPatch = Compile(PatchFrame);
const checkFrame = Compile(TerminalServerFrame);
const cursor = { x: 0, y: 0, visible: true };
const row = (text: string): Cell[] => [...text].map((t): Cell => (t === ' ' ? 0 : { t }));
const grid = (seq: number, scrolled?: []): GridFrame => ({
  type: 'grid',
  seq,
  cols: 2,
  rows: 1,
  cursor,
  cells: [row('ab')],
  ...(scrolled ? { scrolled } : {}),
});
const patch = (seq: number, scrolled?: Cell[][]): PatchFrame => ({
  type: 'patch',
  seq,
  cols: 2,
  rows: 1,
  cursor,
  runs: [[0, 0, row('cd')]],
  ...(scrolled ? { scrolled } : {}),
});

describe('scrolled rows in frames', () => {
  it('is an optional list of rows on a patch, bounded, and only ever empty on a grid', () => {
    expect(checkPatch.Check(patch(1))).toBe(true);
    expect(checkPatch.Check(patch(1, [row('ab'), [], row('x')]))).toBe(true);
    expect(checkFrame.Check(patch(1, [row('ab')]))).toBe(true);
    expect(
      checkPatch.Check(
        patch(
          1,
          Array.from({ length: TERMINAL_MAX_SCROLLED_ROWS }, () => []),
        ),
      ),
    ).toBe(true);
    expect(
      checkPatch.Check(
        patch(
          1,
          Array.from({ length: TERMINAL_MAX_SCROLLED_ROWS + 1 }, () => []),
        ),
      ),
    ).toBe(false);
    expect(checkPatch.Check({ ...patch(1), scrolled: [['x']] })).toBe(false);
    expect(checkGrid.Check(grid(0))).toBe(true);
    expect(checkGrid.Check(grid(0, []))).toBe(true);
    expect(checkGrid.Check({ ...grid(0), scrolled: [row('ab')] })).toBe(false);
  });

  it('TerminalScreen exposes the rows of the last applied patch, and whether the ship reports them', () => {
    const screen = new TerminalScreen();
    screen.apply(grid(0));
    expect(screen.reportsScrolled).toBe(false);
    screen.apply(grid(1, []));
    expect(screen.reportsScrolled).toBe(true);
    expect(screen.scrolled).toEqual([]);
    expect(screen.apply(patch(2, [row('ab'), row('xy')]))).toEqual({ ack: 2 });
    expect(screen.scrolled).toEqual([row('ab'), row('xy')]);
    expect(screen.rowText(0)).toBe('cd');
    screen.apply(patch(3));
    expect(screen.scrolled).toEqual([]);
    // A patch after a gap is ignored, its rows with it.
    expect(screen.apply(patch(5, [row('zz')]))).toEqual({ resync: true });
    expect(screen.scrolled).toEqual([]);
    expect(screen.apply(patch(6, [row('zz')]))).toEqual({});
    expect(screen.scrolled).toEqual([]);
    screen.apply(grid(7, []));
    expect(screen.scrolled).toEqual([]);
  });
});
