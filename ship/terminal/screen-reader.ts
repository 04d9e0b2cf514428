// Reads an @xterm/headless screen into protocol cells. Colours keep their kind (palette index or RGB),
// attributes become the docs/terminal.md bit set, wide characters their width markers, and the cursor its
// position, visibility and DECSCUSR shape. The visible cursor flag and underline style are not in the
// public typings; both are read defensively and pinned by tests.
import type { Terminal, IBufferCell } from '@xterm/headless';
import { ATTRIBUTE, WIDTH, type Cell, type CellColor, type CellObject, type Cursor } from '../../protocol/index.js';

export interface Screen {
  cols: number;
  rows: number;
  cells: Cell[][];
  cursor: Cursor;
  /** The application asked for bracketed paste (DECSET 2004); carried in frames (docs/terminal.md). */
  bracketedPaste?: boolean;
}

function color(isDefault: boolean, isRgb: boolean, value: number): CellColor | undefined {
  if (isDefault) return undefined;
  return isRgb ? [(value >> 16) & 255, (value >> 8) & 255, value & 255] : value;
}

function attributes(cell: IBufferCell): number {
  let bits = 0;
  if (cell.isBold()) bits |= ATTRIBUTE.bold;
  if (cell.isDim()) bits |= ATTRIBUTE.faint;
  if (cell.isItalic()) bits |= ATTRIBUTE.italic;
  if (cell.isBlink()) bits |= ATTRIBUTE.blink;
  if (cell.isInverse()) bits |= ATTRIBUTE.inverse;
  if (cell.isInvisible()) bits |= ATTRIBUTE.invisible;
  if (cell.isStrikethrough()) bits |= ATTRIBUTE.strikethrough;
  if (cell.isOverline()) bits |= ATTRIBUTE.overline;
  return bits;
}

export function toCell(cell: IBufferCell): Cell {
  const width = cell.getWidth();
  const chars = cell.getChars();
  const blankText = chars === '' || chars === ' ';
  if (width === 1 && blankText && cell.isAttributeDefault()) return 0;
  const out: CellObject = {};
  if (!blankText) out.t = chars;
  const fg = color(cell.isFgDefault(), cell.isFgRGB(), cell.getFgColor());
  if (fg !== undefined) out.f = fg;
  const bg = color(cell.isBgDefault(), cell.isBgRGB(), cell.getBgColor());
  if (bg !== undefined) out.b = bg;
  const bits = attributes(cell);
  if (bits) out.a = bits;
  if (cell.isUnderline()) {
    const style = (cell as IBufferCell & { getUnderlineStyle?: () => number }).getUnderlineStyle?.() ?? 1;
    out.u = style >= 1 && style <= 5 ? style : 1;
  }
  if (width === 2) out.w = WIDTH.wide;
  else if (width === 0) out.w = WIDTH.spacerTail;
  return Object.keys(out).length === 0 ? 0 : out;
}

interface CoreWithCursor {
  _core?: {
    coreService?: {
      isCursorHidden?: boolean;
      decPrivateModes?: { cursorStyle?: 'block' | 'underline' | 'bar'; cursorBlink?: boolean };
    };
  };
}

export function readCursor(term: Terminal): Cursor {
  const buffer = term.buffer.active;
  const core = (term as unknown as CoreWithCursor)._core?.coreService;
  const hidden = core?.isCursorHidden === true;
  const cursor: Cursor = {
    x: Math.min(buffer.cursorX, term.cols - 1),
    y: Math.min(buffer.cursorY, term.rows - 1),
    visible: !hidden,
  };
  // DECSCUSR lands in the core's private modes; the public options hold only the embedder's defaults.
  const shape = core?.decPrivateModes?.cursorStyle ?? term.options.cursorStyle;
  if (shape && shape !== 'block') cursor.shape = shape;
  if (core?.decPrivateModes?.cursorBlink ?? term.options.cursorBlink) cursor.blinking = true;
  return cursor;
}

/** The emulator's packed cell data (runtime fields of its CellData; pinned by the reconstruction tests). */
interface RawCell {
  content: number;
  fg: number;
  bg: number;
}

const COMBINED = 0x200000;
const HAS_EXTENDED = 0x10000000;
const INTERN_LIMIT = 65_536;
const BLANK = 1 << 22; // width 1, no character
const SPACE = BLANK | 0x20;

/**
 * Returns one shared, frozen Cell per distinct emulator cell: equal cells are the same object, so frames
 * compare them by identity and serialize each once (frame-json.ts). Cells of combining sequences are not
 * interned (their text lives outside the packed data). Forgets everything past INTERN_LIMIT entries.
 */
export class CellInterner {
  /** bg → fg → content (with the underline style above bit 24) → cell. */
  private readonly cells = new Map<number, Map<number, Map<number, Cell>>>();
  private size = 0;

  cell(source: IBufferCell): Cell {
    const raw = source as unknown as RawCell;
    const { content, fg, bg } = raw;
    if (typeof content !== 'number' || content & COMBINED) return toCell(source);
    // The common case first: a blank default cell (no character, or a space, of width 1).
    if (fg === 0 && bg === 0 && (content === BLANK || content === SPACE)) return 0;
    const style =
      bg & HAS_EXTENDED && source.isUnderline()
        ? ((source as IBufferCell & { getUnderlineStyle?: () => number }).getUnderlineStyle?.() ?? 1)
        : 0;
    const key = content + style * 0x1000000;
    let byFg = this.cells.get(bg);
    if (!byFg) {
      byFg = new Map();
      this.cells.set(bg, byFg);
    }
    let byContent = byFg.get(fg);
    if (!byContent) {
      byContent = new Map();
      byFg.set(fg, byContent);
    }
    let cell = byContent.get(key);
    if (cell === undefined) {
      if (++this.size > INTERN_LIMIT) {
        this.cells.clear();
        this.size = 0;
      }
      cell = toCell(source);
      if (cell !== 0) Object.freeze(cell);
      byContent.set(key, cell);
    }
    return cell;
  }
}

/** One row of the visible screen as cells (a fresh array). */
export function readRow(term: Terminal, row: number, scratch: IBufferCell, interner?: CellInterner): Cell[] {
  return readLine(term, term.buffer.active.viewportY + row, scratch, interner);
}

/** Line `y` of the active buffer (scrollback included, 0 the oldest) as cells (a fresh array). */
export function readLine(term: Terminal, y: number, scratch: IBufferCell, interner?: CellInterner): Cell[] {
  const line = term.buffer.active.getLine(y);
  const cells: Cell[] = new Array(term.cols);
  for (let x = 0; x < term.cols; x++) {
    const cell = line?.getCell(x, scratch);
    cells[x] = cell ? (interner ? interner.cell(cell) : toCell(cell)) : 0;
  }
  return cells;
}

/** Rows a read may keep from an earlier screen of the same size: all but `from`..`to` are taken as they are. */
export interface KeptRows {
  cells: Cell[][];
  from: number;
  to: number;
}

/** The visible screen, every row read, or only `kept`'s changed ones (screen-tracker.ts). */
export function readScreen(term: Terminal, interner?: CellInterner, kept?: KeptRows): Screen {
  const scratch = term.buffer.active.getNullCell();
  const cells: Cell[][] = kept ? kept.cells.slice() : new Array(term.rows);
  const from = kept ? Math.max(0, kept.from) : 0;
  const to = kept ? Math.min(term.rows - 1, kept.to) : term.rows - 1;
  for (let row = from; row <= to; row++) cells[row] = readRow(term, row, scratch, interner);
  return {
    cols: term.cols,
    rows: term.rows,
    cells,
    cursor: readCursor(term),
    bracketedPaste: term.modes.bracketedPasteMode,
  };
}
