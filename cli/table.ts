// Plain-text tables for the CLI's default output: one header row, columns padded to their widest cell.
// Cells are sanitized first, so a name can never move the cursor or recolour the terminal.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f]/g;

export function formatTable(headers: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const cells = rows.map((row) => row.map((cell) => String(cell ?? '-').replace(UNPRINTABLE, '?')));
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ');
  return [line(headers), ...cells.map(line)].join('\n') + '\n';
}
