// The armory (issue #31): each ship's standing with the bridge's manifest (in sync / behind / never synced /
// error / unknown, state/armory-sync.ts) with its last install's conflicts and warnings and its lastError in
// full; a file browser over the manifest, grouped by section and filterable, with a viewer (GET
// /armory/file: UTF-8 text as text, anything else as its size and hash); and the dotfile map.
import { useMemo, useState } from 'react';
import type { ArmoryEntry, ArmoryManifest, ShipArmoryState } from '../../../protocol/armory.js';
import { ARMORY_SECTIONS } from '../../../protocol/armory.js';
import { ErrorMessage } from '../components/error-message.js';
import { PageTitle } from '../components/page-title.js';
import { Text } from '../components/text.js';
import { useArmory, useArmoryFile } from '../hooks/use-fleet.js';
import { armorySyncLabel } from '../state/armory-sync.js';

export function ArmoryPage() {
  const armory = useArmory();
  const manifest = armory.data?.manifest;
  return (
    <section aria-label="armory">
      <header className="page-header">
        <PageTitle>Armory</PageTitle>
        <button type="button" onClick={armory.reload} disabled={armory.loading}>
          Refresh
        </button>
      </header>
      <ErrorMessage error={armory.error} />
      {manifest && (
        <p>
          Revision{' '}
          <span className="mono" data-testid="revision">
            {manifest.revision}
          </span>
          , {manifest.entries.length} file
          {manifest.entries.length === 1 ? '' : 's'}
        </p>
      )}
      <ShipStates ships={armory.data?.ships ?? []} revision={manifest?.revision} />
      {manifest && <FileBrowser manifest={manifest} />}
      {manifest && <DotfileMap map={manifest.dotfileMap} />}
    </section>
  );
}

function ShipStates({ ships, revision }: { ships: ShipArmoryState[]; revision: string | undefined }) {
  return (
    <>
      <h2>Ships</h2>
      <table className="armory-ships">
        <thead>
          <tr>
            <th>Ship</th>
            <th>Sync</th>
            <th>Revision</th>
            <th>Synced</th>
            <th>Files</th>
            <th>Details</th>
          </tr>
        </thead>
        <tbody>
          {ships.map((ship) => {
            const label = armorySyncLabel(ship.state, revision);
            const state = ship.state;
            const install = state?.install;
            return (
              <tr key={ship.ship} data-ship={ship.ship}>
                <td>
                  <Text value={ship.ship} /> <span className={`status ${ship.status}`}>({ship.status})</span>
                </td>
                <td>
                  <span className={`badge sync-${label.replace(' ', '-')}`} data-testid="sync">
                    {label}
                  </span>
                </td>
                <td className="mono" data-label="Revision">
                  {state?.revision ? state.revision.slice(0, 12) : '—'}
                </td>
                <td data-label="Synced">{state?.syncedAt ?? '—'}</td>
                <td data-label="Files">{state ? state.fileCount : '—'}</td>
                <td className="sync-details">
                  {!state && (
                    <span className="muted">
                      {ship.status === 'offline' ? 'the ship is offline' : 'the ship did not answer'}
                    </span>
                  )}
                  {state?.lastError && (
                    <pre className="last-error" data-testid="last-error">
                      <Text value={state.lastError} multiline />
                    </pre>
                  )}
                  {install && (
                    <>
                      <p className="muted">
                        installed {install.skillCount} skill{install.skillCount === 1 ? '' : 's'}, {install.pluginCount}{' '}
                        plugin
                        {install.pluginCount === 1 ? '' : 's'}, {install.dotfileCount} dotfile
                        {install.dotfileCount === 1 ? '' : 's'}
                        {install.removedCount > 0 ? `, removed ${install.removedCount}` : ''}
                      </p>
                      <Problems title="Conflicts" items={install.conflicts} />
                      <Problems title="Warnings" items={install.warnings} />
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

function Problems({ title, items }: { title: string; items: string[] }) {
  if (items.length === 0) return null;
  return (
    <div className={`problems ${title.toLowerCase()}`}>
      <strong>{title}</strong>
      <ul>
        {items.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: messages in the server's order, rebuilt whole, may repeat
          <li key={index}>
            <Text value={item} multiline />
          </li>
        ))}
      </ul>
    </div>
  );
}

function FileBrowser({ manifest }: { manifest: ArmoryManifest }) {
  const [filter, setFilter] = useState('');
  const [selected, setSelected] = useState('');
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return manifest.entries.filter((entry) => needle === '' || entry.path.toLowerCase().includes(needle));
  }, [manifest.entries, filter]);
  const entry = manifest.entries.find((candidate) => candidate.path === selected);
  return (
    <section aria-label="files" className="armory-files">
      <h2>Files</h2>
      <label className="inline">
        Filter files
        <input
          name="file-filter"
          type="search"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          placeholder="path"
        />
      </label>
      <div className="file-browser">
        <nav aria-label="armory files" className="file-tree">
          {ARMORY_SECTIONS.map((section) => {
            const files = shown.filter((candidate) => candidate.section === section);
            if (files.length === 0) return null;
            return (
              <div key={section}>
                <h3>{section}</h3>
                <ul>
                  {files.map((file) => (
                    <li key={file.path}>
                      <button
                        type="button"
                        className="file-button"
                        aria-current={file.path === selected ? 'true' : undefined}
                        onClick={() => setSelected(file.path)}
                      >
                        <Text value={file.path.slice(section.length + 1)} />
                      </button>
                    </li>
                  ))}
                </ul>
              </div>
            );
          })}
          {shown.length === 0 && <p className="muted">No file matches.</p>}
        </nav>
        <section className="file-viewer" aria-label="file viewer">
          {entry ? <FileView entry={entry} /> : <p className="muted">Choose a file to see it.</p>}
        </section>
      </div>
    </section>
  );
}

function FileView({ entry }: { entry: ArmoryEntry }) {
  const file = useArmoryFile(entry.path);
  return (
    <>
      <h3 className="mono">
        <Text value={entry.path} />
      </h3>
      <p className="muted">
        {entry.size} bytes, mode {entry.mode.toString(8)}, sha256 <span className="mono">{entry.sha256}</span>
      </p>
      <ErrorMessage error={file.error} />
      {file.data &&
        (file.data.encoding === 'utf8' ? (
          <pre className="file-contents" data-testid="file-contents">
            <Text value={file.data.contents} multiline />
          </pre>
        ) : (
          <p data-testid="file-binary">
            Binary file: {file.data.size} bytes, sha256 <span className="mono">{file.data.sha256}</span>
          </p>
        ))}
      {!file.data && file.loading && <p className="muted">Loading…</p>}
    </>
  );
}

function DotfileMap({ map }: { map: Record<string, string> }) {
  const entries = Object.entries(map);
  return (
    <section aria-label="dotfile map">
      <h2>Dotfile map</h2>
      {entries.length === 0 ? (
        <p className="muted">No dotfile map: dotfiles are installed under their own names.</p>
      ) : (
        <table className="dotfile-map">
          <thead>
            <tr>
              <th>Dotfile (under dotfiles/)</th>
              <th>Installed as</th>
            </tr>
          </thead>
          <tbody>
            {entries.map(([source, destination]) => (
              <tr key={source}>
                <td className="mono">
                  <Text value={source} />
                </td>
                <td className="mono" data-label="Installed as">
                  <Text value={destination} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
