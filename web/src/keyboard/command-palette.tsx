// The command palette (Ctrl/Cmd+K, issue #31): a search field over keyboard/commands.ts in a modal, arrow
// keys and Enter to run. Pages open in place; a workspace opened for its branch or its agent gets that
// field focused (the fragment, read by pages/workspace-detail.tsx); activate and deactivate run here and
// show the bridge's message if refused; delete asks first, naming the workspace.
import { useId, useMemo, useState, type KeyboardEvent } from 'react';
import { ErrorMessage } from '../components/error-message.js';
import { Text } from '../components/text.js';
import { useAction } from '../hooks/use-action.js';
import { navigate } from '../hooks/use-route.js';
import { pathOf } from '../lib/routes.js';
import { useLiveFleet } from '../state/live-fleet.js';
import { useApi, useSession, useViewer } from '../state/session.js';
import { buildCommands, matchCommands, type Command } from './commands.js';
import { Modal } from './modal.js';

const MAX_SHOWN = 50;

export function CommandPalette({ onClose, onShortcuts }: { onClose: () => void; onShortcuts: () => void }) {
  const api = useApi();
  const { signOut } = useSession();
  const { isAdmin, authRequired } = useViewer();
  const { list } = useLiveFleet();
  const commands = useMemo(
    () => buildCommands({ isAdmin, authRequired, workspaces: list.byKey.values() }),
    [isAdmin, authRequired, list],
  );
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const [deleting, setDeleting] = useState<Command | null>(null);
  const action = useAction();
  const id = useId();
  const matches = useMemo(() => matchCommands(commands, query), [commands, query]);
  const shown = matches.slice(0, MAX_SHOWN);
  const current = Math.min(active, shown.length - 1);

  const run = (command: Command) => {
    const effect = command.effect;
    switch (effect.kind) {
      case 'go':
        onClose();
        navigate(pathOf(effect.route) + (effect.focus ? `#${effect.focus}` : ''));
        return;
      case 'activate':
      case 'deactivate':
        void action
          .run(() =>
            effect.kind === 'activate'
              ? api.activate(effect.repo, effect.name)
              : api.deactivate(effect.repo, effect.name),
          )
          .then((ok) => ok && onClose());
        return;
      case 'delete':
        setDeleting(command);
        return;
      case 'shortcuts':
        onShortcuts();
        return;
      case 'sign-out':
        onClose();
        void signOut();
        return;
    }
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setActive(Math.min(current + 1, shown.length - 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive(Math.max(current - 1, 0));
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const command = shown[current];
      if (command) run(command);
    }
  };

  // Keyed Modals: the question is a dialog of its own (opened with its Cancel focused), not the list's.
  if (deleting && deleting.effect.kind === 'delete') {
    const { repo, name } = deleting.effect;
    return (
      <Modal key="delete" title="Delete a workspace" onClose={onClose} className="palette">
        <p>
          Delete <Text value={`${repo}/${name}`} /> and its directory?
        </p>
        <p className="actions">
          <button
            type="button"
            className="danger"
            disabled={action.pending}
            aria-label={`Yes, delete ${repo}/${name}`}
            onClick={() =>
              void action
                .run(() => api.deleteWorkspace(repo, name))
                .then((ok) => {
                  if (!ok) return;
                  onClose();
                  if (window.location.pathname === pathOf({ page: 'workspace', repo, name }))
                    navigate(pathOf({ page: 'workspaces' }));
                })
            }
          >
            Yes, delete
          </button>
          <button type="button" onClick={() => setDeleting(null)} data-autofocus>
            Cancel
          </button>
        </p>
        <ErrorMessage error={action.error} />
      </Modal>
    );
  }
  return (
    <Modal key="commands" title="Command palette" onClose={onClose} className="palette">
      <input
        role="combobox"
        aria-label="Command"
        aria-expanded="true"
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        aria-activedescendant={shown[current] ? `${id}-${current}` : undefined}
        data-autofocus
        autoComplete="off"
        spellCheck={false}
        value={query}
        placeholder="Go to a page, or act on a workspace by name"
        onChange={(event) => {
          setQuery(event.target.value);
          setActive(0);
          action.clear();
        }}
        onKeyDown={onKeyDown}
      />
      {/* The ARIA combobox pattern: a ul listbox of li options, focus kept on the input (aria-activedescendant). */}
      {/* biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the combobox pattern's listbox */}
      <ul id={`${id}-list`} role="listbox" aria-label="Commands" className="palette-list">
        {shown.map((command, index) => (
          // biome-ignore lint/a11y/useFocusableInteractive: an option is active by aria-activedescendant, not focus
          // biome-ignore lint/a11y/useKeyWithClickEvents: the input's keys (arrows, Enter) run the active option
          <li
            key={command.id}
            id={`${id}-${index}`}
            // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the combobox pattern's option
            role="option"
            aria-selected={index === current}
            className={index === current ? 'active' : undefined}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => run(command)}
            onMouseMove={() => index !== current && setActive(index)}
          >
            <Text value={command.label} /> <span className="muted group">{command.group}</span>
          </li>
        ))}
      </ul>
      {matches.length === 0 && <p className="muted">No command matches.</p>}
      {matches.length > MAX_SHOWN && <p className="muted">{matches.length - MAX_SHOWN} more: type more of a name.</p>}
      {action.pending && <p className="muted">Working…</p>}
      <ErrorMessage error={action.error} />
    </Modal>
  );
}
