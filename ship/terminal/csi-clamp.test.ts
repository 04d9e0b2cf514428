// The CSI count clamp lowers a count to where its final's effect saturates, so the screen is the one the
// sequence would give anyway (or tmux's, for REP) while the emulator never loops more than a screen's worth.
// Per final: for counts around and past the limit (small enough for the unclamped emulator to run), the
// clamped emulator ends in exactly the unclamped emulator's state, and a hostile count (1e8) ends there too.
import { describe, expect, it } from 'vitest';
import xterm from '@xterm/headless';
import { COUNT_LIMITS, clampCsiCounts } from './csi-clamp.js';
import { readScreen } from './screen-reader.js';

const { Terminal } = xterm;
type Term = InstanceType<typeof Terminal>;

const COLS = 12;
const ROWS = 6;
const HOSTILE = 100_000_000;

function makeTerminal(clamped: boolean, cols = COLS, rows = ROWS): Term {
  const term = new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true });
  if (clamped) clampCsiCounts(term);
  return term;
}
const write = (term: Term, data: string) => new Promise<void>((resolve) => term.write(data, resolve));

/** Cells, attributes and cursor, plus the raw cursor column (xterm.js holds `cols` while a wrap is pending). */
function state(term: Term) {
  return { screen: readScreen(term), x: term.buffer.active.cursorX, y: term.buffer.active.cursorY };
}

const rowsOfText = Array.from({ length: ROWS }, (_, row) => `${row}${'abcdefghijklmnopqrstuvwxyz'.slice(0, COLS - 1)}`);
/** A full screen of distinct text, a coloured erase attribute (so erased cells show), then a placement. */
const setups: Record<string, string> = {
  'mid-screen': `${rowsOfText.join('\r\n')}\x1b[44m\x1b[3;5H`,
  'top-left': `${rowsOfText.join('\r\n')}\x1b[44m\x1b[1;1H`,
  'right margin': `${rowsOfText.join('\r\n')}\x1b[44m\x1b[4;${COLS}H`,
  'pending wrap': `${rowsOfText.join('\r\n')}\x1b[44m\x1b[2;1H${'W'.repeat(COLS)}`,
  'inside a scroll region': `${rowsOfText.join('\r\n')}\x1b[44m\x1b[2;5r\x1b[3;7H`,
  'below a scroll region': `${rowsOfText.join('\r\n')}\x1b[44m\x1b[2;4r\x1b[6;3H`,
  'tab stops cleared and set': `${rowsOfText.join('\r\n')}\x1b[44m\x1b[3g\x1b[1;4H\x1bH\x1b[1;9H\x1bH\x1b[3;6H`,
};

/** The limit a final has on the 12×6 screen (REP is covered on its own below). */
const limitOf = (final: string) => (['@', 'P', 'X', 'C', 'D', 'a', 'I', 'Z'].includes(final) ? COLS : ROWS);
const countedFinals = Object.keys(COUNT_LIMITS).filter((final) => final !== 'b');

describe('CSI count clamp', () => {
  it('covers every counted final that can stall the emulator', () => {
    expect(Object.keys(COUNT_LIMITS).sort()).toEqual(
      ['@', 'A', 'B', 'C', 'D', 'I', 'L', 'M', 'P', 'S', 'T', 'X', 'Z', 'a', 'b', 'e'].sort(),
    );
  });

  describe.each(countedFinals)('final %s', (final) => {
    it.each(Object.keys(setups))('a count past the limit has the unclamped effect (%s)', async (setup) => {
      const limit = limitOf(final);
      const counts = [0, 1, limit - 1, limit, limit + 1, limit + 2, 2 * limit + 3, 4 * limit];
      let saturated: ReturnType<typeof state> | null = null;
      for (const count of counts) {
        const plain = makeTerminal(false);
        const clamped = makeTerminal(true);
        for (const term of [plain, clamped]) await write(term, `${setups[setup]}\x1b[${count}${final}Q`);
        expect(state(clamped), `count ${count}`).toEqual(state(plain));
        if (count === 4 * limit) saturated = state(plain);
        plain.dispose();
        clamped.dispose();
      }
      // The unclamped effect is the same from the limit on, and a hostile count lands on it.
      const atLimit = makeTerminal(false);
      await write(atLimit, `${setups[setup]}\x1b[${limit}${final}Q`);
      expect(state(atLimit)).toEqual(saturated);
      const hostile = makeTerminal(true);
      await write(hostile, `${setups[setup]}\x1b[${HOSTILE}${final}Q`);
      expect(state(hostile)).toEqual(saturated);
      atLimit.dispose();
      hostile.dispose();
    });
  });

  it('lowers only the count: further parameters and sub-parameters reach the emulator as they were', async () => {
    const plain = makeTerminal(false);
    const clamped = makeTerminal(true);
    await write(plain, `${setups['mid-screen']}\x1b[${ROWS};2;7L\x1b[${ROWS}:3S\x1b[${COLS};5CQ`);
    await write(clamped, `${setups['mid-screen']}\x1b[${HOSTILE};2;7L\x1b[${HOSTILE}:3S\x1b[${HOSTILE};5CQ`);
    expect(state(clamped)).toEqual(state(plain));
  });

  describe('REP (b) repeats up to the right margin, as tmux does (input.c INPUT_CSI_REP), never wrapping', () => {
    it('fills the rest of the row for a hostile count, as `tmux capture-pane` shows', async () => {
      const term = makeTerminal(true, 80, 24);
      await write(term, 'a\x1b[100000000b');
      expect(term.buffer.active.getLine(0)!.translateToString()).toBe('a'.repeat(80));
      expect(term.buffer.active.getLine(1)!.translateToString(true)).toBe('');
      await write(term, 'Z'); // the pending wrap is tmux's too: the next character starts the next row
      expect(term.buffer.active.getLine(1)!.translateToString(true)).toBe('Z');
      term.dispose();
    });

    it.each([
      ['at the left', ''],
      ['mid-row', '\x1b[3;5H'],
      ['one before the margin', `\x1b[3;${COLS - 1}H`],
      ['with autowrap off', '\x1b[?7l\x1b[3;5H'],
      ['in insert mode', '\x1b[4h\x1b[3;5H'],
    ])('repeats min(count, columns left) characters %s', async (_label, placement) => {
      for (const count of [0, 1, 2, COLS - 1, COLS, COLS + 1, 3 * COLS, HOSTILE]) {
        const clamped = makeTerminal(true);
        const expected = makeTerminal(false);
        await write(clamped, `${rowsOfText.join('\r\n')}${placement}x\x1b[${count}b`);
        await write(expected, `${rowsOfText.join('\r\n')}${placement}x`);
        const left = COLS - expected.buffer.active.cursorX;
        await write(expected, 'x'.repeat(Math.min(count || 1, left)));
        expect(state(clamped), `count ${count}`).toEqual(state(expected));
        clamped.dispose();
        expected.dispose();
      }
    });

    it('repeats nothing while a wrap is pending, whatever the count', async () => {
      for (const count of [0, 1, 5, HOSTILE]) {
        const clamped = makeTerminal(true);
        await write(clamped, `${'q'.repeat(COLS)}\x1b[${count}bZ`);
        expect(clamped.buffer.active.getLine(0)!.translateToString()).toBe('q'.repeat(COLS));
        expect(clamped.buffer.active.getLine(1)!.translateToString(true)).toBe('Z');
        clamped.dispose();
      }
    });
  });

  it('runs a burst of hostile counts without stalling and still applies each one', async () => {
    const term = makeTerminal(true, 80, 24);
    const started = Date.now();
    await write(
      term,
      'x\x1b[1;24r\x1b[1000000000L\x1b[100000000S\x1b[100000000T\x1b[100000000M\x1b[2000000000I\x1b[2000000000Z\x1b[100000000@a\x1b[100000000b',
    );
    expect(Date.now() - started).toBeLessThan(500);
    // IL/SU/SD/DL cleared the x; DECSTBM homed the cursor; CHT then CBT went right and back; REP filled the row.
    expect(term.buffer.active.getLine(0)!.translateToString()).toBe('a'.repeat(80));
    expect(term.buffer.active.getLine(1)!.translateToString(true)).toBe('');
    await write(term, '\x1b[2;1Hx\x1b[3b');
    expect(term.buffer.active.getLine(1)!.translateToString(true)).toBe('xxxx'); // a sane REP is unchanged
    term.dispose();
  });
});
