// A workspace's terminal: checks the workspace is active (an inactive one has no session to attach to),
// then shows the terminal view and what its connection is doing: connected, reconnecting by itself after a
// drop (keystrokes kept meanwhile, and a word when that queue is full), open elsewhere (explained, with a
// way to take over once the other viewer has closed), or ended (exit code, close reason) with a way to
// reconnect. The status is live (state/live-fleet.tsx invalidates it on each change).
import { useEffect, useState } from 'react';
import { ErrorMessage } from '../components/error-message.js';
import { Link } from '../components/link.js';
import { Text } from '../components/text.js';
import { useAction } from '../hooks/use-action.js';
import { useTerminal, type TerminalStatus } from '../hooks/use-terminal.js';
import { useWorkspaceStatus } from '../hooks/use-workspace.js';
import { useApi } from '../state/session.js';
import { OPEN_ELSEWHERE, OPEN_ELSEWHERE_HELP, QUEUE_FULL } from '../terminal/terminal-messages.js';
import { TerminalView } from '../terminal/terminal-view.js';

function statusLine(status: TerminalStatus): { text: string; action?: string } {
  const state = status.state;
  switch (state.kind) {
    case 'connecting':
      return { text: 'Connecting…' };
    case 'open':
      return { text: 'Connected.' };
    case 'reconnecting':
      return {
        text: `Connection lost: reconnecting… (attempt ${state.attempt}; what you type is sent when it is back)`,
        action: 'Reconnect now',
      };
    case 'elsewhere':
      return { text: `${OPEN_ELSEWHERE} ${OPEN_ELSEWHERE_HELP}`, action: 'Take over' };
    case 'ended':
      return { text: state.message, action: 'Reconnect' };
  }
}

export function TerminalPage({ repo, name }: { repo: string; name: string }) {
  const api = useApi();
  const status = useWorkspaceStatus(repo, name);
  const activating = useAction();
  const terminal = useTerminal(repo, name);
  const active = status.data?.state === 'active';
  // Once shown, the terminal stays: when its shell exits the workspace turns inactive (live), and the exit
  // code is what the user needs to read next to the way to activate it again.
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (active) setShown(true);
  }, [active]);
  const line = statusLine(terminal.status);

  return (
    <section aria-label="terminal" className="terminal-page">
      <p>
        <Link to={{ page: 'workspace', repo, name }}>
          ← <Text value={`${repo}/${name}`} />
        </Link>
      </p>
      <ErrorMessage error={status.error} />
      {status.data && !active && (
        <p className="notice">
          The workspace is not active.{' '}
          <button
            type="button"
            disabled={activating.pending}
            onClick={() => void activating.run(() => api.activate(repo, name)).then((ok) => ok && status.reload())}
          >
            Activate
          </button>
          <ErrorMessage error={activating.error} />
        </p>
      )}
      {(active || shown) && (
        <>
          <p className="terminal-status" data-testid="terminal-status" role="status">
            {line.text}
            {line.action && (
              <>
                {' '}
                <button type="button" onClick={terminal.connectNow}>
                  {line.action}
                </button>
              </>
            )}
          </p>
          {terminal.status.queueFull && (
            <p className="notice" role="alert" data-testid="terminal-queue-full">
              {QUEUE_FULL}
            </p>
          )}
          <TerminalView feed={terminal.feed} />
        </>
      )}
    </section>
  );
}
