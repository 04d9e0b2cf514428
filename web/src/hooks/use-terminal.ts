// One workspace terminal for the terminal page: a ReconnectingTerminal (terminal/reconnecting-terminal.ts)
// over the API client's sockets (a fresh ticket each time), started once the view knows its fitted size,
// drawing through the view's painter; the page reads its status (open, reconnecting, open elsewhere,
// ended, a full keystroke queue) and may connect now (take over, reconnect, skip a wait).
import { useEffect, useMemo, useRef, useState } from 'react';
import type { Cell } from '../../../protocol/terminal.js';
import type { TerminalScreen } from '../../../protocol/terminal-screen.js';
import { useApi } from '../state/session.js';
import { ReconnectingTerminal, type TerminalStatus } from '../terminal/reconnecting-terminal.js';
import type { TerminalSize } from '../terminal/terminal-session.js';

export type { TerminalStatus };

/** Where the feed draws: the view's ScreenPainter. */
export interface TerminalCanvas {
  frame(screen: TerminalScreen, scrolled: Cell[][], acknowledge: () => void): void;
  history(rows: Cell[][]): void;
}

/** What the terminal view drives: start with the fitted size and its canvas, then input and resizes. */
export interface TerminalFeed {
  start(size: TerminalSize, canvas: TerminalCanvas): void;
  input(data: string): void;
  resize(size: TerminalSize): void;
}

const browserTimers = {
  setTimeout: (run: () => void, ms: number) => setTimeout(run, ms),
  clearTimeout: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export function useTerminal(
  repo: string,
  name: string,
): { status: TerminalStatus; feed: TerminalFeed; connectNow(): void } {
  const api = useApi();
  const [status, setStatus] = useState<TerminalStatus>({ state: { kind: 'connecting' }, queueFull: false });
  const current = useRef<ReconnectingTerminal | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies(repo): trigger: another workspace starts afresh
  // biome-ignore lint/correctness/useExhaustiveDependencies(name): trigger: another workspace starts afresh
  useEffect(() => {
    setStatus({ state: { kind: 'connecting' }, queueFull: false });
    return () => {
      current.current?.close();
      current.current = null;
    };
  }, [repo, name]);

  const feed = useMemo<TerminalFeed>(
    () => ({
      start(size, canvas) {
        current.current?.close();
        const terminal = new ReconnectingTerminal(
          {
            open: () => api.openSocket(api.terminalPath(repo, name)),
            timers: browserTimers,
            screen: (screen, scrolled, acknowledge) => canvas.frame(screen, scrolled, acknowledge),
            history: (rows) => canvas.history(rows),
            status: (next) => {
              if (current.current === terminal) setStatus(next);
            },
          },
          size,
        );
        current.current = terminal;
        terminal.start();
      },
      input: (data) => current.current?.input(data),
      resize: (size) => current.current?.resize(size),
    }),
    [api, repo, name],
  );

  return { status, feed, connectNow: () => current.current?.connectNow() };
}
