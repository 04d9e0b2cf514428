// @xterm/headless does not bound CSI repeat counts: `ESC[100000000b` (REP) or a huge IL/DL/SU/SD/CHT/CBT
// loops once per count and blocks the JS thread for seconds (docs/security.md F1), freezing every terminal and
// route of the ship. tmux itself bounds each of these by what the screen can hold, so the pane tmux shows is
// the clamped result. This module does the same in front of the emulator: a count past what its final can
// affect is lowered to that limit before xterm's own handler runs, so the screen still equals tmux's
// (`capture-pane`) and the emulator never loops more than a screen's worth. Dropping the sequence instead
// would leave the screen wrong (issue #14).
//
// Each limit is where the final's effect saturates, read from the emulator's size and cursor at the moment
// the sequence runs: a larger count gives the same screen as the limit (pinned per final against the
// unclamped emulator in csi-clamp.test.ts). REP is the exception that follows tmux rather than xterm.js:
// tmux repeats at most up to the right margin (input.c, INPUT_CSI_REP), while xterm.js would wrap and fill
// further lines, which capture-pane never shows.
import type { Terminal } from '@xterm/headless';

/** The largest count a final can need on this screen, at this cursor. */
type Limit = (term: Terminal) => number;

const columns: Limit = (term) => term.cols;
const rows: Limit = (term) => term.rows;
/** xterm.js keeps the cursor at `cols` after writing the last column (pending wrap): nothing fits then. */
const restOfLine: Limit = (term) => Math.max(0, term.cols - term.buffer.active.cursorX);

/**
 * Counted finals without prefix or intermediates, by their limit. Only the first parameter is a count;
 * xterm.js ignores any further ones for these finals.
 */
export const COUNT_LIMITS: Readonly<Record<string, Limit>> = {
  b: restOfLine, // REP: tmux stops at the right margin
  '@': columns, // ICH
  P: columns, // DCH
  X: columns, // ECH
  C: columns, // CUF
  D: columns, // CUB
  a: columns, // HPR
  I: columns, // CHT: at most one tab stop per column
  Z: columns, // CBT
  A: rows, // CUU
  B: rows, // CUD
  e: rows, // VPR
  L: rows, // IL: at most the scroll region's height
  M: rows, // DL
  S: rows, // SU
  T: rows, // SD
};

/** xterm's parser state for one sequence (its internal `Params`): the counts as they reach its handlers. */
interface RawParams {
  length: number;
  params: Int32Array;
}

interface CoreParser {
  registerCsiHandler(id: { final: string }, handler: (params: RawParams) => boolean): unknown;
}

/**
 * Registers, ahead of xterm's own handlers, one handler per counted final that lowers an excessive count in
 * place and lets the sequence through. The public `registerCsiHandler` hands out a copy of the parameters,
 * so only the core's registration (the same parser, one level down) can change what xterm's handler sees.
 */
export function clampCsiCounts(term: Terminal): void {
  const core = (term as unknown as { _core?: Partial<CoreParser> })._core;
  if (typeof core?.registerCsiHandler !== 'function') {
    throw new Error('@xterm/headless no longer exposes its core CSI handlers: the CSI count clamp cannot run');
  }
  for (const [final, limit] of Object.entries(COUNT_LIMITS)) {
    core.registerCsiHandler.call(core, { final }, (params) => {
      if (params.length === 0) return false;
      const count = params.params[0] || 1; // 0 is the default, 1 for every one of these finals
      const most = limit(term);
      if (count <= most) return false;
      if (most === 0) return true; // nothing fits: the sequence does nothing (REP at the right margin)
      params.params[0] = most;
      return false;
    });
  }
}
