// The screen tracker re-reads only the rows xterm reports changed: after every write of random output built
// from every kind of sequence that moves or rewrites rows (scrolling regions, insert/delete lines, scroll
// up/down, erase, the alternate screen, DECALN, a full reset, wide and combining characters), its screen
// must equal a full read of the emulator, cell for cell, and a frame built from it must too.
import { describe, expect, it } from 'vitest';
import { headlessTerminal, writeParsed } from '../../test/helpers/headless-terminal.js';
import { seededRandom } from '../../test/helpers/seeded-random.js';
import { TerminalScreen } from '../../protocol/index.js';
import { FrameBuilder } from './frame-builder.js';
import { frameJson } from './frame-json.js';
import { CellInterner, readScreen } from './screen-reader.js';
import { ScreenTracker } from './screen-tracker.js';

/** One random piece of output: text, or a sequence that moves, scrolls, erases or switches screens. */
function piece(next: () => number, cols: number, rows: number): string {
  const n = (max: number) => 1 + Math.floor(next() * max);
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

  it.each([1, 2, 3, 4, 5, 6, 7, 8])('equals a full read after every write of random output (seed %i)', async (seed) => {
    const next = seededRandom(seed);
    const [cols, rows] = [20 + Math.floor(next() * 40), 5 + Math.floor(next() * 15)];
    const term = headlessTerminal(cols, rows);
    const tracker = new ScreenTracker(term, new CellInterner());
    const builder = new FrameBuilder();
    const client = new TerminalScreen();
    let seq = 0;
    client.apply(JSON.parse(frameJson(builder.grid(seq++, tracker.read(true)))));
    for (let step = 1; step <= 300; step++) {
      let chunk = '';
      const pieces = 1 + Math.floor(next() * 6);
      for (let i = 0; i < pieces; i++) chunk += piece(next, cols, rows);
      await writeParsed(term, chunk);
      // Some frames are skipped (the pacer holds them): the tracker must still gather every change.
      if (next() < 0.3) continue;
      const screen = tracker.read();
      const full = readScreen(term);
      expect(screen.cells, `seed ${seed}, step ${step}`).toEqual(full.cells);
      expect(screen.cursor).toEqual(full.cursor);
      const patch = builder.patch(seq, screen);
      if (patch) expect(client.apply(JSON.parse(frameJson(patch)))).toEqual({ ack: seq++ });
      expect(client.cells).toEqual(full.cells);
    }
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
