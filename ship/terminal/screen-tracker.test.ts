// The screen tracker re-reads only the rows xterm reports changed: after every write of random output built
// from every kind of sequence that moves or rewrites rows (scrolling regions, insert/delete lines, scroll
// up/down, erase, the alternate screen, DECALN, a full reset, wide and combining characters), its screen
// must equal a full read of the emulator, cell for cell, and a frame built from it must too; with no
// scrollback and with one (the ship's emulator keeps one for the scrolled rows, scrolled-rows.ts), small
// enough to fill so the buffer recycles its lines.
import { describe, expect, it } from 'vitest';
import { headlessTerminal, writeParsed } from '../../test/helpers/headless-terminal.js';
import { seededRandom } from '../../test/helpers/seeded-random.js';
import { TerminalScreen } from '../../protocol/index.js';
import { FrameBuilder } from './frame-builder.js';
import { frameJson } from './frame-json.js';
import { CellInterner, readScreen } from './screen-reader.js';
import { ScreenTracker } from './screen-tracker.js';

/**
 * One random piece of output: text, or a sequence that moves, scrolls, erases or switches screens; with
 * `bursts`, now and then screens of lines at once (a scrollback fills up).
 */
function piece(next: () => number, cols: number, rows: number, bursts = false): string {
  const n = (max: number) => 1 + Math.floor(next() * max);
  if (bursts && next() < 0.1) return `\x1b[r\x1b[?1049l\x1b[${rows}B${'line\r\n'.repeat(n(rows * 4))}`;
  const pieces = [
    () => 'some text ',
    () => '漢字😀',
    () => 'e\u0301',
    () => '\r\n',
    () => '\n\n\n',
    () => `\x1b[${n(rows)};${n(cols)}H`,
    () => `\x1b[3${n(7)};4${n(7)}m`,
    () => '\x1b[0m',
    () => `\x1b[${Math.floor(next() * 3)}J`,
    () => `\x1b[${Math.floor(next() * 3)}K`,
    () => `\x1b[${n(4)}L`,
    () => `\x1b[${n(4)}M`,
    () => `\x1b[${n(4)}S`,
    () => `\x1b[${n(4)}T`,
    () => `\x1b[${n(4)}@`,
    () => `\x1b[${n(4)}P`,
    () => `\x1b[${n(4)}X`,
    () => {
      const top = n(rows - 1);
      return `\x1b[${top};${top + n(rows - top)}r`;
    },
    () => '\x1b[r',
    () => '\x1bM',
    () => '\x1bD',
    () => (next() < 0.5 ? '\x1b[?1049h' : '\x1b[?1049l'),
    () => (next() < 0.1 ? '\x1b#8' : ''),
    () => (next() < 0.05 ? '\x1bc' : ''),
    () => 'x'.repeat(n(cols * 2)),
  ];
  return pieces[Math.floor(next() * pieces.length)]!();
}

describe('ScreenTracker', () => {
  it('uses the emulator’s dirty rows (an echo re-reads one row)', async () => {
    const term = headlessTerminal(40, 10);
    const tracker = new ScreenTracker(term, new CellInterner());
    expect(tracker.incremental).toBe(true);
    await writeParsed(term, 'line\r\n'.repeat(9));
    const before = tracker.read();
    await writeParsed(term, 'x');
    const after = tracker.read();
    const reread = after.cells.filter((row, index) => row !== before.cells[index]).length;
    expect(reread).toBe(1);
    expect(after.cells).toEqual(readScreen(term).cells);
  });

  it.each([
    [1, 0],
    [2, 0],
    [3, 0],
    [4, 0],
    [5, 0],
    [6, 0],
    [7, 0],
    [8, 0],
    [1, 40],
    [2, 40],
    [3, 1000],
    [4, 40],
    [5, 1000],
    [6, 40],
  ])('equals a full read after every write of random output (seed %i, scrollback %i)', async (seed, scrollback) => {
    const next = seededRandom(seed);
    const [cols, rows] = [20 + Math.floor(next() * 40), 5 + Math.floor(next() * 15)];
    const term = headlessTerminal(cols, rows, { scrollback });
    const tracker = new ScreenTracker(term, new CellInterner());
    const builder = new FrameBuilder();
    const client = new TerminalScreen();
    let seq = 0;
    let deepest = 0;
    client.apply(JSON.parse(frameJson(builder.grid(seq++, tracker.read(true)))));
    for (let step = 1; step <= 300; step++) {
      let chunk = '';
      const pieces = 1 + Math.floor(next() * 6);
      for (let i = 0; i < pieces; i++) chunk += piece(next, cols, rows, scrollback > 0);
      await writeParsed(term, chunk);
      deepest = Math.max(deepest, term.buffer.normal.baseY);
      // Some frames are skipped (the pacer holds them): the tracker must still gather every change.
      if (next() < 0.3) continue;
      const screen = tracker.read();
      const full = readScreen(term);
      expect(screen.cells, `seed ${seed}, step ${step}`).toEqual(full.cells);
      expect(screen.cursor).toEqual(full.cursor);
      const patch = builder.patch(seq, screen);
      if (patch) expect(client.apply(JSON.parse(frameJson(patch)))).toEqual({ ack: seq++ });
      expect(client.cells).toEqual(full.cells);
      // The screen is the buffer's last rows, below whatever the scrollback holds (not the first rows).
      const buffer = term.buffer.active;
      const shown = (y: number) => buffer.getLine(buffer.length - rows + y)!.translateToString(true, 0, cols);
      for (let y = 0; y < rows; y++) expect(client.rowText(y).trimEnd()).toBe(shown(y).trimEnd());
    }
    if (scrollback) expect(deepest, 'the scrollback was used').toBeGreaterThan(rows);
    if (scrollback === 40) expect(deepest, 'the scrollback filled up').toBe(40);
    tracker.dispose();
    term.dispose();
  });

  it('reads every row after a resize and when asked for a full screen', async () => {
    const term = headlessTerminal(30, 8);
    const tracker = new ScreenTracker(term, new CellInterner());
    await writeParsed(term, 'a\r\nb\r\nc');
    const first = tracker.read();
    term.resize(25, 6);
    const resized = tracker.read();
    expect(resized.rows).toBe(6);
    expect(resized.cells).toEqual(readScreen(term).cells);
    const full = tracker.read(true);
    expect(full.cells.every((row, index) => row !== resized.cells[index])).toBe(true);
    expect(first.cells[0]).not.toBe(full.cells[0]);
  });
});
