// `svc client sweep`: one ephemeral cleanup pass now (spec "POST /workspaces/sweep"), its five counters as
// a one-row table, or the body with `--json`. A pass already running is shared, so the counters may be
// that pass's. Through the bridge only: ships know nothing of ephemeral records.
import { Command } from 'commander';
import type { SweepCounters } from '../../protocol/index.js';
import type { BridgeClient } from '../auth/bridge-client.js';
import { printJson, withSpinner } from '../output.js';
import { formatTable } from '../table.js';

export function sweepCommand(bridge: () => BridgeClient, json: () => boolean): Command {
  return new Command('sweep')
    .description(
      'run one cleanup pass over the ephemeral workspaces now: delete those whose pull request is merged or closed (or whose issue closed without one)',
    )
    .action(async () => {
      const counters = await withSpinner(
        'sweeping ephemeral workspaces',
        bridge().call<SweepCounters>('POST', '/workspaces/sweep'),
      );
      if (json()) return printJson(counters);
      const { checked, destroyed, blocked, skipped, forgotten } = counters;
      process.stdout.write(
        formatTable(
          ['CHECKED', 'DESTROYED', 'BLOCKED', 'SKIPPED', 'FORGOTTEN'],
          [[checked, destroyed, blocked, skipped, forgotten]],
        ),
      );
    });
}
