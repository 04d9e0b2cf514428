// The bridge's readiness checks (GET /readyz, issue #20), in order: the store answers a query, and every
// migration this build knows is recorded in it. Each probe runs them afresh (at most one run at a time:
// protocol/probes.ts), so a store that stops answering, or one swapped for an older copy, turns the bridge
// unready with the check named.
import type { ReadinessCheck } from '../../protocol/index.js';
import type { Database } from './database.js';
import { missingMigrations } from './migrations.js';

export function storeReadiness(db: Database): ReadinessCheck[] {
  return [
    { name: 'store', run: async () => void (await db.query('SELECT 1')) },
    {
      name: 'migrations',
      run: async () => {
        const missing = await missingMigrations(db);
        if (missing.length > 0)
          throw new Error(
            `not applied: ${missing.map((migration) => `${migration.version} (${migration.name})`).join(', ')}`,
          );
      },
    },
  ];
}
