// Finds the lines that scrolled off the top between two screens of the same size, for the terminal page's
// scrollback: the ship sends the screen, never the lines above it (docs/terminal.md), so a scroll shows up
// only as every row moving up. The smallest shift k for which the new screen's first rows - k equal the
// old screen's last rows - k (and that overlap is not all blank) is taken; the old screen's first k rows
// left it. More than a screen's height scrolled between two frames leaves no overlap and is not seen, nor
// is a scroll inside a region (an editor's status line stays put). Pure.
import { cellEquals, type Cell } from '../../../protocol/terminal.js';

function rowsEqual(a: Cell[], b: Cell[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let x = 0; x < a.length; x++) if (!cellEquals(a[x]!, b[x]!)) return false;
  return true;
}

const blank = (row: Cell[]) => row.every((cell) => cell === 0);

/** The rows of `before` that scrolled off to give `after` (oldest first), or none. */
export function scrolledLines(before: Cell[][], after: Cell[][]): Cell[][] {
  const rows = before.length;
  if (rows < 2 || after.length !== rows) return [];
  // An untouched screen (patched rows are new arrays: protocol/terminal-screen.ts) did not scroll.
  if (before.every((row, y) => row === after[y])) return [];
  for (let shift = 1; shift < rows; shift++) {
    let matches = true;
    let content = false;
    for (let y = 0; y + shift < rows; y++) {
      if (!rowsEqual(after[y]!, before[y + shift]!)) {
        matches = false;
        break;
      }
      content ||= !blank(after[y]!);
    }
    if (matches && content) return before.slice(0, shift);
  }
  return [];
}
