// The client side of the terminal protocol: applies grid and patch frames to a cell buffer and says what
// to answer (ack the applied seq, or one resync on a gap). Used by the CLI, the GUI, tests and benchmarks.
// A patch replaces the rows it touches with new arrays instead of writing into them, so a caller that kept
// `cells.slice()` from before still holds the previous screen (the GUI compares the two to find scrolling).
import type { Cell, Cursor, GridFrame, PatchFrame } from './terminal.js';

export interface ApplyResult {
  /** Send `{type: "ack", seq}`. */
  ack?: number;
  /** Send `{type: "resync"}` (once per gap; later patches are ignored until the next grid). */
  resync?: boolean;
}

export class TerminalScreen {
  cols = 0;
  rows = 0;
  cells: Cell[][] = [];
  cursor: Cursor = { x: 0, y: 0, visible: true };
  /** seq of the last applied frame; -1 before the first grid. */
  seq = -1;
  /** The application asked for bracketed paste (the frames' optional `bracketedPaste`). */
  bracketedPaste = false;
  private awaitingGrid = true;

  apply(frame: GridFrame | PatchFrame): ApplyResult {
    if (frame.type === 'grid') {
      this.cols = frame.cols;
      this.rows = frame.rows;
      this.cells = frame.cells.map((row) => [...row]);
      this.cursor = frame.cursor;
      this.seq = frame.seq;
      this.bracketedPaste = frame.bracketedPaste === true;
      this.awaitingGrid = false;
      return { ack: frame.seq };
    }
    if (this.awaitingGrid) return {};
    if (frame.seq !== this.seq + 1 || frame.cols !== this.cols || frame.rows !== this.rows) {
      this.awaitingGrid = true;
      return { resync: true };
    }
    const copied = new Set<number>();
    for (const [row, col, cells] of frame.runs) {
      const old = this.cells[row];
      if (!old) continue;
      const target = copied.has(row) ? old : [...old];
      this.cells[row] = target;
      copied.add(row);
      for (let i = 0; i < cells.length && col + i < this.cols; i++) target[col + i] = cells[i]!;
    }
    this.cursor = frame.cursor;
    this.seq = frame.seq;
    this.bracketedPaste = frame.bracketedPaste === true;
    return { ack: frame.seq };
  }

  /** The text of one row: spacer cells of wide characters contribute nothing, blanks a space. */
  rowText(row: number): string {
    return (this.cells[row] ?? []).map((cell) => (cell === 0 ? ' ' : cell.w === 2 ? '' : (cell.t ?? ' '))).join('');
  }

  text(): string {
    return Array.from({ length: this.rows }, (_, row) => this.rowText(row).replace(/\s+$/, '')).join('\n');
  }
}
