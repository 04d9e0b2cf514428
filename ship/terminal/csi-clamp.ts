// @xterm/headless does not bound CSI repeat counts: `ESC[100000000b` (REP) or a huge IL/DL/SU/SD blocks the
// JS thread for seconds (security notes F1), freezing every terminal and route of the ship. The tmux
// attached client re-renders and bounds these already (F2); this is the second line: a sequence whose count
// exceeds anything a screen can need is dropped before the emulator runs it.
import type { Terminal } from '@xterm/headless';

/** REP, IL, DL, SU, SD, ICH, DCH, ECH, CHT, CBT, CUF/CUB/CUU/CUD, VPR/HPR. */
const COUNTED_FINALS = ['b', 'L', 'M', 'S', 'T', '@', 'P', 'X', 'I', 'Z', 'A', 'B', 'C', 'D', 'e', 'a'];
export const MAX_CSI_COUNT = 4096;

export function clampCsiCounts(term: Terminal): void {
  for (const final of COUNTED_FINALS) {
    term.parser.registerCsiHandler({ final }, (params) =>
      params.some((param) => (Array.isArray(param) ? param.some((p) => p > MAX_CSI_COUNT) : param > MAX_CSI_COUNT)),
    );
  }
}
