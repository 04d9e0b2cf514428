// The ship's readiness checks (GET /readyz, issue #20), in order:
//   tmux — the ship's private tmux server answers (`has-session` on its keeper session). A server that died is
//          started again by the session registry; one whose socket was removed (a /tmp cleaner) answers no
//          client until it gets SIGUSR1, and the ship is unready until then;
//   fleet-directory — a file can be created and removed in the fleet directory's state directory (the same
//          filesystem as the workspaces), and the fleet directory itself is writable: a read-only or full
//          filesystem, or a fleet directory replaced by something else, fails it;
//   fleet-volume — with `--max-disk-fill`, the fleet's volume is no fuller than that (health/disk-fill.ts), so
//          a nearly full node takes its ship out of rotation before the kubelet starts evicting pods.
// Nothing here starts, repairs or changes anything: a probe only looks.
import { constants } from 'node:fs';
import { access, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReadinessCheck } from '../../protocol/index.js';
import { KEEPER_SESSION, type Tmux } from '../sessions/tmux.js';
import { SHIP_STATE_DIR } from '../workspaces/fleet.js';
import { assertVolumeBelow } from './disk-fill.js';
import { messageOf } from '../../protocol/index.js';

export function shipReadiness(tmux: Tmux, fleetDirectory: string, maxDiskFill?: number): ReadinessCheck[] {
  const marker = join(fleetDirectory, SHIP_STATE_DIR, 'readyz');
  const checks: ReadinessCheck[] = [
    {
      name: 'tmux',
      run: async () => {
        const answer = await tmux.run(['has-session', '-t', `=${KEEPER_SESSION}`]);
        if (answer.code !== 0)
          throw new Error(`the tmux server does not answer: ${answer.stderr.trim() || `exit code ${answer.code}`}`);
      },
    },
    {
      name: 'fleet-directory',
      run: async () => {
        try {
          await access(fleetDirectory, constants.W_OK);
          await writeFile(marker, '');
          await rm(marker, { force: true });
        } catch (error) {
          // The code alone: the answer goes to callers without a credential, the path is the ship's business.
          throw new Error(
            `the fleet directory is not writable (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})`,
          );
        }
      },
    },
  ];
  if (maxDiskFill !== undefined)
    checks.push({ name: 'fleet-volume', run: () => assertVolumeBelow(fleetDirectory, maxDiskFill) });
  return checks;
}
