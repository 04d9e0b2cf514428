// The terminal page's painter (web/src/terminal/screen-painter.ts) and its scroll detection
// (scrolled-lines.ts), without xterm.js: frames that arrive between two animation frames are drawn once
// (the latest screen), the ack goes only once xterm has parsed the drawing, lines that scrolled off are
// written before the screen (into the terminal's scrollback) and bounded, the session's bracketed-paste mode
// is mirrored once per change, the ship's history replaces the scrollback, and nothing is drawn after dispose (issue #31, "Speed" and "Search and
// scrollback").
import { describe, expect, it } from 'vitest';
import type { Cell, GridFrame } from '../../protocol/terminal.js';
import { TerminalScreen } from '../../protocol/terminal-screen.js';
import { ScreenPainter, type PaintTarget } from '../../web/src/terminal/screen-painter.js';
import { scrolledLines } from '../../web/src/terminal/scrolled-lines.js';

const row = (text: string, cols = 8): Cell[] => [...text.padEnd(cols)].map((t): Cell => (t === ' ' ? 0 : { t }));

function screenOf(lines: string[], extra: Partial<GridFrame> = {}): TerminalScreen {
  const screen = new TerminalScreen();
  screen.apply({
    type: 'grid',
    seq: 0,
    cols: 8,
    rows: lines.length,
    cursor: { x: 0, y: 0, visible: true },
    cells: lines.map((line) => row(line)),
    ...extra,
  });
  return screen;
}

/** A painter over a scripted xterm (writes kept with their parse callbacks) and a scripted animation frame. */
function harness(scrollback = 100) {
  const writes: { data: string; parsed: () => void }[] = [];
  const frames: (() => void)[] = [];
  const target: PaintTarget = { cols: 8, rows: 2, write: (data, parsed) => writes.push({ data, parsed }) };
  const painter = new ScreenPainter(target, (paint) => frames.push(paint), scrollback);
  const runFrame = () => {
    for (const paint of frames.splice(0)) paint();
  };
  return { writes, frames, painter, runFrame };
}

describe('screen painter', () => {
  it('draws the frames of one animation frame once, the latest screen, and acks once xterm has parsed it', () => {
    const h = harness();
    const acks: string[] = [];
    h.painter.frame(screenOf(['first', '']), [], () => acks.push('first'));
    h.painter.frame(screenOf(['second', '']), [], () => acks.push('second'));
    expect(h.frames).toHaveLength(1);
    expect(h.writes).toHaveLength(0);
    h.runFrame();
    expect(h.writes).toHaveLength(1);
    expect(h.writes[0]!.data).toContain('second');
    expect(h.writes[0]!.data).not.toContain('first');
    expect(acks).toEqual([]);
    h.writes[0]!.parsed();
    expect(acks).toEqual(['second']);
  });

  it('writes the lines that scrolled off before the screen, keeping at most the scrollback', () => {
    const h = harness(2);
    h.painter.frame(screenOf(['rowC', 'rowD']), [row('gone'), row('rowA')], () => undefined);
    h.painter.frame(screenOf(['rowD', 'rowE']), [row('rowB')], () => undefined);
    h.runFrame();
    const out = h.writes[0]!.data;
    expect(out).not.toContain('gone');
    expect(out.indexOf('rowA')).toBeGreaterThanOrEqual(0);
    expect(out.indexOf('rowA')).toBeLessThan(out.indexOf('rowB'));
    expect(out.indexOf('rowB')).toBeLessThan(out.indexOf('rowE'));
  });

  it("replaces the scrollback with the ship's history: saved lines erased, its rows scrolled out, then the screen", () => {
    const h = harness(2);
    h.painter.frame(screenOf(['rowC', 'rowD']), [row('inferred')], () => undefined);
    h.runFrame();
    h.painter.frame(screenOf(['rowD', 'rowE']), [row('guessed')], () => undefined);
    h.painter.history([row('old1'), row('old2'), row('old3')]);
    h.runFrame();
    const out = h.writes[1]!.data;
    // ED 3 first; only the newest `scrollback` rows, oldest first; rows inferred meanwhile dropped.
    expect(out.startsWith('\x1b[3J')).toBe(true);
    expect(out).not.toContain('old1');
    expect(out).not.toContain('guessed');
    expect(out.indexOf('old2')).toBeLessThan(out.indexOf('old3'));
    // The screen is drawn whole again after them (the renderer forgot what it had drawn).
    expect(out.indexOf('old3')).toBeLessThan(out.indexOf('rowD'));
    expect(out.indexOf('rowD')).toBeLessThan(out.indexOf('rowE'));
  });

  it("mirrors the session's bracketed-paste mode into xterm once per change", () => {
    const h = harness();
    h.painter.frame(screenOf(['x', ''], { bracketedPaste: true }), [], () => undefined);
    h.runFrame();
    h.painter.frame(screenOf(['y', ''], { bracketedPaste: true }), [], () => undefined);
    h.runFrame();
    h.painter.frame(screenOf(['z', '']), [], () => undefined);
    h.runFrame();
    expect(h.writes.map((write) => [write.data.includes('\x1b[?2004h'), write.data.includes('\x1b[?2004l')])).toEqual([
      [true, false],
      [false, false],
      [false, true],
    ]);
  });

  it('draws nothing once disposed', () => {
    const h = harness();
    h.painter.frame(screenOf(['x', '']), [], () => undefined);
    h.painter.dispose();
    h.runFrame();
    expect(h.writes).toEqual([]);
  });
});

describe('scrolled lines', () => {
  it('finds the rows a scroll moved off the top, and none when nothing moved', () => {
    const before = [row('one'), row('two'), row('three')];
    const after = [row('two'), row('three'), row('four')];
    expect(scrolledLines(before, after)).toEqual([row('one')]);
    expect(scrolledLines(before, before)).toEqual([]);
    expect(scrolledLines(before, [row('x'), row('y'), row('z')])).toEqual([]);
  });
});
