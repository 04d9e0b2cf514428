// The rows that left the top of the headless emulator's screen since the last frame, for the next patch's
// `scrolled` (docs/terminal.md, "Scrolled rows"): the page's scrollback then holds exactly what scrolled,
// however much of it passed between two frames. The emulator keeps a bounded scrollback
// (SHIP_SCROLLBACK_ROWS) only so that these rows can be read back when the frame is built; they are counted
// as they scroll (xterm's onScroll, which also fires once the scrollback is full and baseY stops growing)
// and read newest first within a budget (SCROLLED_MAX_ROWS rows, SCROLLED_MAX_BYTES of JSON), so one frame
// costs a bounded amount: beyond it the oldest rows of that interval are dropped. Only calm frames take them
// (pacer.ts): a flood's rows wait, the newest within the scrollback, for the frame after it. Not counted:
// the alternate screen and a scrolling region that does not start at the top row (neither feeds xterm's
// scrollback), and rows an erase of the scrollback (ED 3) or a reset removed before the frame was built.
import type { IDisposable, Terminal } from '@xterm/headless';
import { TERMINAL_MAX_SCROLLED_ROWS, type Cell } from '../../protocol/index.js';
import { cellsJsonLength } from './frame-json.js';
import { readLine, type CellInterner } from './screen-reader.js';

/** The emulator's scrollback: what one frame can carry at most, nothing more is kept. */
export const SHIP_SCROLLBACK_ROWS = TERMINAL_MAX_SCROLLED_ROWS;
/** Scrolled rows one patch carries at most. */
export const SCROLLED_MAX_ROWS = TERMINAL_MAX_SCROLLED_ROWS;
/** Their JSON at most (UTF-16 units, near enough bytes), so a flood's frames stay a bounded size. */
export const SCROLLED_MAX_BYTES = 128 * 1024;

/** The active buffer's scrolling region (private in @xterm/headless; pinned by scrolled-rows.test.ts). */
interface CoreWithBuffer {
  _core?: { buffer?: { scrollTop?: number } };
}

export class ScrolledRows {
  /** Rows that entered the normal screen's scrollback since the last take, at most SHIP_SCROLLBACK_ROWS. */
  private pending = 0;
  /** The screen the last scroll event was on. */
  private screen: 'normal' | 'alternate' = 'normal';
  private readonly subscription: IDisposable;

  constructor(
    private readonly term: Terminal,
    private readonly interner: CellInterner,
    private readonly maxBytes = SCROLLED_MAX_BYTES,
  ) {
    this.subscription = term.onScroll(() => {
      const buffer = term.buffer.active;
      // xterm fires the event for a switch of screens too: the first one on a screen is that switch's.
      const switched = buffer.type !== this.screen;
      this.screen = buffer.type;
      // baseY 0 after a scroll: nothing went into the scrollback (a region lower down, or ED 3's event).
      if (switched || buffer.type !== 'normal' || buffer.baseY === 0) return;
      const scrollTop = (term as unknown as CoreWithBuffer)._core?.buffer?.scrollTop ?? 0;
      if (scrollTop === 0 && this.pending < SHIP_SCROLLBACK_ROWS) this.pending++;
    });
  }

  /** Forget what scrolled (a grid carries none; a re-seed resets the emulator). */
  reset(): void {
    this.pending = 0;
  }

  /** The rows that scrolled off since the last take or reset, oldest first, trailing blanks left out. */
  take(): Cell[][] {
    const buffer = this.term.buffer.normal;
    // ED 3 or a reset may have removed some of them since: only what the scrollback still holds.
    const count = Math.min(this.pending, buffer.baseY, SCROLLED_MAX_ROWS);
    this.pending = 0;
    const rows: Cell[][] = [];
    const scratch = buffer.getNullCell();
    let bytes = 0;
    for (let index = buffer.baseY - 1; index >= buffer.baseY - count; index--) {
      const row = readLine(buffer.getLine(index), this.term.cols, scratch, this.interner);
      let end = row.length;
      while (end > 0 && row[end - 1] === 0) end--;
      row.length = end;
      bytes += cellsJsonLength(row) + 1;
      if (bytes > this.maxBytes) break;
      rows.push(row);
    }
    return rows.reverse();
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
