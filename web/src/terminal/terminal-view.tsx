// The terminal view: an adapter from the terminal protocol to xterm.js and nothing else. It draws the
// TerminalScreen with the shared renderer (protocol/terminal-renderer.ts), so xterm.js only ever receives
// escape sequences generated here from cells, never a workspace's raw bytes (security notes H12); it
// reports keystrokes and its fitted size (initially and on every container resize) to the feed.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';
import { TerminalRenderer } from '../../../protocol/terminal-renderer.js';
import type { TerminalScreen } from '../../../protocol/terminal-screen.js';
import type { TerminalFeed } from '../hooks/use-terminal.js';
import { withCspSafeStyles } from './csp-safe-styles.js';

export function TerminalView({ feed }: { feed: TerminalFeed }) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current!;
    const term = new Terminal({ scrollback: 0, cursorBlink: false, fontSize: 14, fontFamily: 'ui-monospace, Menlo, Consolas, monospace' });
    const fit = new FitAddon();
    term.loadAddon(fit);
    withCspSafeStyles(document, () => {
      term.open(element);
      fit.fit();
    });
    const renderer = new TerminalRenderer();
    let shown: TerminalScreen | null = null;
    const draw = (screen: TerminalScreen) => {
      shown = screen;
      term.write(renderer.render(screen, { cols: term.cols, rows: term.rows }));
    };
    const typed = term.onData((data) => feed.input(data));
    const resized = term.onResize(({ cols, rows }) => {
      renderer.invalidate();
      feed.resize({ cols, rows });
      if (shown) draw(shown);
    });
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(element);
    feed.start({ cols: term.cols, rows: term.rows }, draw);
    term.focus();
    return () => {
      observer.disconnect();
      typed.dispose();
      resized.dispose();
      term.dispose();
    };
  }, [feed]);

  return <div className="terminal" ref={container} data-testid="terminal" />;
}
