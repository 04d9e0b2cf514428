// Serializes grid and patch frames. Cells come interned from the screen reader (one object per distinct
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

/** The length of `cells` as frameJson writes them, without building the text (the scrolled rows' budget). */
export function cellsJsonLength(cells: Cell[]): number {
  let length = cells.length ? 1 + cells.length : 2;
  for (let i = 0; i < cells.length; i++) length += cellText(cells[i]!).length;
  return length;
}

function cellsText(cells: Cell[]): string {
  let out = '[';
  for (let i = 0; i < cells.length; i++) out += (i ? ',' : '') + cellText(cells[i]!);
  return `${out}]`;
}

export function frameJson(frame: GridFrame | PatchFrame): string {
  const paste = frame.bracketedPaste ? ',"bracketedPaste":true' : '';
  const scrolled = frame.scrolled ? `,"scrolled":[${frame.scrolled.map(cellsText).join(',')}]` : '';
  const head = `{"type":"${frame.type}","seq":${frame.seq},"cols":${frame.cols},"rows":${frame.rows},"cursor":${JSON.stringify(frame.cursor)}${paste}${scrolled}`;
  if (frame.type === 'grid') return `${head},"cells":[${frame.cells.map(cellsText).join(',')}]}`;
  return `${head},"runs":[${frame.runs.map(([row, col, cells]) => `[${row},${col},${cellsText(cells)}]`).join(',')}]}`;
}
