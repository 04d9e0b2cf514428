// What the terminal page tells the user when a terminal ends (docs/terminal.md): a refused socket, the
// shell's exit code, or a close with its code and reason. Pure.

export const OPEN_ELSEWHERE = "This workspace's terminal is open elsewhere.";

/** The words for `{type: exit, code}`; `beforeFirstFrame` marks a socket refused before any screen. */
export function exitMessage(code: number, beforeFirstFrame: boolean): string {
  return beforeFirstFrame && code === 1 ? OPEN_ELSEWHERE : `The shell exited (code ${code}).`;
}

/** The words for a close, or null for a normal one (1000, or none given). */
export function closeMessage(code: number, reason: string): string | null {
  if (code === 1000 || code === 1005) return null;
  if (code === 1006) return 'The connection to the bridge was lost (1006).';
  return `The terminal was closed: ${reason || 'no reason given'} (${code}).`;
}
