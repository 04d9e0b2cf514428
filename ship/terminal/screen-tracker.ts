// Reads the headless emulator's screen for the next frame, re-reading only the rows that changed since the
// last read. Which rows changed is what xterm itself tells a renderer: each parse's dirty range (scrolling,
// a reset and a buffer switch included; the random-output test in screen-tracker.test.ts holds it to a full
// read), and every row after a resize. Unchanged rows keep their previous
// arrays, so the frame builder skips them by identity. An echo then costs one row, not the whole screen
// (docs/terminal.md, "Keystroke echo"). The dirty range lives behind @xterm/headless's private
// `_core._inputHandler`; where that is missing every read is a full one, and `full` always is.
import type { IDisposable, Terminal } from '@xterm/headless';
import { readScreen, type CellInterner, type Screen } from './screen-reader.js';

interface RefreshEvents {
  onRequestRefreshRows?: (listener: (range: { start: number; end: number } | undefined) => void) => IDisposable;
}

interface CoreWithInputHandler {
  _core?: { _inputHandler?: RefreshEvents };
}

export class ScreenTracker {
  private last: Screen | null = null;
  private all = true;
  private start = Number.POSITIVE_INFINITY;
  private end = Number.NEGATIVE_INFINITY;
  private readonly subscriptions: IDisposable[] = [];
  /** False when the emulator offers no dirty range: every read is then a full one. */
  readonly incremental: boolean;

  constructor(
    private readonly term: Terminal,
    private readonly interner: CellInterner,
  ) {
    const handler = (term as unknown as CoreWithInputHandler)._core?._inputHandler;
    const onRows = handler?.onRequestRefreshRows;
    this.incremental = typeof onRows === 'function';
    if (!onRows) return;
    this.subscriptions.push(
      onRows.call(handler, (range) => (range ? this.mark(range.start, range.end) : this.markAll())),
      term.buffer.onBufferChange(() => this.markAll()),
      term.onResize(() => this.markAll()),
    );
  }

  /** Every row counts as changed at the next read (after a reset or resize done through the API). */
  markAll(): void {
    this.all = true;
  }

  private mark(start: number, end: number): void {
    if (start < this.start) this.start = start;
    if (end > this.end) this.end = end;
  }

  /** The screen now: all rows when `full`, else only the changed ones read again. */
  read(full = false): Screen {
    const term = this.term;
    const last = this.last;
    const whole = full || this.all || !this.incremental || !last || last.cols !== term.cols || last.rows !== term.rows;
    const screen = readScreen(
      term,
      this.interner,
      whole ? undefined : { cells: last.cells, from: this.start, to: this.end },
    );
    this.all = false;
    this.start = Number.POSITIVE_INFINITY;
    this.end = Number.NEGATIVE_INFINITY;
    this.last = screen;
    return screen;
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.subscriptions.length = 0;
  }
}
