// Plain-text tables for the CLI's default output: one header row, columns padded to their widest cell.
// Cells are sanitized first, so a name can never move the cursor or recolour the terminal; the only
// colour is the one a styled cell asks for, added after padding so widths stay right.
import type { StyledCell } from './output.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: C0, DEL and C1 replaced so no cell moves the cursor
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f]/g;

export type Cell = string | number | null | undefined | StyledCell;

export function formatTable(headers: string[], rows: Cell[][]): string {
  const cells = rows.map((row) =>
    row.map((cell) => {
      const styled = typeof cell === 'object' && cell !== null;
      const text = String(styled ? cell.text : (cell ?? '-')).replace(UNPRINTABLE, '?');
      return { text, sgr: styled ? cell.sgr : null };
    }),
  );
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...cells.map((row) => (row[column]?.text ?? '').length)),
  );
  const render = (row: Array<{ text: string; sgr: number | null }>) =>
    row
      .map(({ text, sgr }, column) => {
        const padded = column === row.length - 1 ? text : text.padEnd(widths[column]!);
        return sgr === null ? padded : `\x1b[${sgr}m${text}\x1b[39m${padded.slice(text.length)}`;
      })
      .join('  ');
  return `${[render(headers.map((text) => ({ text, sgr: null }))), ...cells.map(render)].join('\n')}\n`;
}
