// One workspace terminal for the terminal page: opens the bridge's terminal socket (fresh ticket) once the
// view knows its fitted size, runs the protocol through TerminalSession, and says what happened in words:
// the shell's exit code, a refused socket ("open elsewhere"), or a close with its code and reason.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { TerminalScreen } from '../../../protocol/terminal-screen.js';
import { errorText } from '../api/api-error.js';
import { useApi } from '../state/session.js';
import { closeMessage, exitMessage } from '../terminal/terminal-messages.js';
import { TerminalSession, type TerminalSize } from '../terminal/terminal-session.js';

export type TerminalStatus =
  | { kind: 'connecting' }
  | { kind: 'open' }
  | { kind: 'ended'; message: string };

/** What the terminal view drives: start with the fitted size and a drawing function, then input and resizes. */
export interface TerminalFeed {
  start(size: TerminalSize, draw: (screen: TerminalScreen) => void): void;
  input(data: string): void;
  resize(size: TerminalSize): void;
}

export function useTerminal(repo: string, name: string, generation: number): { status: TerminalStatus; feed: TerminalFeed } {
  const api = useApi();
  const [status, setStatus] = useState<TerminalStatus>({ kind: 'connecting' });
  // The session of the current view; callbacks of an older one (closing after a reconnect) are ignored.
  const current = useRef<{ session: TerminalSession | null; ended: boolean } | null>(null);

  useEffect(() => {
    setStatus({ kind: 'connecting' });
    return () => {
      const previous = current.current;
      current.current = null;
      previous?.session?.close();
    };
  }, [repo, name, generation]);

  const feed = useMemo<TerminalFeed>(
    () => ({
      start(size, draw) {
        const mine: { session: TerminalSession | null; ended: boolean } = { session: null, ended: false };
        current.current = mine;
        const end = (message: string) => {
          if (current.current !== mine || mine.ended) return;
          mine.ended = true;
          setStatus({ kind: 'ended', message });
        };
        api.openSocket(api.terminalPath(repo, name)).then(
          (socket) => {
            if (current.current !== mine) return socket.close(1000, 'view closed');
            mine.session = new TerminalSession(socket, size, {
              screen: (screen) => {
                if (current.current !== mine) return;
                if (!mine.ended) setStatus({ kind: 'open' });
                draw(screen);
              },
              exit: (code, beforeFirstFrame) => end(exitMessage(code, beforeFirstFrame)),
              closed: (code, reason) => end(closeMessage(code, reason) ?? 'The terminal was closed.'),
            });
          },
          (error: unknown) => end(`Could not open the terminal: ${errorText(error)}`),
        );
      },
      input: (data) => current.current?.session?.input(data),
      resize: (size) => current.current?.session?.resize(size),
    }),
    // generation: a reconnect gives the new view a new feed
    [api, repo, name, generation],
  );

  return { status, feed };
}
