// Draws a TerminalScreen onto a terminal emulator with minimal output: only cells that differ from what was
// last drawn are written, each run positioned with CUP and styled with SGR. Every byte it emits is a
// sequence it generates itself (CUP, SGR, cursor visibility/shape, clear): cell text is stripped of control
// characters, so nothing a workspace prints (OSC 52 clipboard writes, titles, DCS queries) reaches the
// user's terminal (docs/security.md H12). Browser-safe: the CLI's attach draws a real terminal with it and the
// GUI draws xterm.js with it, so both show a workspace the same way. `scrollOut` moves lines into the
// terminal's own scrollback with line feeds at the bottom row (the GUI's scrollback, docs/terminal.md).
import { ATTRIBUTE, cellEquals, WIDTH, type Cell, type CellColor, type Cursor } from './terminal.js';
import type { TerminalScreen } from './terminal-screen.js';

const ESC = '\x1b';
// biome-ignore lint/suspicious/noControlCharactersInRegex: C0, DEL and C1 removed so no cell text acts as a control
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function colorParams(color: CellColor, base: number): string {
  if (Array.isArray(color)) return `${base + 8};2;${color[0]};${color[1]};${color[2]}`;
  if (color < 8) return String(base + color);
  if (color < 16) return String(base + 60 + color - 8);
  return `${base + 8};5;${color}`;
}

/** The SGR sequence that sets exactly this cell's style (from a reset). */
export function sgrFor(cell: Cell): string {
  if (cell === 0) return `${ESC}[0m`;
  const params = ['0'];
  const a = cell.a ?? 0;
  if (a & ATTRIBUTE.bold) params.push('1');
  if (a & ATTRIBUTE.faint) params.push('2');
  if (a & ATTRIBUTE.italic) params.push('3');
  if (cell.u) params.push(cell.u === 1 ? '4' : `4:${cell.u}`);
  if (a & ATTRIBUTE.blink) params.push('5');
  if (a & ATTRIBUTE.inverse) params.push('7');
  if (a & ATTRIBUTE.invisible) params.push('8');
  if (a & ATTRIBUTE.strikethrough) params.push('9');
  if (a & ATTRIBUTE.overline) params.push('53');
  if (cell.f !== undefined) params.push(colorParams(cell.f, 30));
  if (cell.b !== undefined) params.push(colorParams(cell.b, 40));
  return `${ESC}[${params.join(';')}m`;
}

function textOf(cell: Cell): string {
  if (cell === 0) return ' ';
  const text = (cell.t ?? ' ').replace(CONTROL, '');
  return text === '' ? ' ' : text;
}

/** Marks a position that must be redrawn whatever it holds. */
const NEVER_DRAWN: Cell = { t: '\u0000' };
const sameCell = (a: Cell | undefined, b: Cell) => a !== undefined && cellEquals(a, b);

function sameRow(drawn: Cell[] | undefined, line: Cell[], cols: number): boolean {
  if (!drawn) return false;
  for (let x = 0; x < cols; x++) if (!sameCell(drawn[x], line[x] ?? 0)) return false;
  return true;
}

/** One line's text and styles from the cursor's position on, blanks at its end left to an erase. */
function lineBytes(line: Cell[], cols: number): string {
  let end = Math.min(line.length, cols);
  while (end > 0 && line[end - 1] === 0) end--;
  let out = '';
  let style = '';
  for (let x = 0; x < end; x++) {
    const cell = line[x]!;
    if (cell !== 0 && cell.w === WIDTH.spacerTail) continue;
    if (cell !== 0 && cell.w === WIDTH.wide && x + 1 >= cols) {
      out += `${ESC}[0m `;
      style = '';
      continue;
    }
    const sgr = sgrFor(cell);
    if (sgr !== style) {
      out += sgr;
      style = sgr;
    }
    out += textOf(cell);
  }
  return `${out}${ESC}[0m${ESC}[K`;
}

const CURSOR_SHAPES: Record<string, [number, number]> = { block: [2, 1], underline: [4, 3], bar: [6, 5] };

function cursorSequences(cursor: Cursor, rows: number, cols: number): string {
  const shape = CURSOR_SHAPES[cursor.shape ?? 'block']!;
  return `${ESC}[${Math.min(cursor.y, rows - 1) + 1};${Math.min(cursor.x, cols - 1) + 1}H${ESC}[${cursor.blinking ? shape[1] : shape[0]} q${
    cursor.visible ? `${ESC}[?25h` : `${ESC}[?25l`
  }`;
}

export class TerminalRenderer {
  private drawn: Cell[][] = [];
  private drawnCols = 0;
  private drawnRows = 0;

  /** Forget what is on the terminal (after a local resize or a clear): the next render redraws all. */
  invalidate(): void {
    this.drawn = [];
  }

  /**
   * The bytes that push `lines` (oldest first) into the terminal's scrollback above what it shows: each one
   * is made the top row (written there unless it already is, as after an ordinary scroll) and scrolled off
   * with a line feed on the bottom row. What was drawn moves up with it, so the next render writes only
   * the new rows. `viewport` is the terminal's size.
   */
  scrollOut(lines: Cell[][], viewport: { cols: number; rows: number }): string {
    if (lines.length === 0) return '';
    const known = this.drawn.length > 0 && this.drawnRows === viewport.rows;
    const cols = known ? this.drawnCols : viewport.cols;
    let out = `${ESC}[0m`;
    for (const line of lines) {
      if (!known || !sameRow(this.drawn[0], line, cols)) out += `${ESC}[H${lineBytes(line, cols)}`;
      out += `${ESC}[${viewport.rows};1H\n`;
      if (known) {
        this.drawn.shift();
        this.drawn.push(new Array<Cell>(cols).fill(0));
      }
    }
    if (!known) this.invalidate();
    return out;
  }

  /** The bytes that bring the terminal from what was drawn to `screen`, clipped to `viewport`. */
  render(screen: TerminalScreen, viewport: { cols: number; rows: number }): string {
    const cols = Math.min(screen.cols, viewport.cols);
    const rows = Math.min(screen.rows, viewport.rows);
    let out = '';
    if (cols !== this.drawnCols || rows !== this.drawnRows || this.drawn.length === 0) {
      out += `${ESC}[0m${ESC}[H${ESC}[2J`;
      this.drawn = Array.from({ length: rows }, () => new Array<Cell>(cols).fill(0));
      this.drawnCols = cols;
      this.drawnRows = rows;
    }
    out += `${ESC}[?25l`;
    let style = '';
    for (let y = 0; y < rows; y++) {
      const row = screen.cells[y] ?? [];
      const drawn = this.drawn[y]!;
      let x = 0;
      while (x < cols) {
        const cell = row[x] ?? 0;
        if (sameCell(drawn[x], cell)) {
          x++;
          continue;
        }
        // Start a run; a spacer tail is drawn by its wide head, so begin at the head (and redraw it).
        if (cell !== 0 && cell.w === WIDTH.spacerTail && x > 0) {
          x--;
          drawn[x] = NEVER_DRAWN;
        }
        out += `${ESC}[${y + 1};${x + 1}H`;
        while (x < cols) {
          const current = row[x] ?? 0;
          if (sameCell(drawn[x], current) && !(current !== 0 && current.w === WIDTH.spacerTail)) break;
          if (current !== 0 && current.w === WIDTH.spacerTail) {
            drawn[x] = current;
            x++;
            continue;
          }
          const wide = current !== 0 && current.w === WIDTH.wide;
          if (wide && x + 1 >= cols) {
            // A wide character cut by the viewport's edge: draw a blank instead.
            out += `${ESC}[0m `;
            style = '';
            drawn[x] = 0;
            x++;
            continue;
          }
          const sgr = sgrFor(current);
          if (sgr !== style) {
            out += sgr;
            style = sgr;
          }
          out += textOf(current);
          drawn[x] = current;
          if (wide) {
            drawn[x + 1] = row[x + 1] ?? 0;
            x += 2;
          } else x++;
        }
      }
    }
    out += `${ESC}[0m${cursorSequences(screen.cursor, rows, cols)}`;
    return out;
  }
}
