// Finds the lines that scrolled off the top between two screens of the same size, for the terminal page's
// scrollback: the ship sends the screen, never the lines above it (docs/terminal.md), so a scroll shows up
// only as the rows moving up. The smallest shift k is taken for which the new screen's first rows continue
// the old screen from row k on (an overlap that is not all blank), allowing the old screen's bottom row to
// differ: output usually lands on the cursor's row before it scrolls. The old screen's first k rows left
// it. More than a screen's height scrolled between two frames leaves no overlap and is not seen, nor is a
// scroll inside a region (an editor's status line stays put). Pure.
import { cellEquals, type Cell } from '../../../protocol/terminal.js';

function rowsEqual(a: Cell[], b: Cell[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let x = 0; x < a.length; x++) if (!cellEquals(a[x]!, b[x]!)) return false;
  return true;
}

const blank = (row: Cell[]) => row.every((cell) => cell === 0);

/** Whether `after`'s first `length` rows are `before`'s from row `shift` on, not all of them blank. */
function continues(before: Cell[][], after: Cell[][], shift: number, length: number): boolean {
  let content = false;
  for (let y = 0; y < length; y++) {
    if (!rowsEqual(after[y]!, before[y + shift]!)) return false;
    content ||= !blank(after[y]!);
  }
  return content;
}

/** The rows of `before` that scrolled off to give `after` (oldest first), or none. */
export function scrolledLines(before: Cell[][], after: Cell[][]): Cell[][] {
  const rows = before.length;
  if (rows < 2 || after.length !== rows) return [];
  // An untouched screen (patched rows are new arrays: protocol/terminal-screen.ts) did not scroll.
  if (before.every((row, y) => row === after[y])) return [];
  for (let shift = 1; shift < rows; shift++) {
    const overlap = rows - shift;
    if (continues(before, after, shift, overlap) || (overlap > 1 && continues(before, after, shift, overlap - 1))) {
      return before.slice(0, shift);
    }
  }
  return [];
}
