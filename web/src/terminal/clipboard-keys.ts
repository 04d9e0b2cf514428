// Which keys of the terminal page are clipboard and search keys rather than keystrokes for the session:
// Ctrl/Cmd+C copies when text is selected (otherwise Ctrl+C is ^C for the shell), Ctrl+Shift+C copies,
// Ctrl+Shift+V, Cmd+V and Shift+Insert paste, Ctrl+Shift+F searches. Ctrl+V stays ^V (the shell's
// literal-next), as in other terminals. Pure.

export type KeyAction = 'copy' | 'paste' | 'search' | 'terminal';

export interface KeyLike {
  key: string;
  code: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

/** The letter a key means: its character on Latin layouts, else the physical key (Ctrl+С on a Russian layout is Ctrl+C). */
function letterOf(event: KeyLike): string {
  if (/^[a-z]$/i.test(event.key)) return event.key.toLowerCase();
  return /^Key[A-Z]$/.test(event.code) ? event.code.slice(3).toLowerCase() : '';
}

export function keyAction(event: KeyLike, hasSelection: boolean): KeyAction {
  if (event.altKey) return 'terminal';
  const ctrl = event.ctrlKey && !event.metaKey;
  const meta = event.metaKey && !event.ctrlKey;
  if (event.key === 'Insert' && event.shiftKey && !ctrl && !meta) return 'paste';
  const letter = letterOf(event);
  if (ctrl && event.shiftKey) {
    if (letter === 'c') return 'copy';
    if (letter === 'v') return 'paste';
    if (letter === 'f') return 'search';
    return 'terminal';
  }
  if ((ctrl || meta) && !event.shiftKey && letter === 'c' && hasSelection) return 'copy';
  if (meta && !event.shiftKey && letter === 'v') return 'paste';
  return 'terminal';
}
