// Resources: every ship's CPU, memory and load from GET /system-resources; an offline ship or a failed
// sample is shown inline in its row (the bridge never fails the whole answer for one ship).
import { ErrorMessage } from '../components/error-message.js';
import { Text } from '../components/text.js';
import { useResources } from '../hooks/use-fleet.js';

const percent = (fraction: number) => `${(fraction * 100).toFixed(0)}%`;
const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

export function ResourcesPage() {
  const resources = useResources();
  return (
    <section aria-label="resources">
      <header className="page-header">
        <h2>Resources</h2>
        <button type="button" onClick={resources.reload}>
          Refresh
        </button>
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
            <tr key={entry.ship} data-ship={entry.ship}>
              <td>
                <Text value={entry.ship} />
              </td>
              <td className={`status ${entry.status}`}>{entry.status}</td>
              {entry.resources ? (
                <>
                  <td>
                    {percent(entry.resources.cpu.usage)} of {entry.resources.cpu.cores} cores
                  </td>
                  <td>
                    {gib(entry.resources.memory.used)} / {gib(entry.resources.memory.total)} ({percent(entry.resources.memory.usage)})
                  </td>
                  <td>{entry.resources.cpu.loadAverage.map((load) => load.toFixed(2)).join(', ')}</td>
                </>
              ) : (
                <td colSpan={3} className="muted">
                  {entry.error ? <Text value={`unavailable: ${entry.error}`} /> : entry.status === 'offline' ? 'offline: no data' : 'no data'}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
