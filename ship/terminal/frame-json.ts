// Serializes grid, patch and history frames. Cells come interned from the screen reader (one object per distinct
// cell), so each distinct cell is stringified once and reused: a screen of coloured text is mostly the same
// few hundred cells, and JSON.stringify of whole frames was the ship's largest cost during floods.
import type { Cell, GridFrame, PatchFrame } from '../../protocol/index.js';

const cellJson = new WeakMap<object, string>();

function cellText(cell: Cell): string {
  if (cell === 0) return '0';
  let text = cellJson.get(cell);
  if (text === undefined) {
    text = JSON.stringify(cell);
    cellJson.set(cell, text);
  }
  return text;
}

/** One row (or run) of cells as JSON. */
export function rowJson(cells: Cell[]): string {
  let out = '[';
  for (let i = 0; i < cells.length; i++) out += (i ? ',' : '') + cellText(cells[i]!);
  return `${out}]`;
}

export function frameJson(frame: GridFrame | PatchFrame): string {
  const paste =
    (frame.bracketedPaste ? ',"bracketedPaste":true' : '') +
    (frame.type === 'grid' && frame.history ? ',"history":true' : '');
  const head = `{"type":"${frame.type}","seq":${frame.seq},"cols":${frame.cols},"rows":${frame.rows},"cursor":${JSON.stringify(frame.cursor)}${paste}`;
  if (frame.type === 'grid') return `${head},"cells":[${frame.cells.map(rowJson).join(',')}]}`;
  return `${head},"runs":[${frame.runs.map(([row, col, cells]) => `[${row},${col},${rowJson(cells)}]`).join(',')}]}`;
}

/** A `history` answer from rows already serialized (history-reader.ts). */
export function historyJson(cols: number, rows: readonly string[]): string {
  return `{"type":"history","cols":${cols},"rows":[${rows.join(',')}]}`;
}
