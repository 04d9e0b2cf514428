// An armory push cut short because its ship was removed meanwhile is no ship failing (spec "Armory push": a
// failing ship is logged and skipped). `npx svc bridge` at debug level and `npx svc ship` as processes, the
// ship registered through a proxy; with the link blackholed an armory change sends a push that cannot
// arrive, and `DELETE /ships/:name` lands while it is held. The bridge says the push was abandoned, at
// debug, and warns of no failure; both processes are then stopped as a supervisor does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { putArmoryFile } from '../helpers/armory.js';
import { killFleetTmux } from '../helpers/cli.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { bridgeUrlIn, startNpx, type NpxProcess } from '../helpers/npx.js';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';

let root: string;
let bridge: NpxProcess | undefined;
let ship: NpxProcess | undefined;
let proxy: FaultProxy | undefined;

beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  await bridge?.terminateThenKill();
  await ship?.terminateThenKill();
  await proxy?.close();
  await killFleetTmux(join(root, 'fleet'));
  await removeRoot(root);
});

it('a push held in flight when its ship is removed is abandoned at debug, never warned as failed', async () => {
  const data = join(root, 'bridge');
  bridge = startNpx(['bridge', '--port', '0', '--insecure-no-auth', '--data-directory', data], {
    SVC_LOG_LEVEL: 'debug',
  });
  ship = startNpx(['ship', '--port', '0', '--name', 'held', '--fleet-directory', join(root, 'fleet')]);
  await bridge.waitFor('bridge listening on');
  await ship.waitFor('ship listening');
  const bridgeUrl = bridgeUrlIn(bridge.output());
  const shipPort = (JSON.parse(readFileSync(join(root, 'fleet', 'atlas.json'), 'utf8')) as { port: number }).port;
  proxy = await FaultProxy.start(shipPort);

  expect((await call(bridgeUrl, 'POST', '/ships', { url: proxy.url })).status).toBe(201);
  await bridge.waitFor('"msg":"armory pushed"');

  proxy.blackhole();
  putArmoryFile(join(data, 'armory'), 'skills/held/SKILL.md', '# held\n');
  await expect.poll(() => proxy!.heldText().includes('POST /armory/sync'), { timeout: 15_000 }).toBe(true);
  expect(await call(bridgeUrl, 'DELETE', '/ships/held')).toMatchObject({ status: 200, body: { ok: true } });

  const abandoned = JSON.parse(await bridge.waitFor(/^.*armory push abandoned.*$/m)) as Record<string, unknown>;
  expect(abandoned).toMatchObject({
    level: 20,
    ship: 'held',
    msg: 'armory push abandoned: the ship was removed or the bridge is stopping',
  });
  expect(bridge.output()).not.toContain('armory push failed');
}, 90_000);
