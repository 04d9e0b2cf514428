// Resources: every ship's CPU, memory and load from GET /system-resources, as bars (components/
// resource-bars.tsx) re-read every few seconds while the page is visible; an offline ship or a failed sample
// is shown inline in its row (the bridge never fails the whole answer for one ship).
import { ErrorMessage } from '../components/error-message.js';
import { PageTitle } from '../components/page-title.js';
import { ResourceCells } from '../components/resource-bars.js';
import { Text } from '../components/text.js';
import { RESOURCES_POLL_MS, useResources } from '../hooks/use-fleet.js';

export function ResourcesPage() {
  const resources = useResources(RESOURCES_POLL_MS);
  return (
    <section aria-label="resources">
      <header className="page-header">
        <PageTitle>Resources</PageTitle>
        <span className="muted">refreshed every {RESOURCES_POLL_MS / 1000} s</span>
      </header>
      <ErrorMessage error={resources.error} />
      <table className="resources">
        <thead>
          <tr>
            <th>Ship</th>
            <th>Status</th>
            <th>CPU</th>
            <th>Memory</th>
            <th>Load (1, 5, 15 min)</th>
          </tr>
        </thead>
        <tbody>
          {(resources.data ?? []).map((entry) => (
            <tr key={entry.ship} data-ship={entry.ship} className={entry.status}>
              <td>
                <Text value={entry.ship} />
              </td>
              <td className={`status ${entry.status}`}>{entry.status}</td>
              <ResourceCells ship={entry.ship} entry={entry} />
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
