// The actions on one workspace, shared by the list and the detail view: activate or deactivate, open its
// terminal, delete (after a confirmation naming it). Each control's accessible name carries the workspace
// ("Activate demo/x"), unique in a list of them. Errors are the bridge's messages.
import type { BridgeWorkspaceSummary } from '../../../protocol/bridge.js';
import { useAction } from '../hooks/use-action.js';
import { useApi } from '../state/session.js';
import { ConfirmButton } from './confirm-button.js';
import { ErrorMessage } from './error-message.js';
import { Link } from './link.js';
import { Text } from './text.js';

export function WorkspaceActions({
  workspace,
  onChanged,
}: {
  workspace: Pick<BridgeWorkspaceSummary, 'repoName' | 'name' | 'active'>;
  onChanged?: (what: 'activated' | 'deactivated' | 'deleted') => void;
}) {
  const api = useApi();
  const action = useAction();
  const { repoName: repo, name } = workspace;
  const key = `${repo}/${name}`;
  return (
    <span className="actions">
      {workspace.active ? (
        <>
          <Link to={{ page: 'terminal', repo, name }} className="button" label={`Terminal ${key}`}>
            Terminal
          </Link>
          <button
            type="button"
            disabled={action.pending}
            aria-label={`Deactivate ${key}`}
            onClick={() =>
              void action.run(() => api.deactivate(repo, name)).then((ok) => ok && onChanged?.('deactivated'))
            }
          >
            Deactivate
          </button>
        </>
      ) : (
        <button
          type="button"
          disabled={action.pending}
          aria-label={`Activate ${key}`}
          onClick={() => void action.run(() => api.activate(repo, name)).then((ok) => ok && onChanged?.('activated'))}
        >
          Activate
        </button>
      )}
      <ConfirmButton
        label="Delete"
        target={key}
        disabled={action.pending}
        question={
          <>
            Delete <Text value={`${repo}/${name}`} /> and its directory?
          </>
        }
        onConfirm={() =>
          void action.run(() => api.deleteWorkspace(repo, name)).then((ok) => ok && onChanged?.('deleted'))
        }
      />
      <ErrorMessage error={action.error} />
    </span>
  );
}
