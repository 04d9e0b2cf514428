// Ships: the roster with online/offline and each ship's CPU, memory and load as bars (issue #31), re-read
// every few seconds while the page is visible (TanStack Query pauses the poll in a hidden tab); an offline
// ship is shown as such, greyed, with no bars. For admins the New Ship form (spec "Ship/bridge token pair"
// rule 4: optional Ship token and Bridge token, Generate, per-field Copy, blank = no credentials) and
// removal behind a confirmation. Members see the roster only; a 403 still shows the bridge's message.
import { useState, type FormEvent } from 'react';
import { ConfirmButton } from '../components/confirm-button.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorMessage } from '../components/error-message.js';
import { PageTitle } from '../components/page-title.js';
import { ResourceCells } from '../components/resource-bars.js';
import { Text } from '../components/text.js';
import { useAction } from '../hooks/use-action.js';
import { RESOURCES_POLL_MS, useResources, useShips } from '../hooks/use-fleet.js';
import { generateToken } from '../lib/token.js';
import { useApi, useViewer } from '../state/session.js';

export function ShipsPage() {
  const api = useApi();
  const ships = useShips(RESOURCES_POLL_MS);
  const resources = useResources(RESOURCES_POLL_MS);
  const { isAdmin } = useViewer();
  const removing = useAction();
  const reload = () => {
    ships.reload();
    resources.reload();
  };
  return (
    <section aria-label="ships">
      <header className="page-header">
        <PageTitle>Ships</PageTitle>
        <span className="muted">refreshed every {RESOURCES_POLL_MS / 1000} s</span>
      </header>
      <ErrorMessage error={ships.error ?? resources.error} />
      <table className="ships">
        <thead>
          <tr>
            <th>Name</th>
            <th>URL</th>
            <th>Status</th>
            <th>CPU</th>
            <th>Memory</th>
            <th>Load (1, 5, 15 min)</th>
            {isAdmin && <th>Actions</th>}
          </tr>
        </thead>
        <tbody>
          {(ships.data ?? []).map((ship) => {
            const entry = resources.data?.find((candidate) => candidate.ship === ship.name);
            // The poll of /system-resources may be the fresher of the two answers.
            const status = entry?.status ?? ship.status;
            return (
              <tr key={ship.name} data-ship={ship.name} className={status}>
                <td>
                  <Text value={ship.name} />
                </td>
                <td>
                  <Text value={ship.url} />
                </td>
                <td className={`status ${status}`}>{status}</td>
                <ResourceCells ship={ship.name} entry={entry} offline={status === 'offline'} />
                {isAdmin && (
                  <td>
                    <ConfirmButton
                      label="Remove"
                      target={`ship ${ship.name}`}
                      question={
                        <>
                          Remove ship <Text value={ship.name} />? Its workspaces stay on the host.
                        </>
                      }
                      onConfirm={() => void removing.run(() => api.removeShip(ship.name)).then(reload)}
                    />
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      <ErrorMessage error={removing.error} />
      {isAdmin && <NewShipForm onRegistered={reload} />}
    </section>
  );
}

function TokenField({
  label,
  name,
  value,
  onChange,
}: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="token-field">
      <label>
        {label}
        <input
          name={name}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          className="mono"
        />
      </label>
      <button type="button" onClick={() => onChange(generateToken())} aria-label={`Generate ${label}`}>
        Generate
      </button>
      <CopyButton value={value} label={`Copy ${label}`} />
    </div>
  );
}

function NewShipForm({ onRegistered }: { onRegistered: () => void }) {
  const api = useApi();
  const [url, setUrl] = useState('');
  const [shipToken, setShipToken] = useState('');
  const [bridgeToken, setBridgeToken] = useState('');
  const [registered, setRegistered] = useState<string | null>(null);
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setRegistered(null);
    const request = {
      url,
      ...(shipToken !== '' ? { shipToken } : {}),
      ...(bridgeToken !== '' ? { bridgeToken } : {}),
    };
    void action.run(async () => {
      const ship = await api.registerShip(request);
      setRegistered(`Registered ship ${ship.name} (${ship.status}).`);
      setUrl('');
      setShipToken('');
      setBridgeToken('');
      onRegistered();
    });
  };
  return (
    <form onSubmit={submit} className="stacked new-ship" aria-label="new ship">
      <h2>New ship</h2>
      <label>
        URL
        <input
          name="url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="http://host:4700"
          required
        />
      </label>
      <TokenField label="Ship token" name="shipToken" value={shipToken} onChange={setShipToken} />
      <TokenField label="Bridge token" name="bridgeToken" value={bridgeToken} onChange={setBridgeToken} />
      <p className="muted">
        Give the ship both tokens (as SVC_SHIP_TOKEN and SVC_BRIDGE_TOKEN) before registering it. Copy the ship token
        now: the bridge stores only its hash, so it cannot be shown again. Leave both blank to register a ship without
        credentials.
      </p>
      <button type="submit" disabled={action.pending}>
        {action.pending ? 'Registering…' : 'Register'}
      </button>
      {registered && (
        <p className="notice" role="status">
          <Text value={registered} />
        </p>
      )}
      <ErrorMessage error={action.error} />
    </form>
  );
}
