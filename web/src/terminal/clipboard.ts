// The terminal page's clipboard, for xterm.js: copying the selection and pasting text. Copy goes through
// the browser's copy command (xterm.js fills the copy event with its selection), which works on plain HTTP
// and without a permission; the async clipboard is the fallback. Paste comes from the browser's paste
// event (the keys let the browser paste: no permission needed) or, from the Paste button, the async
// clipboard, which a browser may refuse (plain HTTP, a denied permission). Either way the text goes through
// xterm's paste, which brackets it while the application asked for bracketed paste (screen-painter.ts
// mirrors the mode), with bracket markers inside the text removed so a paste cannot end its own bracket.
import type { Terminal } from '@xterm/xterm';

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC begins the bracketed-paste markers removed here
const PASTE_MARKERS = /\x1b\[20[01]~/g;

/** Pasted text as it may reach the session. */
export function pastable(text: string): string {
  return text.replace(PASTE_MARKERS, '');
}

/** Copies xterm's selection; false when nothing was selected or the browser refused both ways. */
export async function copySelection(
  term: Terminal,
  document: Document,
  clipboard: Clipboard | undefined,
): Promise<boolean> {
  const text = term.getSelection();
  if (!text) return false;
  if (document.execCommand('copy')) return true;
  if (!clipboard) return false;
  return clipboard.writeText(text).then(
    () => true,
    () => false,
  );
}

/** Pastes what the async clipboard holds; false when the browser refuses it. */
export async function pasteFromClipboard(term: Terminal, clipboard: Clipboard | undefined): Promise<boolean> {
  if (!clipboard?.readText) return false;
  try {
    const text = await clipboard.readText();
    if (text) term.paste(pastable(text));
    return true;
  } catch {
    return false;
  }
}

/** Routes the browser's paste events inside `element` to xterm's paste (cleaned); returns the undo. */
export function handlePasteEvents(term: Terminal, element: HTMLElement): () => void {
  const onPaste = (event: ClipboardEvent) => {
    const text = event.clipboardData?.getData('text/plain');
    event.preventDefault();
    event.stopPropagation();
    if (text) term.paste(pastable(text));
  };
  // Capture phase: before xterm.js's own listeners, which would paste the text unclean.
  element.addEventListener('paste', onPaste, true);
  return () => element.removeEventListener('paste', onPaste, true);
}
