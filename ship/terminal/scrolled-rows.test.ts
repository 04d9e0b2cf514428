// The rows a patch says scrolled off the top (scrolled-rows.ts, docs/terminal.md "Scrolled rows"): a headless
// terminal as the ship keeps it, frames built and applied by the client's TerminalScreen through the wire
// JSON. Output of several screens in one write reaches the client row for row, in order; random output with
// frames skipped leaves the client's history (every scrolled row, then the screen) equal to what an emulator
// with an unbounded scrollback holds; the caps drop the oldest rows of a frame's interval; the alternate
// screen and a region below the top scroll nothing into it.
import { describe, expect, it } from 'vitest';
import { PatchFrame, TerminalScreen, type Cell } from '../../protocol/index.js';
import { Compile } from 'typebox/compile';
import { FrameBuilder } from './frame-builder.js';
import { frameJson } from './frame-json.js';
import { CellInterner } from './screen-reader.js';
import { ScreenTracker } from './screen-tracker.js';
import { ScrolledRows, SCROLLED_MAX_ROWS, SHIP_SCROLLBACK_ROWS } from './scrolled-rows.js';
import { headlessTerminal, writeParsed as write } from '../../test/helpers/headless-terminal.js';
import { seededRandom as random } from '../../test/helpers/seeded-random.js';

const checkPatch = Compile(PatchFrame);

/** The ship's side (emulator, tracker, scrolled rows, builder) and a client applying the wire JSON. */
function ship(cols: number, rows: number, maxBytes?: number) {
  const term = headlessTerminal(cols, rows, { scrollback: SHIP_SCROLLBACK_ROWS });
  const interner = new CellInterner();
  const tracker = new ScreenTracker(term, interner);
  const scrolled = new ScrolledRows(term, interner, maxBytes);
  const builder = new FrameBuilder();
  const client = new TerminalScreen();
  let seq = 0;
  const grid = () => {
    scrolled.reset();
    const wire = frameJson(builder.grid(seq, tracker.read(true)));
    expect(JSON.parse(wire).scrolled).toEqual([]);
    expect(client.apply(JSON.parse(wire))).toEqual({ ack: seq++ });
  };
  /** The next patch as the client got it, or null when there was none. */
  const patch = () => {
    const frame = builder.patch(seq, tracker.read(), scrolled.take());
    if (!frame) return null;
    const wire = JSON.parse(frameJson(frame));
    expect(checkPatch.Check(wire)).toBe(true);
    expect(client.apply(wire)).toEqual({ ack: seq++ });
    return wire as PatchFrame;
  };
  grid();
  return { term, client, patch, grid, scrolled };
}

const text = (row: Cell[]) => row.map((cell) => (cell === 0 ? ' ' : cell.w === 2 ? '' : (cell.t ?? ' '))).join('');
const texts = (rows: Cell[][]) => rows.map((row) => text(row).trimEnd());
const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`);

describe('scrolled rows', () => {
  it('a patch carries every line that left the screen in one write of three screens, in order', async () => {
    const { term, client, patch } = ship(40, 10);
    // Lines 1..30 printed at once: 21 leave the screen (line 30 ends on row 9, the cursor on a new row).
    await write(term, `${numbered(1, 30).join('\r\n')}\r\n`);
    const frame = patch()!;
    expect(texts(frame.scrolled!)).toEqual(numbered(1, 21));
    expect(texts(client.scrolled)).toEqual(numbered(1, 21));
    expect(client.reportsScrolled).toBe(true);
    expect(client.text().split('\n').slice(0, 9)).toEqual(numbered(22, 30));
    // Trailing blanks are left out; the next patch starts where this one ended.
    expect(frame.scrolled![0]).toHaveLength('line 1'.length);
    await write(term, 'line 31\r\n');
    expect(texts(patch()!.scrolled!)).toEqual(['line 22']);
    // A change in place scrolls nothing.
    await write(term, 'typed');
    const inPlace = patch()!;
    expect(inPlace.scrolled).toBeUndefined();
    expect(client.scrolled).toEqual([]);
    term.dispose();
  });

  it.each([1, 2, 3])('the client’s history equals an unbounded scrollback, frames skipped (seed %i)', async (seed) => {
    const next = random(seed);
    const [cols, rows] = [20 + Math.floor(next() * 40), 5 + Math.floor(next() * 15)];
    const { term, client, patch } = ship(cols, rows);
    const reference = headlessTerminal(cols, rows, { scrollback: 100_000 });
    const history: string[] = [];
    let lines = 0;
    for (let step = 0; step < 200; step++) {
      let chunk = '';
      for (let i = Math.floor(next() * 4); i >= 0; i--) {
        const pick = next();
        if (pick < 0.3) chunk += `${lines++} ${'word '.repeat(Math.floor(next() * cols * 0.4))}\r\n`;
        else if (pick < 0.4) chunk += '\r\n'.repeat(1 + Math.floor(next() * rows * 3));
        else if (pick < 0.5) chunk += `\x1b[3${Math.floor(next() * 8)}m漢字😀 wide\x1b[0m`;
        else if (pick < 0.6) chunk += `${'x'.repeat(cols + Math.floor(next() * cols * 2))}`;
        else if (pick < 0.7) chunk += `\x1b[${1 + Math.floor(next() * rows)};1H`;
        else chunk += `${lines++} text\r\n`;
      }
      await write(term, chunk);
      await write(reference, chunk);
      if (next() < 0.4) continue;
      if (patch()) history.push(...texts(client.scrolled));
    }
    if (patch()) history.push(...texts(client.scrolled));
    history.push(...client.text().split('\n'));
    const buffer = reference.buffer.normal;
    const expected = Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)!.translateToString(true));
    expect(history.map((line) => line.trimEnd())).toEqual(expected.map((line) => line.trimEnd()));
    expect(buffer.baseY).toBeGreaterThan(rows * 10);
    term.dispose();
    reference.dispose();
  });

  it('counts on once the scrollback is full, and a frame carries at most SCROLLED_MAX_ROWS: the newest', async () => {
    const { term, patch } = ship(30, 5, 1024 * 1024); // a budget beyond the rows: this case is about the row cap
    let last = 0;
    for (let round = 0; round < 3; round++) {
      await write(term, `${numbered(last + 1, last + 700).join('\r\n')}\r\n`);
      last += 700;
      expect(term.buffer.normal.baseY).toBe(Math.min(SHIP_SCROLLBACK_ROWS, 700 * (round + 1) - 4));
      const rows = texts(patch()!.scrolled!);
      // The first round leaves lines 1..696; later ones the 700 after the previous frame's.
      expect(rows).toEqual(round === 0 ? numbered(1, 696) : numbered(last - 703, last - 4));
    }
    // 2,500 lines between two frames: the newest SCROLLED_MAX_ROWS of those that left, the oldest dropped.
    await write(term, `${numbered(last + 1, last + 2500).join('\r\n')}\r\n`);
    last += 2500;
    expect(texts(patch()!.scrolled!)).toEqual(numbered(last - 4 - SCROLLED_MAX_ROWS + 1, last - 4));
    term.dispose();
  });

  it('a frame’s scrolled rows stay within the JSON budget, the newest kept', async () => {
    const { term, patch } = ship(80, 5, 2000);
    await write(term, `${numbered(1, 500).join('\r\n')}\r\n`);
    const frame = patch()!;
    const rows = texts(frame.scrolled!);
    expect(rows.at(-1)).toBe('line 496');
    expect(rows.length).toBeLessThan(496);
    expect(JSON.stringify(frame.scrolled).length).toBeLessThanOrEqual(2000);
    term.dispose();
  });

  it('sends a patch for scrolled rows alone, when the screen looks the same after (`yes`)', async () => {
    const { term, patch } = ship(10, 3);
    await write(term, 'y\r\n'.repeat(3));
    patch();
    await write(term, 'y\r\n'.repeat(5));
    const frame = patch()!;
    expect(frame.runs).toEqual([]);
    expect(texts(frame.scrolled!)).toEqual(['y', 'y', 'y', 'y', 'y']);
    term.dispose();
  });

  it('scrolls nothing into it on the alternate screen, in a region below the top, or after ED 3 and a reset', async () => {
    const { term, client, patch } = ship(20, 5);
    await write(term, 'normal\r\n'.repeat(8));
    expect(patch()!.scrolled).toHaveLength(4);
    await write(term, '\x1b[?1049h');
    await write(term, 'alt\r\n'.repeat(20));
    expect(patch()!.scrolled).toBeUndefined();
    await write(term, '\x1b[?1049l\x1b[?1049h\x1b[?1049l');
    expect(patch()?.scrolled).toBeUndefined();
    // A region from row 2 scrolls in place; one from the top feeds the scrollback, as in xterm.
    await write(term, '\x1b[?1049l\x1b[2;4r\x1b[4;1H');
    await write(term, 'mid\r\n'.repeat(6));
    expect(patch()!.scrolled).toBeUndefined();
    await write(term, `\x1b[1;4r\x1b[4;1H${numbered(1, 5).join('\r\n')}\r\n\x1b[r`);
    expect(texts(patch()!.scrolled!).slice(-2)).toEqual(['line 1', 'line 2']);
    expect(client.scrolled).toHaveLength(5);
    // Rows erased from the scrollback before the frame are gone; after a reset, only what scrolled since.
    await write(term, '\x1b[5;1Hgone\r\n'.repeat(3));
    await write(term, '\x1b[3J');
    expect(patch()?.scrolled).toBeUndefined();
    await write(term, 'before\r\n'.repeat(8));
    await write(term, '\x1bc');
    await write(term, 'a\r\nb\r\nc\r\nd\r\ne\r\nf');
    expect(texts(patch()!.scrolled!)).toEqual(['a']);
    term.dispose();
  });

  it('a grid carries none: what scrolled before it is dropped', async () => {
    const { term, client, patch, grid } = ship(20, 3);
    await write(term, 'one\r\ntwo\r\nthree\r\nfour\r\n');
    grid();
    expect(client.scrolled).toEqual([]);
    await write(term, 'five');
    expect(patch()!.scrolled).toBeUndefined();
    term.dispose();
  });
});
