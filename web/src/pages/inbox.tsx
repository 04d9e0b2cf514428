// The home page (issue #28): every workspace that needs a human, most urgent first (state/attention.ts),
// each saying why, with what a supervisor decides on (ship, branch, model and harness, how long it has
// waited, its issue and pull request, its diff counts) and, for a question, the answer box. `j`/`k` move
// through the entries, `n` jumps to the next question. The full list is one click away (Workspaces).
import { useEffect, useRef, useState } from 'react';
import { Composer } from '../components/composer.js';
import { ExternalLink } from '../components/external-link.js';
import { Link } from '../components/link.js';
import { LiveIndicator } from '../components/live-indicator.js';
import { Text } from '../components/text.js';
import { useAttention } from '../hooks/use-attention.js';
import { useNow } from '../hooks/use-now.js';
import { useWorkspaceStatus } from '../hooks/use-workspace.js';
import { elapsed } from '../lib/elapsed.js';
import { DISMISSIBLE, type AttentionEntry, type AttentionReason } from '../state/attention.js';
import { useNotificationsMuted } from '../state/attention-preferences.js';
import { useLiveFleet } from '../state/live-fleet.js';
import { useViewer } from '../state/session.js';
import { PageTitle } from '../components/page-title.js';

const REASON_LABEL: Record<AttentionReason, string> = {
  awaiting: 'asks',
  stale: 'stale',
  exited: 'session ended',
  finished: 'finished',
};

export function InboxPage() {
  const { entries, synced, dismiss } = useAttention();
  const { problem } = useLiveFleet();
  const [selected, setSelected] = useState(0);
  const items = useRef<(HTMLLIElement | null)[]>([]);
  const now = useNow();
  const current = Math.min(selected, Math.max(0, entries.length - 1));

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      let next: number | null = null;
      if (event.key === 'j') next = Math.min(current + 1, entries.length - 1);
      else if (event.key === 'k') next = Math.max(current - 1, 0);
      else if (event.key === 'n') {
        const after = [...entries.slice(current + 1), ...entries.slice(0, current + 1)].find(
          (entry) => entry.reason === 'awaiting',
        );
        if (after) next = entries.indexOf(after);
      }
      if (next === null || next < 0) return;
      event.preventDefault();
      setSelected(next);
      items.current[next]?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [entries, current]);

  return (
    <section aria-label="inbox">
      <header className="page-header">
        <PageTitle>Needs you{entries.length > 0 ? ` (${entries.length})` : ''}</PageTitle>
        <LiveIndicator />
        <span className="spacer" />
        <NotificationControl />
      </header>
      {problem && <p className="notice">{problem}</p>}
      {!synced ? (
        <p className="muted">Loading…</p>
      ) : entries.length === 0 ? (
        <p className="muted empty-inbox">
          No agent needs you. <Link to={{ page: 'workspaces' }}>All workspaces</Link>
        </p>
      ) : (
        <>
          <p className="muted keys-hint">
            <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>n</kbd> next question
          </p>
          <ol className="inbox">
            {entries.map((entry, index) => (
              <li
                key={entry.key}
                ref={(element) => {
                  items.current[index] = element;
                }}
                tabIndex={-1}
                data-key={entry.key}
                aria-current={index === current ? 'true' : undefined}
                className={`attention reason-${entry.reason}${index === current ? ' selected' : ''}`}
                onFocus={() => setSelected(index)}
              >
                <AttentionItem entry={entry} now={now} onDismiss={() => dismiss(entry)} />
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function AttentionItem({ entry, now, onDismiss }: { entry: AttentionEntry; now: number; onDismiss(): void }) {
  const { workspace, reason } = entry;
  const agent = workspace.agent;
  const ephemeral = workspace.ephemeral;
  return (
    <article aria-label={`${entry.key} ${REASON_LABEL[reason]}`}>
      <header className="attention-head">
        <span className={`badge reason ${reason}`}>{REASON_LABEL[reason]}</span>
        <Link to={{ page: 'workspace', repo: workspace.repoName, name: workspace.name }} className="workspace-name">
          <Text value={workspace.repoName} />/<Text value={workspace.name} />
        </Link>
        <span
          className="waited"
          title={entry.atLeast ? `already so when this page connected (${entry.since})` : entry.since}
        >
          {entry.atLeast ? 'for at least ' : 'for '}
          {elapsed(entry.since, now)}
        </span>
      </header>
      {agent && (reason === 'awaiting' || reason === 'stale' || reason === 'finished') && (
        <p className={reason === 'awaiting' ? 'question' : 'description'}>
          <Text value={agent.description} multiline />
        </p>
      )}
      {reason === 'exited' && <p className="description">The session ended on its own (the shell exited).</p>}
      <p className="attention-facts muted">
        <span>
          ship <Text value={workspace.ship} />
        </span>
        <span>
          branch <Text value={workspace.branch} />
        </span>
        {agent && (
          <span>
            <Text value={agent.model} /> · <Text value={agent.harness} />
          </span>
        )}
        {workspace.active && <DiffCounts repo={workspace.repoName} name={workspace.name} />}
        {ephemeral && <span>issue #{ephemeral.issueNumber}</span>}
        {ephemeral?.pullRequest && (
          <span>
            PR <ExternalLink url={ephemeral.pullRequest.url} label={`#${ephemeral.pullRequest.number}`} />
          </span>
        )}
        {agent?.link && (
          <span>
            <ExternalLink url={agent.link} label="link" />
          </span>
        )}
      </p>
      {reason === 'awaiting' && <Composer repo={workspace.repoName} name={workspace.name} />}
      <p className="actions">
        <Link to={{ page: 'workspace', repo: workspace.repoName, name: workspace.name }} label={`Review ${entry.key}`}>
          Review
        </Link>
        {workspace.active && (
          <Link
            to={{ page: 'terminal', repo: workspace.repoName, name: workspace.name }}
            label={`Terminal ${entry.key}`}
          >
            Terminal
          </Link>
        )}
        {DISMISSIBLE.has(reason) && (
          <button type="button" onClick={onDismiss} aria-label={`Dismiss ${entry.key}`}>
            Dismiss
          </button>
        )}
      </p>
    </article>
  );
}

function DiffCounts({ repo, name }: { repo: string; name: string }) {
  const status = useWorkspaceStatus(repo, name);
  const data = status.data;
  if (data?.state !== 'active') return null;
  return (
    <span data-testid="diff-counts">
      changes <span className="added">+{data.diff.added}</span> <span className="removed">−{data.diff.removed}</span>
      {data.diff.commits > 0 ? `, ${data.diff.commits} commit${data.diff.commits === 1 ? '' : 's'}` : ''}
    </span>
  );
}

function NotificationControl() {
  const { user } = useViewer();
  const { muted, setMuted } = useNotificationsMuted(user?.username ?? '');
  const [permission, setPermission] = useState(() =>
    typeof Notification === 'undefined' ? 'unsupported' : Notification.permission,
  );
  if (permission === 'unsupported') return null;
  if (permission === 'denied') return <span className="muted">Notifications are blocked in this browser</span>;
  if (permission === 'default') {
    return (
      <button type="button" onClick={() => void Notification.requestPermission().then(setPermission)}>
        Notify me when an agent asks
      </button>
    );
  }
  return (
    <label className="inline">
      <input type="checkbox" name="mute" checked={muted} onChange={(event) => setMuted(event.target.checked)} /> mute
      notifications
    </label>
  );
}

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))
  );
}
