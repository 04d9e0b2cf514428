// Fleet-wide reads answer from the ships as they are when the request arrives (spec: GET /workspaces
// "re-fetches /workspaces from every online ship"; GET /system-resources "fetches every ship's snapshot in
// parallel"; issue #14): a change made on a ship directly, a ship registered, failing or stopped a moment
// ago are all in the very next answer. A real bridge with a real ship, plus small fake ships speaking the
// ship's wire protocol (`/events` sync, `/workspaces`, `/system-resources`) where a ship must be slow or fail.
// The bridge is built without a socket and asked through app.inject (test/helpers/bridge-app.ts).
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShipSystemResources, SystemResources } from '../../protocol/index.js';
import { buildTestBridge, type TestBridgeApp } from '../helpers/bridge-app.js';
import { git, makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';

let root: string;
let remote: RemoteFixture;
let bridge: TestBridgeApp;
let alpha: TestShip;
/** A real snapshot (alpha's), served by the fake ships so the bridge's validation is the real one. */
let snapshot: SystemResources;
const servers: Server[] = [];

interface FakeShip {
  url: string;
  /** Answers GET /system-resources with this 500 `{error}` while set. */
  failure: string | null;
  /** Gone at once, as a killed process: every socket destroyed, the port closed. */
  kill(): void;
}

/** A fake ship named `name` whose GET /system-resources answers `snapshot` after `delayMs`. */
async function fakeShip(name: string, delayMs = 0): Promise<FakeShip> {
  const fake: FakeShip = { url: '', failure: null, kill: () => undefined };
  const server = createServer((request, response) => {
    const json = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method === 'GET' && request.url === '/workspaces') return json(200, []);
    if (request.method === 'GET' && request.url === '/system-resources') {
      setTimeout(() => (fake.failure === null ? json(200, snapshot) : json(500, { error: fake.failure })), delayMs);
      return;
    }
    json(404, { error: 'not found' });
  });
  const wss = new WebSocketServer({ server, path: '/events' });
  wss.on('connection', (socket) =>
    socket.send(JSON.stringify({ type: 'sync', ship: name, at: new Date().toISOString(), workspaces: [] })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  fake.kill = () => {
    for (const client of wss.clients) client.terminate();
    server.closeAllConnections();
    server.close();
  };
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return fake;
}

/** A request to the bridge, through app.inject. */
const bridgeCall = (method: string, path: string, body?: unknown) => bridge.inject(method, path, body);
const register = async (url: string) => expect((await bridgeCall('POST', '/ships', { url })).status).toBe(201);
const deregister = async (name: string) => expect((await bridgeCall('DELETE', `/ships/${name}`)).status).toBe(200);
const fleetResources = async () => {
  const reply = await bridgeCall('GET', '/system-resources');
  expect(reply.status).toBe(200);
  return reply.body as ShipSystemResources[];
};
const rowOf = (rows: ShipSystemResources[], ship: string) => rows.find((row) => row.ship === ship);
const listing = async () =>
  (await bridgeCall('GET', '/workspaces')).body as Array<{
    repoName: string;
    name: string;
    branch: string;
    ship: string;
  }>;

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  alpha = await startTestShip(root, { name: 'alpha', fleetDirectory: join(root, 'fleet-alpha') });
  bridge = await buildTestBridge(root, { insecureNoAuth: true, reconnect: { initialMs: 50, maxMs: 200 } });
  snapshot = (await call(alpha.url, 'GET', '/system-resources')).body;
  await register(alpha.url);
}, 60_000);
afterAll(async () => {
  await bridge?.close();
  await alpha?.stop();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  if (root) await removeRoot(root);
});

describe('fleet-wide reads see the fleet as it is when they arrive', () => {
  it('lists a change made on a ship directly in the very next listing', async () => {
    expect(await listing()).toEqual([]);
    expect(
      (await call(alpha.url, 'POST', '/workspaces', { url: remote.url, repoName: 'app', name: 'w', branch: 'main' }))
        .status,
    ).toBe(201);
    expect(await listing()).toEqual([
      { repoName: 'app', name: 'w', branch: 'main', active: false, agent: null, ship: 'alpha', ephemeral: null },
    ]);
    // Changes the ship sends no event for: only the re-fetch can show them.
    git(join(root, 'fleet-alpha', 'app', 'w'), 'switch', '--quiet', 'other');
    expect((await listing()).find((w) => w.name === 'w')?.branch).toBe('other');
    git(root, 'clone', '--quiet', remote.url, join(root, 'fleet-alpha', 'app', 'by-hand'));
    expect((await listing()).map((w) => `${w.ship}:${w.repoName}/${w.name}@${w.branch}`)).toEqual([
      'alpha:app/by-hand@main',
      'alpha:app/w@other',
    ]);
  });

  it('reads two slow ships registered a moment ago, both snapshots, sampled in parallel', async () => {
    expect((await fleetResources()).map((row) => row.ship)).toEqual(['alpha']);
    const [slow1, slow2] = await Promise.all([fakeShip('slow1', 1500), fakeShip('slow2', 1500)]);
    await Promise.all([register(slow1.url), register(slow2.url)]);
    const started = Date.now();
    const rows = await fleetResources();
    expect(Date.now() - started).toBeLessThan(2900);
    expect(rows.map((row) => row.ship)).toEqual(['alpha', 'slow1', 'slow2']);
    expect(rowOf(rows, 'slow1')).toEqual({ ship: 'slow1', status: 'online', resources: snapshot, error: null });
    expect(rowOf(rows, 'slow2')).toEqual({ ship: 'slow2', status: 'online', resources: snapshot, error: null });
    expect(rowOf(rows, 'alpha')).toMatchObject({
      status: 'online',
      error: null,
      resources: { cpu: { cores: snapshot.cpu.cores } },
    });
  });

  it('never answers a read with a fetch that started before it: a ship registered meanwhile is in it', async () => {
    // slow1 and slow2 (1.5 s) keep the first read in flight while `late` registers.
    const inFlight = fleetResources();
    // Let the first read start its fetches before `late` registers.
    await new Promise((r) => setTimeout(r, 200));
    const late = await fakeShip('late');
    await register(late.url);
    const after = await fleetResources();
    expect(rowOf(after, 'late')).toEqual({ ship: 'late', status: 'online', resources: snapshot, error: null });
    expect(rowOf(await inFlight, 'late')).toBeUndefined();
    await Promise.all(['slow1', 'slow2', 'late'].map(deregister));
    expect((await fleetResources()).map((row) => row.ship)).toEqual(['alpha']);
  }, 15_000);

  it('lists a ship whose resources call fails as online with the error, from the read right after', async () => {
    const flaky = await fakeShip('flaky');
    await register(flaky.url);
    expect(rowOf(await fleetResources(), 'flaky')).toEqual({
      ship: 'flaky',
      status: 'online',
      resources: snapshot,
      error: null,
    });
    flaky.failure = 'cannot sample the CPU';
    expect(rowOf(await fleetResources(), 'flaky')).toEqual({
      ship: 'flaky',
      status: 'online',
      resources: null,
      error: 'cannot sample the CPU',
    });
    expect(await bridgeCall('GET', '/ships/flaky/system-resources')).toMatchObject({
      status: 500,
      body: { error: 'cannot sample the CPU' },
    });
    await deregister('flaky');
  });

  it('answers 400 unknown ship for the resources of a ship that is not registered', async () => {
    expect(await bridgeCall('GET', '/ships/ghost/system-resources')).toMatchObject({
      status: 400,
      body: { error: 'unknown ship: ghost' },
    });
    expect(await bridgeCall('GET', '/ships/slow1/system-resources')).toMatchObject({
      status: 400,
      body: { error: 'unknown ship: slow1' },
    });
  });

  it('shows a ship killed a moment ago as offline with resources null and error null on the next read', async () => {
    const doomed = await fakeShip('doomed');
    await register(doomed.url);
    expect(rowOf(await fleetResources(), 'doomed')).toEqual({
      ship: 'doomed',
      status: 'online',
      resources: snapshot,
      error: null,
    });
    doomed.kill();
    expect(rowOf(await fleetResources(), 'doomed')).toEqual({
      ship: 'doomed',
      status: 'offline',
      resources: null,
      error: null,
    });
    expect(await bridgeCall('GET', '/ships/doomed/system-resources')).toMatchObject({
      status: 503,
      body: { error: 'ship "doomed" is offline' },
    });
    await deregister('doomed');
  });

  it('shows a real ship stopped as offline with resources null and error null on the next read', async () => {
    expect(rowOf(await fleetResources(), 'alpha')).toMatchObject({ status: 'online', error: null });
    await alpha.stopShipOnly();
    expect(await fleetResources()).toEqual([{ ship: 'alpha', status: 'offline', resources: null, error: null }]);
    expect((await bridgeCall('GET', '/ships')).body).toEqual([{ name: 'alpha', url: alpha.url, status: 'offline' }]);
    expect(await bridgeCall('GET', '/ships/alpha/system-resources')).toMatchObject({
      status: 503,
      body: { error: 'ship "alpha" is offline' },
    });
  });
});
