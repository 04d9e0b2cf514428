// A real bridge with real ships (each its own fleet directory and tmux server) over real HTTP and
// WebSockets: registration, routing of every workspace route, errors passed through, the aggregate event
// stream, offline ships and reconnection, key hand-over, and fleet-wide resources.
import { insecureBridge } from './../helpers/bridge.js';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { connectEvents, type EventClient } from '../helpers/events.js';
import { call, makeTempRoot, path, rawCall, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { until } from '../helpers/poll.js';

let root: string;
let remote: RemoteFixture;
let bridge: Bridge;
let alpha: TestShip;
let beta: TestShip;
let silentTcp: TcpServer;
let plainHttp: Server;
let events: EventClient;

const portOf = (server: { address(): unknown }) => (server.address() as { port: number }).port;

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  alpha = await startTestShip(root, { name: 'alpha', fleetDirectory: join(root, 'fleet-alpha') });
  beta = await startTestShip(root, { name: 'beta', fleetDirectory: join(root, 'fleet-beta') });
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
    reconnect: { initialMs: 50, maxMs: 200 },
    registrationProbeMs: 1000,
  });
  silentTcp = createTcpServer(() => undefined);
  await new Promise<void>((resolve) => silentTcp.listen(0, '127.0.0.1', resolve));
  plainHttp = createServer((_request, response) => response.end('hello'));
  await new Promise<void>((resolve) => plainHttp.listen(0, '127.0.0.1', resolve));
  await call(bridge.url, 'POST', '/repos', { name: 'app', url: remote.url });
}, 60_000);
afterAll(async () => {
  await events?.close();
  await bridge.close();
  await alpha.stop();
  await beta.stop();
  silentTcp.close();
  plainHttp.close();
  await removeRoot(root);
});

describe('bridge with ships', () => {
  it('registers a ship by URL, learning its name from the first sync', async () => {
    events = await connectEvents(bridge.url);
    const [initial] = await events.waitFor(1);
    expect(initial).toMatchObject({ type: 'sync', workspaces: [] });
    expect(initial.ship).toBeUndefined();
    const reply = await call(bridge.url, 'POST', '/ships', { url: alpha.url });
    expect(reply).toMatchObject({ status: 201, body: { name: 'alpha', url: alpha.url, status: 'online' } });
    expect((await call(bridge.url, 'GET', '/ships')).body).toEqual([
      { name: 'alpha', url: alpha.url, status: 'online' },
    ]);
    await events.waitFor(2);
    expect(events.events[1].type).toBe('sync');
  });

  it('refuses a second registration of the same ship, a silent port and a non-ship server', async () => {
    expect(await call(bridge.url, 'POST', '/ships', { url: alpha.url })).toMatchObject({
      status: 409,
      body: { error: 'ship already registered: alpha' },
    });
    const silent = await call(bridge.url, 'POST', '/ships', { url: `http://127.0.0.1:${portOf(silentTcp)}` });
    expect(silent.status).toBe(502);
    expect(silent.body.error).toMatch(
      new RegExp(`^ship at http://127\\.0\\.0\\.1:${portOf(silentTcp)} did not respond: `),
    );
    const plain = await call(bridge.url, 'POST', '/ships', { url: `http://127.0.0.1:${portOf(plainHttp)}` });
    expect(plain.status).toBe(502);
    expect((await call(bridge.url, 'POST', '/ships', {})).status).toBe(422);
    expect(await call(bridge.url, 'POST', '/ships', { url: alpha.url, shipToken: 'x' })).toMatchObject({
      status: 400,
      body: { error: 'a ship is registered with both a shipToken and a bridgeToken, or neither' },
    });
    expect((await call(bridge.url, 'GET', '/ships')).body.map((s: { name: string }) => s.name)).toEqual(['alpha']);
  });

  it('creates through the bridge and routes every workspace route to the owning ship', async () => {
    const created = await call(bridge.url, 'POST', '/workspaces', {
      ship: 'alpha',
      repoName: 'app',
      name: 'w1',
      branch: 'feature',
    });
    expect(created).toMatchObject({
      status: 201,
      body: {
        repoName: 'app',
        name: 'w1',
        branch: 'feature',
        active: false,
        agent: null,
        ship: 'alpha',
        ephemeral: null,
        branchCreated: false,
      },
    });
    expect((await call(bridge.url, 'GET', path('app', 'w1'))).body).toEqual({
      state: 'inactive',
      repoName: 'app',
      name: 'w1',
      branch: 'feature',
      ship: 'alpha',
      ephemeral: null,
    });
    expect((await call(bridge.url, 'POST', path('app', 'w1', '/activate'))).body).toEqual({ ok: true });
    const active = (await call(bridge.url, 'GET', path('app', 'w1'))).body;
    expect(active).toMatchObject({ state: 'active', ship: 'alpha', ephemeral: null, issue: null, mergeRequest: null });
    expect((await call(bridge.url, 'POST', path('app', 'w1', '/branch'), { branch: 'other' })).body).toEqual({
      ok: true,
      branchCreated: false,
    });
    const diff = await call(bridge.url, 'GET', path('app', 'w1', '/diff?nameOnly=true&range=v1.0'));
    expect(diff.status).toBe(200);
    expect(diff.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(diff.text).toBe('logo.bin\nsrc/app.txt\n');
    expect((await call(bridge.url, 'GET', '/workspaces')).body).toEqual([
      { repoName: 'app', name: 'w1', branch: 'other', active: true, agent: null, ship: 'alpha', ephemeral: null },
    ]);
    expect((await call(bridge.url, 'GET', '/workspaces?active=false')).body).toEqual([]);
    expect((await call(bridge.url, 'POST', path('app', 'w1', '/deactivate'))).body).toEqual({ ok: true });
    expect((await call(bridge.url, 'DELETE', path('app', 'w1'))).body).toEqual({ ok: true });
    await until(async () => (await call(bridge.url, 'GET', path('app', 'w1'))).status === 404, 'app/w1 to be gone');
  });

  it('republishes ship events with the ship on the workspace, and a removal as a fresh sync', async () => {
    // Let the previous test's events settle first.
    await new Promise((r) => setTimeout(r, 300));
    const from = events.events.length;
    await call(bridge.url, 'POST', '/workspaces', { ship: 'alpha', repoName: 'app', name: 'ev', branch: 'main' });
    await call(bridge.url, 'POST', path('app', 'ev', '/activate'));
    await call(bridge.url, 'DELETE', path('app', 'ev'));
    await events.waitFor(from + 3);
    const received = events.events.slice(from, from + 3);
    expect(received.map((e) => e.type)).toEqual(['workspace.created', 'workspace.activated', 'sync']);
    expect(received[0].workspace).toEqual({
      repoName: 'app',
      name: 'ev',
      branch: 'main',
      active: false,
      agent: null,
      ship: 'alpha',
      ephemeral: null,
    });
    expect(received[0].ship).toBeUndefined();
    expect(received[2].workspaces.find((w: { name: string }) => w.name === 'ev')).toBeUndefined();
  });

  it("passes a ship's own errors through and answers its own 400/404s", async () => {
    await call(bridge.url, 'POST', '/workspaces', { ship: 'alpha', repoName: 'app', name: 'errs', branch: 'main' });
    expect(await call(bridge.url, 'POST', path('app', 'errs', '/deactivate'))).toMatchObject({
      status: 400,
      body: { error: 'workspace not active: app/errs' },
    });
    expect(
      await call(bridge.url, 'POST', '/workspaces', { ship: 'alpha', repoName: 'app', name: 'errs', branch: 'main' }),
    ).toMatchObject({
      status: 409,
      body: { error: 'workspace already exists: app/errs' },
    });
    expect(await call(bridge.url, 'GET', path('app', 'nope'))).toMatchObject({
      status: 404,
      body: { error: 'workspace not found: app/nope' },
    });
    expect(
      await call(bridge.url, 'POST', '/workspaces', { ship: 'alpha', repoName: 'ghost', name: 'x', branch: 'main' }),
    ).toMatchObject({
      status: 400,
      body: { error: 'unknown repo: ghost' },
    });
    expect(
      await call(bridge.url, 'POST', '/workspaces', { ship: 'nowhere', repoName: 'app', name: 'x', branch: 'main' }),
    ).toMatchObject({
      status: 400,
      body: { error: 'unknown ship: nowhere' },
    });
    expect(
      await call(bridge.url, 'POST', '/workspaces', { ship: 'alpha', repoName: 'a/b', name: 'x', branch: 'main' }),
    ).toMatchObject({
      status: 400,
      body: { error: 'invalid repo identifier: must not contain path separators' },
    });
    expect(
      await call(bridge.url, 'POST', '/workspaces', { ship: 'a/b', repoName: 'app', name: 'x', branch: 'main' }),
    ).toMatchObject({
      status: 400,
      body: { error: 'invalid ship identifier: must not contain path separators' },
    });
    expect(await rawCall(bridge.url, 'GET', '/workspaces/app/%2E%2E')).toMatchObject({
      status: 400,
      body: { error: 'invalid workspace identifier: must not be . or ..' },
    });
    expect(await call(bridge.url, 'DELETE', '/ships/a%2Fb')).toMatchObject({
      status: 400,
      body: { error: 'invalid ship identifier: must not contain path separators' },
    });
    expect(
      (await call(bridge.url, 'POST', '/workspaces', { ship: 'alpha', repoName: 'app', name: 'x', branch: ' ' }))
        .status,
    ).toBe(400);
    expect((await call(bridge.url, 'POST', '/workspaces', { repoName: 'app', name: 'x', branch: 'main' })).status).toBe(
      422,
    );
  });

  it('marks a stopped ship offline (503 for its workspaces) and takes it back when it returns', async () => {
    await call(bridge.url, 'POST', '/ships', { url: beta.url });
    await call(bridge.url, 'POST', '/workspaces', { ship: 'beta', repoName: 'app', name: 'on-beta', branch: 'main' });
    const port = beta.ship.port;
    await beta.stopShipOnly();
    await until(
      async () =>
        (await call(bridge.url, 'GET', '/ships')).body.find((s: { name: string }) => s.name === 'beta').status ===
        'offline',
      'beta offline',
    );
    expect(await call(bridge.url, 'GET', path('app', 'on-beta'))).toMatchObject({
      status: 503,
      body: { error: 'ship "beta" hosting app/on-beta is offline' },
    });
    // Offline ships are listed with what was last known; the fleet-wide resources list them inline.
    expect(
      (await call(bridge.url, 'GET', '/workspaces')).body.some((w: { name: string }) => w.name === 'on-beta'),
    ).toBe(true);
    const resources = (await call(bridge.url, 'GET', '/system-resources')).body;
    expect(resources.find((r: { ship: string }) => r.ship === 'beta')).toEqual({
      ship: 'beta',
      status: 'offline',
      resources: null,
      error: null,
    });
    expect(resources.find((r: { ship: string }) => r.ship === 'alpha')).toMatchObject({
      status: 'online',
      error: null,
    });
    beta = await startTestShip(root, { name: 'beta', fleetDirectory: join(root, 'fleet-beta'), port });
    await until(
      async () => (await call(bridge.url, 'GET', path('app', 'on-beta'))).status === 200,
      'app/on-beta to answer',
    );
    expect((await call(bridge.url, 'GET', `/ships/beta/system-resources`)).body.cpu.cores).toBeGreaterThan(0);
  });

  it('hands a key over to another ship reporting it when its owner removes it', async () => {
    // beta also gets app/shared directly (the bridge drops beta's event: alpha owns the key).
    await call(bridge.url, 'POST', '/workspaces', { ship: 'alpha', repoName: 'app', name: 'shared', branch: 'main' });
    expect(
      (
        await call(beta.url, 'POST', '/workspaces', {
          url: remote.url,
          repoName: 'app',
          name: 'shared',
          branch: 'other',
        })
      ).status,
    ).toBe(201);
    // A window, not a condition: the bridge must drop beta's event for the key alpha owns.
    await new Promise((r) => setTimeout(r, 200));
    expect((await call(bridge.url, 'GET', path('app', 'shared'))).body).toMatchObject({
      ship: 'alpha',
      branch: 'main',
    });
    await call(bridge.url, 'DELETE', path('app', 'shared'));
    await until(
      async () => (await call(bridge.url, 'GET', path('app', 'shared'))).body?.ship === 'beta',
      'app/shared on beta',
    );
    expect((await call(bridge.url, 'GET', path('app', 'shared'))).body).toMatchObject({
      ship: 'beta',
      branch: 'other',
    });
  });

  it('refuses to register a ship whose workspaces are hosted elsewhere; deregistering releases keys', async () => {
    expect((await call(bridge.url, 'DELETE', '/ships/beta')).body).toEqual({ ok: true });
    expect(await call(bridge.url, 'GET', path('app', 'on-beta'))).toMatchObject({ status: 404 });
    expect(await call(bridge.url, 'DELETE', '/ships/beta')).toMatchObject({
      status: 404,
      body: { error: 'ship not found: beta' },
    });
    await call(bridge.url, 'POST', '/workspaces', { ship: 'alpha', repoName: 'app', name: 'on-beta', branch: 'main' });
    const conflict = await call(bridge.url, 'POST', '/ships', { url: beta.url });
    expect(conflict).toMatchObject({
      status: 409,
      body: { error: 'ship "beta" has workspaces already hosted elsewhere: app/on-beta' },
    });
  });

  it('keeps the roster across a bridge restart and reconnects to it', async () => {
    await bridge.close();
    bridge = await startBridge({
      ...insecureBridge,
      port: 0,
      dataDirectory: join(root, 'bridge'),
      logger: pino({ level: 'silent' }),
      reconnect: { initialMs: 50, maxMs: 200 },
    });
    await until(async () => (await call(bridge.url, 'GET', '/ships')).body[0]?.status === 'online', 'the ship online');
    expect((await call(bridge.url, 'GET', '/ships')).body).toEqual([
      { name: 'alpha', url: alpha.url, status: 'online' },
    ]);
    await until(async () => (await call(bridge.url, 'GET', path('app', 'errs'))).status === 200, 'app/errs to answer');
    events = await connectEvents(bridge.url);
  }, 60_000);
});
