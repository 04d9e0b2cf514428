// What the terminal page tells the user about its terminal (docs/terminal.md): a shell's exit code, a close
// with its code and reason, the one-terminal rule, and a keystroke queue that filled up. Pure.

export const OPEN_ELSEWHERE = "This workspace's terminal is open elsewhere.";
export const OPEN_ELSEWHERE_HELP =
  'A session has one terminal at a time (another tab, window or svc client attach holds it). Close it there, then take over here.';
export const QUEUE_FULL = 'Input queue full: what you type now is dropped until the terminal is back.';

/** The words for `{type: exit}` after the terminal showed a screen: the shell ended. */
export function exitMessage(code: number, beforeFirstFrame: boolean): string {
  return beforeFirstFrame && code === 1 ? OPEN_ELSEWHERE : `The shell exited (code ${code}).`;
}

/** The words for a close, or null for a normal one (1000, or none given). */
export function closeMessage(code: number, reason: string): string | null {
  if (code === 1000 || code === 1005) return null;
  if (code === 1006) return 'The connection to the bridge was lost (1006).';
  return `The terminal was closed: ${reason || 'no reason given'} (${code}).`;
}
