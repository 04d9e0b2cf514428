// The app-wide keys (issue #31, docs/DECISIONS.md "Keyboard shortcuts and the terminal"): Ctrl/Cmd+K opens
// the command palette, `?` the shortcuts overlay. Listened for in the capture phase on window, so a key
// meant for the app never reaches a focused control first. In the terminal Ctrl+K belongs to the shell
// (readline's kill-line): there only Ctrl+Shift+K (or ⌘K) opens the palette, and `?` is typed as text.
import { useEffect } from 'react';

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))
  );
}

function inTerminal(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('.terminal') !== null;
}

export function useGlobalShortcuts(handlers: { palette: () => void; shortcuts: () => void }): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing) return;
      if (event.key.toLowerCase() === 'k' && (event.ctrlKey || event.metaKey) && !event.altKey) {
        if (inTerminal(event.target) && !event.metaKey && !event.shiftKey) return;
        event.preventDefault();
        event.stopPropagation();
        handlers.palette();
        return;
      }
      if (
        event.key === '?' &&
        !event.ctrlKey &&
        !event.metaKey &&
        !event.altKey &&
        !isTyping(event.target) &&
        !inTerminal(event.target)
      ) {
        event.preventDefault();
        handlers.shortcuts();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [handlers]);
}
