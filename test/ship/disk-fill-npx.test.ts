// The disk guard of issue #30 through a real `npx svc ship --max-disk-fill 0.5`: its fleet directory sits on a
// private 4 MiB tmpfs (a small real volume, no injected statfs), and GET /readyz, without a credential, turns
// 503 naming `fleet-volume` and the fill once a file takes the volume past half, and 200 again once it is
// removed. A fill given as a percentage is refused at start. Needs root to mount tmpfs (`.ci/run` has it);
// elsewhere the suite is skipped with a notice.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';
import { runNpx, startNpx, type NpxProcess } from '../helpers/npx.js';
import { freePort } from '../helpers/ports.js';
import { until } from '../helpers/poll.js';
import { killFleetTmux } from '../helpers/cli.js';
import { tmpfsMountable } from '../helpers/tmpfs.js';

const canMount = tmpfsMountable('disk-fill');

const TOKEN = 'disk-fill-bridge-token-0123456789abcdef';

describe.skipIf(!canMount)('a ship whose fleet volume fills up', () => {
  let root: string;
  let volume: string;
  let fleet: string;
  let ship: NpxProcess;
  let url: string;

  beforeAll(async () => {
    root = await makeTempRoot();
    volume = join(root, 'volume');
    mkdirSync(volume);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', volume]);
    fleet = join(volume, 'fleet');
    const port = await freePort();
    url = `http://localhost:${port}`;
    ship = startNpx(
      ['ship', '--port', String(port), '--name', 'filling', '--fleet-directory', fleet, '--max-disk-fill', '0.5'],
      { SVC_BRIDGE_TOKEN: TOKEN, HOME: root },
    );
    await ship.waitFor('ship listening', 60_000);
  }, 90_000);

  afterAll(async () => {
    await ship?.terminateThenKill();
    if (fleet) await killFleetTmux(fleet);
    if (volume) execFileSync('umount', ['-l', volume], { stdio: 'ignore' });
    if (root) await removeRoot(root);
  });

  it('is ready while the volume is below the fill level', async () => {
    expect(await call(url, 'GET', '/readyz')).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('fails /readyz naming the fleet volume above it, and is ready again once space is freed', async () => {
    const filler = join(volume, 'filler.bin');
    writeFileSync(filler, Buffer.alloc(3 * 1024 * 1024, 1));
    const full = await until(async () => {
      const reply = await call(url, 'GET', '/readyz');
      return reply.status === 503 ? reply : null;
    }, '/readyz to fail on a 75% full volume');
    expect(full.body).toEqual({
      ok: false,
      failing: 'fleet-volume',
      error: expect.stringMatching(/^the fleet volume is 7\d% full, over the ship's limit of 50% \(--max-disk-fill\)$/),
    });
    // The routes behind the token keep serving: unready is for the kubelet and the operator, not a shutdown.
    expect((await call(url, 'GET', '/workspaces', undefined, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);

    rmSync(filler);
    await until(
      async () => (await call(url, 'GET', '/readyz')).status === 200,
      '/readyz to pass once the filler is gone',
    );
  }, 30_000);

  it('refuses a fill level given as a percentage at start', async () => {
    const run = await runNpx(
      ['ship', '--port', String(await freePort()), '--fleet-directory', join(root, 'refused'), '--max-disk-fill', '90'],
      { HOME: root },
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      "option '--max-disk-fill <fraction>' argument '90' is invalid. must be a fraction above 0 and at most 1 (e.g. 0.9)",
    );
  }, 60_000);
});
