// The rows above a session's screen, for a terminal's `history` request (docs/terminal.md, "History"). They
// come from tmux's own history (`capture-pane -e` of the lines above the visible pane, at most
// TERMINAL_HISTORY_MAX_ROWS), drawn in a scratch emulator as wide as the terminal, so a client receives cells
// like the screen's and never the pane's bytes (docs/security.md H12); CSI counts are clamped there as in the
// terminal's own emulator. The newest rows are kept when their JSON would pass HISTORY_MAX_BYTES.
import xterm from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';
import { TERMINAL_HISTORY_MAX_ROWS } from '../../protocol/index.js';
import type { ControlClient } from './control-client.js';
import { clampCsiCounts } from './csi-clamp.js';
import { rowJson } from './frame-json.js';
import { readLine, type CellInterner } from './screen-reader.js';

// Both packages are CommonJS bundles: named imports fail in Node's ESM loader.
const { Terminal: HeadlessTerminal } = xterm;
const { Unicode11Addon } = unicode11;

/** JSON of the rows an answer carries at most (the newest kept): 1 MiB, compressed on the wire. */
export const HISTORY_MAX_BYTES = 1024 * 1024;

/**
 * tmux's history above the screen of `target` (`=session:`), as `cols`-wide rows, oldest first, each as its
 * JSON for the answer (frame-json.ts).
 */
export async function readHistory(
  control: ControlClient,
  target: string,
  cols: number,
  interner: CellInterner,
): Promise<string[]> {
  // One command list: the size is that of the history the capture reads. With no history, a capture ending
  // at -1 would return the screen's first line instead, so its answer is then ignored.
  const [size = '0', ...lines] = await control.ask(
    `display-message -p -t ${target} "#{history_size}" ; ` +
      `capture-pane -p -e -S -${TERMINAL_HISTORY_MAX_ROWS} -E -1 -t ${target}`,
    2,
  );
  if (Number(size) <= 0) return [];
  const term = new HeadlessTerminal({ cols, rows: 1, scrollback: TERMINAL_HISTORY_MAX_ROWS, allowProposedApi: true });
  try {
    clampCsiCounts(term);
    term.loadAddon(new Unicode11Addon());
    term.unicode.activeVersion = '11';
    // tmux carries a style across lines (a red block is one SGR on its first line), so no reset between them.
    await new Promise<void>((resolve) => term.write(lines.join('\r\n'), resolve));
    const buffer = term.buffer.active;
    const scratch = buffer.getNullCell();
    const rows: string[] = [];
    let bytes = 0;
    // Newest first, so the budget keeps the rows nearest the screen; the scratch's last row is the last line.
    for (let y = buffer.length - 1; y >= 0 && rows.length < TERMINAL_HISTORY_MAX_ROWS; y--) {
      const text = rowJson(readLine(term, y, scratch, interner));
      if (bytes + text.length + 1 > HISTORY_MAX_BYTES) break;
      bytes += text.length + 1;
      rows.push(text);
    }
    return rows.reverse();
  } finally {
    term.dispose();
  }
}
