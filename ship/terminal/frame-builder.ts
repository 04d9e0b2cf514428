// Turns successive screens into frames: a full `grid`, or a `patch` holding only the runs of cells that
// changed since the last frame actually sent (nearby changes within a row merge into one run). A change of
// the bracketed-paste mode alone is a patch too, so a client learns it before the next paste.
import { cellEquals, type Cell, type Cursor, type GridFrame, type PatchFrame, type Run } from '../../protocol/index.js';
import type { Screen } from './screen-reader.js';

/** Unchanged cells a run may bridge rather than starting a new run. */
const MERGE_GAP = 4;

function cursorEquals(a: Cursor, b: Cursor): boolean {
  return a.x === b.x && a.y === b.y && a.visible === b.visible && a.shape === b.shape && a.blinking === b.blinking;
}

export function diffRow(row: number, before: Cell[], after: Cell[]): Run[] {
  const runs: Run[] = [];
  let start = -1;
  let end = -1;
  for (let x = 0; x < after.length; x++) {
    if (cellEquals(before[x] ?? 0, after[x]!)) continue;
    if (start !== -1 && x - end - 1 <= MERGE_GAP) {
      end = x;
      continue;
    }
    if (start !== -1) runs.push([row, start, after.slice(start, end + 1)]);
    start = x;
    end = x;
  }
  if (start !== -1) runs.push([row, start, after.slice(start, end + 1)]);
  return runs;
}

export class FrameBuilder {
  private sent: Screen | null = null;

  grid(seq: number, screen: Screen): GridFrame {
    this.sent = screen;
    const frame: GridFrame = {
      type: 'grid',
      seq,
      cols: screen.cols,
      rows: screen.rows,
      cursor: screen.cursor,
      cells: screen.cells,
      // The ship's terminal answers `history` (terminal-connection.ts).
      history: true,
    };
    if (screen.bracketedPaste) frame.bracketedPaste = true;
    return frame;
  }

  /** A patch against the last sent screen, or null when nothing visible changed. Needs a prior grid. */
  patch(seq: number, screen: Screen): PatchFrame | null {
    const sent = this.sent;
    if (!sent || sent.cols !== screen.cols || sent.rows !== screen.rows)
      throw new Error('a patch needs a grid of the same size first');
    const runs: Run[] = [];
    for (let row = 0; row < screen.rows; row++) {
      const before = sent.cells[row]!;
      const after = screen.cells[row]!;
      // A row the screen tracker did not read again is the same array: nothing in it changed.
      if (before !== after) runs.push(...diffRow(row, before, after));
    }
    const samePaste = Boolean(sent.bracketedPaste) === Boolean(screen.bracketedPaste);
    if (runs.length === 0 && cursorEquals(sent.cursor, screen.cursor) && samePaste) return null;
    this.sent = screen;
    const frame: PatchFrame = { type: 'patch', seq, cols: screen.cols, rows: screen.rows, cursor: screen.cursor, runs };
    if (screen.bracketedPaste) frame.bracketedPaste = true;
    return frame;
  }

  /** True when the next frame must be a grid (nothing sent yet, or the size changed). */
  needsGrid(screen: { cols: number; rows: number }): boolean {
    return !this.sent || this.sent.cols !== screen.cols || this.sent.rows !== screen.rows;
  }
}
