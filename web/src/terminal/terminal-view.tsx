// The terminal view: an adapter from the terminal protocol to xterm.js and nothing else. It draws the
// screens the feed applies through the painter (screen-painter.ts: the shared renderer, so xterm.js only
// ever receives escape sequences generated here from cells, never a workspace's raw bytes; docs/security.md
// H12), with Unicode 11 widths as the ship measures them, a scrollback fed from the frames and xterm's
// search over it, in the page's colour scheme (terminal-theme.ts). It reports keystrokes and pastes (clipboard-keys.ts, clipboard.ts) and its fitted size
// (initially and on every container resize) to the feed.
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import './terminal.css';
import { useEffect, useRef, useState } from 'react';
import type { TerminalFeed } from '../hooks/use-terminal.js';
import { keyAction } from './clipboard-keys.js';
import { copySelection, handlePasteEvents, pasteFromClipboard } from './clipboard.js';
import { styleSpansThroughCssom, withCspSafeStyles } from './csp-safe-styles.js';
import { ScreenPainter } from './screen-painter.js';
import { TerminalSearch } from './terminal-search.js';
import { followColorScheme } from './terminal-theme.js';

/** Lines kept above the screen. */
const SCROLLBACK = 5000;

/** Paints on the next animation frame; a hidden tab has none, so a timer paints there (and acks go on). */
const nextPaint = (paint: () => void) => {
  if (document.hidden) setTimeout(paint, 0);
  else requestAnimationFrame(paint);
};

export function TerminalView({ feed }: { feed: TerminalFeed }) {
  const container = useRef<HTMLDivElement>(null);
  const searchField = useRef<HTMLInputElement>(null);
  const terminal = useRef<Terminal | null>(null);
  const [search, setSearch] = useState<SearchAddon | null>(null);
  const [clipboardNote, setClipboardNote] = useState('');

  useEffect(() => {
    const element = container.current!;
    const term = new Terminal({
      scrollback: SCROLLBACK,
      allowProposedApi: true,
      cursorBlink: false,
      fontSize: 14,
      fontFamily: 'ui-monospace, Menlo, Consolas, monospace',
    });
    terminal.current = term;
    const fit = new FitAddon();
    const searchAddon = new SearchAddon();
    term.loadAddon(fit);
    term.loadAddon(searchAddon);
    // The ship measures with Unicode 11 widths (its emulator and tmux): the same here, or wide cells shift.
    term.loadAddon(new Unicode11Addon());
    term.unicode.activeVersion = '11';
    styleSpansThroughCssom(window);
    const unfollowScheme = followColorScheme(term, window);
    withCspSafeStyles(document, () => {
      term.open(element);
      fit.fit();
    });
    setSearch(searchAddon);
    const painter = new ScreenPainter(term, nextPaint, SCROLLBACK);
    const typed = term.onData((data) => feed.input(data));
    const resized = term.onResize(({ cols, rows }) => {
      painter.invalidate();
      feed.resize({ cols, rows });
    });
    term.attachCustomKeyEventHandler((event) => {
      const action = keyAction(event, term.hasSelection());
      if (action === 'terminal') return true;
      if (event.type === 'keydown') {
        if (action === 'copy') {
          event.preventDefault();
          void copySelection(term, document, navigator.clipboard).then((copied) => {
            setClipboardNote(copied ? '' : 'The browser refused the copy: select the text and use its Copy menu.');
            if (copied && !event.shiftKey) term.clearSelection();
          });
        } else if (action === 'search') {
          event.preventDefault();
          searchField.current?.focus();
        }
        // 'paste': the browser pastes (no preventDefault), and its paste event reaches handlePasteEvents.
      }
      return false;
    });
    const stopPasting = handlePasteEvents(term, element);
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(element);
    feed.start({ cols: term.cols, rows: term.rows }, painter);
    term.focus();
    return () => {
      unfollowScheme();
      observer.disconnect();
      stopPasting();
      typed.dispose();
      resized.dispose();
      painter.dispose();
      terminal.current = null;
      setSearch(null);
      term.dispose();
    };
  }, [feed]);

  const paste = async () => {
    const term = terminal.current;
    if (!term) return;
    const pasted = await pasteFromClipboard(term, navigator.clipboard);
    setClipboardNote(
      pasted
        ? ''
        : 'The browser refused to read the clipboard here: press Ctrl+Shift+V or Shift+Insert in the terminal.',
    );
    term.focus();
  };

  return (
    <>
      <div className="terminal-tools">
        <TerminalSearch ref={searchField} search={search} done={() => terminal.current?.focus()} />
        <button type="button" onClick={() => void paste()}>
          Paste
        </button>
        {clipboardNote && <span className="notice">{clipboardNote}</span>}
      </div>
      <div className="terminal" ref={container} data-testid="terminal" />
    </>
  );
}
