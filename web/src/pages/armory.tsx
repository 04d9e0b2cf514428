// The armory: the bridge's manifest (revision, entries, dotfile map) and each ship's sync state.
import { ErrorMessage } from '../components/error-message.js';
import { Text } from '../components/text.js';
import { useArmory } from '../hooks/use-fleet.js';

export function ArmoryPage() {
  const armory = useArmory();
  const manifest = armory.data?.manifest;
  return (
    <section aria-label="armory">
      <header className="page-header">
        <h2>Armory</h2>
        <button type="button" onClick={armory.reload}>
          Refresh
        </button>
      </header>
      <ErrorMessage error={armory.error} />
      {manifest && (
        <>
          <p>
            Revision <span className="mono" data-testid="revision">{manifest.revision}</span>, {manifest.entries.length} file
            {manifest.entries.length === 1 ? '' : 's'}
          </p>
          <table className="armory">
            <thead>
              <tr>
                <th>Path</th>
                <th>Section</th>
                <th>Size</th>
                <th>Mode</th>
              </tr>
            </thead>
            <tbody>
              {manifest.entries.map((entry) => (
                <tr key={entry.path}>
                  <td>
                    <Text value={entry.path} />
                  </td>
                  <td>{entry.section}</td>
                  <td>{entry.size}</td>
                  <td className="mono">{entry.mode.toString(8)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {Object.keys(manifest.dotfileMap).length > 0 && (
            <>
              <h3>Dotfiles</h3>
              <ul>
                {Object.entries(manifest.dotfileMap).map(([source, destination]) => (
                  <li key={source}>
                    <Text value={source} /> → <Text value={destination} />
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
      <h3>Ships</h3>
      <table className="armory-ships">
        <thead>
          <tr>
            <th>Ship</th>
            <th>Status</th>
            <th>Revision</th>
            <th>Synced</th>
            <th>Files</th>
            <th>Last error</th>
          </tr>
        </thead>
        <tbody>
          {(armory.data?.ships ?? []).map((ship) => (
            <tr key={ship.ship} data-ship={ship.ship}>
              <td>
                <Text value={ship.ship} />
              </td>
              <td className={`status ${ship.status}`}>{ship.status}</td>
              {ship.state ? (
                <>
                  <td className="mono">
                    {ship.state.revision === null ? 'never synced' : ship.state.revision.slice(0, 12)}
                    {ship.state.revision !== null && manifest && ship.state.revision === manifest.revision ? ' (current)' : ''}
                  </td>
                  <td>{ship.state.syncedAt ?? '—'}</td>
                  <td>{ship.state.fileCount}</td>
                  <td>{ship.state.lastError ? <Text value={ship.state.lastError} /> : '—'}</td>
                </>
              ) : (
                <td colSpan={4} className="muted">
                  no state ({ship.status === 'offline' ? 'offline' : 'the ship did not answer'})
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
