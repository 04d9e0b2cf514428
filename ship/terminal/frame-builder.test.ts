// Frames reconstruct the emulator's screen exactly: random coloured, styled and wide output is written to a
// headless terminal; after every write the builder's grid/patch, applied by the client's TerminalScreen,
// must equal what the emulator shows, cell for cell, cursor included.
import { describe, expect, it } from 'vitest';
import { headlessTerminal, writeParsed } from '../../test/helpers/headless-terminal.js';
import { seededRandom } from '../../test/helpers/seeded-random.js';
import { TerminalScreen } from '../../protocol/index.js';
import { diffRow, FrameBuilder } from './frame-builder.js';
import { CellInterner, readScreen } from './screen-reader.js';
import { frameJson } from './frame-json.js';

const PIECES = [() => 'plain text ', () => '漢字かな', () => '😀🎉', () => 'é\u0301', () => '\r\n', () => '\t'];
function chunk(next: () => number, cols: number, rows: number): string {
  let out = '';
  for (let i = 0; i < 12; i++) {
    const pick = Math.floor(next() * 11);
    if (pick < PIECES.length) out += PIECES[pick]!();
    else if (pick === 6) out += `\x1b[${30 + Math.floor(next() * 8)};${40 + Math.floor(next() * 8)}m`;
    else if (pick === 7)
      out += `\x1b[38;5;${Math.floor(next() * 256)}m\x1b[48;2;${Math.floor(next() * 256)};${Math.floor(next() * 256)};9m`;
    else if (pick === 8)
      out += [
        '\x1b[1m',
        '\x1b[2m',
        '\x1b[3m',
        '\x1b[4:2m',
        '\x1b[4:3m',
        '\x1b[5m',
        '\x1b[7m',
        '\x1b[9m',
        '\x1b[53m',
        '\x1b[0m',
      ][Math.floor(next() * 10)];
    else if (pick === 9) out += `\x1b[${1 + Math.floor(next() * rows)};${1 + Math.floor(next() * cols)}H`;
    else
      out += [
        '\x1b[K',
        '\x1b[2J',
        '\x1b[?25l',
        '\x1b[?25h',
        '\x1b[5 q',
        '\x1b[2 q',
        '\x1b[3L',
        '\x1b[2M',
        '\x1b[4@',
        '\x1b[3P',
      ][Math.floor(next() * 10)];
  }
  return out;
}

describe('frames reconstruct the emulator screen', () => {
  it.each([1, 2, 3, 4, 5])('random output, seed %i', async (seed) => {
    const next = seededRandom(seed);
    const [cols, rows] = [40 + Math.floor(next() * 60), 8 + Math.floor(next() * 20)];
    const term = headlessTerminal(cols, rows);
    const builder = new FrameBuilder();
    const client = new TerminalScreen();
    // Interned cells (seed-dependent) and the hand-written serializer must change nothing on the wire.
    const interner = seed % 2 ? new CellInterner() : undefined;
    let seq = 0;
    client.apply(JSON.parse(frameJson(builder.grid(seq++, readScreen(term, interner)))));
    for (let step = 0; step < 60; step++) {
      await writeParsed(term, chunk(next, cols, rows));
      const screen = readScreen(term, interner);
      const frame = step % 17 === 16 ? builder.grid(seq, screen) : builder.patch(seq, screen);
      if (frame) {
        seq++;
        const wire = frameJson(frame);
        expect(JSON.parse(wire)).toEqual(JSON.parse(JSON.stringify(frame)));
        expect(client.apply(JSON.parse(wire))).toEqual({ ack: frame.seq });
      }
      expect(client.cells).toEqual(readScreen(term).cells);
      expect(client.cursor).toEqual(screen.cursor);
    }
    term.dispose();
  });

  it('a patch holds only changed runs, never past the right edge', async () => {
    const term = headlessTerminal(20, 3);
    const builder = new FrameBuilder();
    builder.grid(0, readScreen(term));
    await writeParsed(term, '\x1b[2;3Hab\x1b[2;19Hyz');
    const patch = builder.patch(1, readScreen(term))!;
    expect(patch.runs).toEqual([
      [1, 2, [{ t: 'a' }, { t: 'b' }]],
      [1, 18, [{ t: 'y' }, { t: 'z' }]],
    ]);
    expect(builder.patch(2, readScreen(term))).toBeNull();
    expect(diffRow(0, [0, 0, 0, 0, 0, 0, 0], [{ t: 'a' }, 0, 0, 0, 0, { t: 'b' }, 0])).toEqual([
      [0, 0, [{ t: 'a' }, 0, 0, 0, 0, { t: 'b' }]],
    ]);
  });

  it('reads the cursor shape and visibility set by the application', async () => {
    const term = headlessTerminal(10, 3);
    await writeParsed(term, 'ab\x1b[?25l\x1b[5 q');
    expect(readScreen(term).cursor).toEqual({ x: 2, y: 0, visible: false, shape: 'bar', blinking: true });
    await writeParsed(term, '\x1b[?25h\x1b[4 q');
    expect(readScreen(term).cursor).toEqual({ x: 2, y: 0, visible: true, shape: 'underline' });
  });

  it('carries the bracketed-paste mode: a change of the mode alone is a patch, and the JSON holds it only while on', async () => {
    const term = headlessTerminal(10, 3);
    const builder = new FrameBuilder();
    const client = new TerminalScreen();
    client.apply(JSON.parse(frameJson(builder.grid(0, readScreen(term)))));
    expect(client.bracketedPaste).toBe(false);
    await writeParsed(term, '\x1b[?2004h');
    const on = builder.patch(1, readScreen(term))!;
    expect(on).toMatchObject({ runs: [], bracketedPaste: true });
    client.apply(JSON.parse(frameJson(on)));
    expect(client.bracketedPaste).toBe(true);
    expect(builder.patch(2, readScreen(term))).toBeNull();
    const grid = JSON.parse(frameJson(builder.grid(2, readScreen(term))));
    expect(grid.bracketedPaste).toBe(true);
    client.apply(grid);
    await writeParsed(term, '\x1b[?2004l');
    const off = frameJson(builder.patch(3, readScreen(term))!);
    expect(off).not.toContain('bracketedPaste');
    client.apply(JSON.parse(off));
    expect(client.bracketedPaste).toBe(false);
  });
});
