// The terminal protocol (spec "WS …/terminal", docs/terminal.md): client messages, server frames, cells, close
// codes and limits. Shared by the ship, the bridge's proxy, the CLI, the GUI and the tests.
import { Type, type Static } from 'typebox';

export const TERMINAL_MAX_COLS = 1024;
export const TERMINAL_MAX_ROWS = 512;
export const TERMINAL_INPUT_MAX_BYTES = 256 * 1024;
export const TERMINAL_INIT_TIMEOUT_MS = 5000;
export const TERMINAL_MAX_UNACKED_FRAMES = 2;
export const TERMINAL_ACK_TIMEOUT_MS = 5000;

export const TERMINAL_CLOSE = {
  initTimeout: { code: 1008, reason: 'terminal init timeout' },
  invalidMessage: { code: 1008, reason: 'Invalid terminal message' },
  binary: { code: 1003, reason: 'Binary terminal messages are not supported' },
  bufferLimit: { code: 1009, reason: 'Terminal buffer limit exceeded' },
  /** After `{type: "exit", code: 1}`: another connection holds the session's one terminal. */
  openElsewhere: { code: 1000, reason: 'Terminal open elsewhere' },
} as const;

const Cols = Type.Integer({ minimum: 1, maximum: TERMINAL_MAX_COLS });
const Rows = Type.Integer({ minimum: 1, maximum: TERMINAL_MAX_ROWS });
const utf8 = new TextEncoder();

/** Text typed into a session at once (terminal input, `POST …/input`): at most TERMINAL_INPUT_MAX_BYTES as UTF-8. */
export const TerminalInputText = Type.Refine(
  Type.String(),
  (value) => value.length <= TERMINAL_INPUT_MAX_BYTES && utf8.encode(value).length <= TERMINAL_INPUT_MAX_BYTES,
  () => `must be at most ${TERMINAL_INPUT_MAX_BYTES} UTF-8 bytes`,
);

export const InitMessage = Type.Object({ type: Type.Literal('init'), cols: Cols, rows: Rows });
export const InputMessage = Type.Object({ type: Type.Literal('input'), data: TerminalInputText });
export const ResizeMessage = Type.Object({ type: Type.Literal('resize'), cols: Cols, rows: Rows });
export const AckMessage = Type.Object({ type: Type.Literal('ack'), seq: Type.Integer({ minimum: 0 }) });
export const ResyncMessage = Type.Object({ type: Type.Literal('resync') });
/** Asks for the rows above the screen (docs/terminal.md, "History"); only to a server whose grid offered it. */
export const HistoryMessage = Type.Object({ type: Type.Literal('history') });
export const TerminalClientMessage = Type.Union([
  InitMessage,
  InputMessage,
  ResizeMessage,
  AckMessage,
  ResyncMessage,
  HistoryMessage,
]);
export type TerminalClientMessage = Static<typeof TerminalClientMessage>;

/** RGB colour as `[r, g, b]`, or a palette index 0-255. */
export const CellColor = Type.Union([
  Type.Integer({ minimum: 0, maximum: 255 }),
  Type.Tuple([Type.Integer(), Type.Integer(), Type.Integer()]),
]);
export type CellColor = Static<typeof CellColor>;

/**
 * A cell: the literal 0 for a blank default cell, else only its non-default keys: `t` text (absent: a
 * space), `f`/`b` colours, `a` attribute bits, `u` underline style 1-5, `w` width marker.
 */
export const CellObject = Type.Object({
  t: Type.Optional(Type.String()),
  f: Type.Optional(CellColor),
  b: Type.Optional(CellColor),
  a: Type.Optional(Type.Integer({ minimum: 1, maximum: 255 })),
  u: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
  w: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
});
export type CellObject = Static<typeof CellObject>;
export const Cell = Type.Union([Type.Literal(0), CellObject]);
export type Cell = 0 | CellObject;

export const ATTRIBUTE = {
  bold: 1,
  faint: 2,
  italic: 4,
  blink: 8,
  inverse: 16,
  invisible: 32,
  strikethrough: 64,
  overline: 128,
} as const;
export const WIDTH = { wide: 1, spacerTail: 2, spacerHead: 3 } as const;

export const Cursor = Type.Object({
  x: Type.Integer({ minimum: 0 }),
  y: Type.Integer({ minimum: 0 }),
  visible: Type.Boolean(),
  shape: Type.Optional(Type.Union([Type.Literal('block'), Type.Literal('underline'), Type.Literal('bar')])),
  blinking: Type.Optional(Type.Boolean()),
});
export type Cursor = Static<typeof Cursor>;

/**
 * Present (and true) on a frame while the application has asked for bracketed paste (`ESC[?2004h`): a
 * client then wraps pasted text in `ESC[200~` … `ESC[201~`. An optional addition; absent means off.
 */
const BracketedPaste = Type.Optional(Type.Literal(true));

/** Present (and true) on a grid when the server answers `history`; an optional addition, like the above. */
const HistoryOffered = Type.Optional(Type.Literal(true));

/** Rows a history answer carries at most: tmux's default `history-limit`. */
export const TERMINAL_HISTORY_MAX_ROWS = 2000;

export const GridFrame = Type.Object({
  type: Type.Literal('grid'),
  seq: Type.Integer({ minimum: 0 }),
  cols: Cols,
  rows: Rows,
  cursor: Cursor,
  cells: Type.Array(Type.Array(Cell)),
  bracketedPaste: BracketedPaste,
  history: HistoryOffered,
});
export type GridFrame = Omit<Static<typeof GridFrame>, 'cells'> & { cells: Cell[][] };

/** A run: `[row, col, cells]`, cells replacing the row from `col` on, never past the right edge. */
export const Run = Type.Tuple([Type.Integer({ minimum: 0 }), Type.Integer({ minimum: 0 }), Type.Array(Cell)]);
export type Run = [number, number, Cell[]];

export const PatchFrame = Type.Object({
  type: Type.Literal('patch'),
  seq: Type.Integer({ minimum: 1 }),
  cols: Cols,
  rows: Rows,
  cursor: Cursor,
  runs: Type.Array(Run),
  bracketedPaste: BracketedPaste,
});
export type PatchFrame = Omit<Static<typeof PatchFrame>, 'runs'> & { runs: Run[] };

export const ExitFrame = Type.Object({ type: Type.Literal('exit'), code: Type.Integer() });
export type ExitFrame = Static<typeof ExitFrame>;

/** The answer to `history`: the rows above the screen, oldest first, `cols` wide. Outside `seq`. */
export const HistoryFrame = Type.Object({
  type: Type.Literal('history'),
  cols: Cols,
  rows: Type.Array(Type.Array(Cell), { maxItems: TERMINAL_HISTORY_MAX_ROWS }),
});
export type HistoryFrame = Omit<Static<typeof HistoryFrame>, 'rows'> & { rows: Cell[][] };

export const TerminalServerFrame = Type.Union([GridFrame, PatchFrame, ExitFrame, HistoryFrame]);
export type TerminalServerFrame = GridFrame | PatchFrame | ExitFrame | HistoryFrame;

export function cellEquals(a: Cell, b: Cell): boolean {
  if (a === b) return true;
  if (a === 0 || b === 0) return false;
  return a.t === b.t && a.a === b.a && a.u === b.u && a.w === b.w && colorEquals(a.f, b.f) && colorEquals(a.b, b.b);
}

function colorEquals(a: CellColor | undefined, b: CellColor | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
  return false;
}
