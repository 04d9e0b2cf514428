// A workspace's terminal: checks the workspace is active (an inactive one has no session to attach to),
// then shows the terminal view and, when the terminal ends, why (exit code, open elsewhere, close reason)
// with a way to reconnect. The status is live (state/live-fleet.tsx invalidates it on each change).
import { useEffect, useState } from 'react';
import { ErrorMessage } from '../components/error-message.js';
import { Link } from '../components/link.js';
import { Text } from '../components/text.js';
import { useAction } from '../hooks/use-action.js';
import { useTerminal } from '../hooks/use-terminal.js';
import { useWorkspaceStatus } from '../hooks/use-workspace.js';
import { useApi } from '../state/session.js';
import { TerminalView } from '../terminal/terminal-view.js';

export function TerminalPage({ repo, name }: { repo: string; name: string }) {
  const api = useApi();
  const status = useWorkspaceStatus(repo, name);
  const activating = useAction();
  const [generation, setGeneration] = useState(0);
  const terminal = useTerminal(repo, name, generation);
  const active = status.data?.state === 'active';
  // Once shown, the terminal stays: when its shell exits the workspace turns inactive (live), and the exit
  // code is what the user needs to read next to the way to activate it again.
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (active) setShown(true);
  }, [active]);

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
          <button type="button" disabled={activating.pending} onClick={() => void activating.run(() => api.activate(repo, name)).then((ok) => ok && status.reload())}>
            Activate
          </button>
          <ErrorMessage error={activating.error} />
        </p>
      )}
      {(active || shown) && (
        <>
          <p className="terminal-status" data-testid="terminal-status" role="status">
            {terminal.status.kind === 'connecting' ? 'Connecting…' : terminal.status.kind === 'open' ? 'Connected.' : terminal.status.message}
            {terminal.status.kind === 'ended' && (
              <>
                {' '}
                <button type="button" onClick={() => setGeneration((n) => n + 1)}>
                  Reconnect
                </button>
              </>
            )}
          </p>
          <TerminalView key={generation} feed={terminal.feed} />
        </>
      )}
    </section>
  );
}
