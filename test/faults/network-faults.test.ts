// docs/security.md X6: the link between the bridge and one ship goes slow (latency, 64 KB/s), dead
// (blackhole: no FIN, no RST, nothing) and hostile (reset, half-close), through a TCP fault proxy, while a
// second ship stays healthy. Slow: it all still works, and the healthy ship's calls do not slow down. Dead: routed calls fail 503 within their deadline, the dead peer is found by ping and
// the ship goes offline, terminals behind it close, the other ship never notices. Healed: the ship is back
// online within 5 s and its fresh sync replaces what the bridge knew, with no phantom or duplicate keys.
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { insecureBridge, shipStatus } from '../helpers/bridge.js';
import { msUntil, until } from '../helpers/poll.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { connectTerminal, terminalUrl } from '../helpers/terminal.js';

const HEARTBEAT_MS = 300;

let root: string;
let remote: RemoteFixture;
let bridge: Bridge;
let far: TestShip;
let near: TestShip;
let proxy: FaultProxy;

const keys = async () =>
  ((await call(bridge.url, 'GET', '/workspaces')).body as Array<{ repoName: string; name: string; ship: string }>)
    .map((w) => `${w.ship}:${w.repoName}/${w.name}`)
    .sort();

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  far = await startTestShip(root, { name: 'far', fleetDirectory: join(root, 'fleet-far'), heartbeatMs: HEARTBEAT_MS });
  near = await startTestShip(root, {
    name: 'near',
    fleetDirectory: join(root, 'fleet-near'),
    heartbeatMs: HEARTBEAT_MS,
  });
  proxy = await FaultProxy.start(far.ship.port);
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
    heartbeatMs: HEARTBEAT_MS,
    reconnect: { initialMs: 50, maxMs: 500 },
  });
  expect((await call(bridge.url, 'POST', '/ships', { url: proxy.url })).status).toBe(201);
  expect((await call(bridge.url, 'POST', '/ships', { url: near.url })).status).toBe(201);
  expect((await call(bridge.url, 'POST', '/repos', { name: 'app', url: remote.url })).status).toBe(201);
  for (const [ship, name] of [
    ['far', 'f1'],
    ['far', 'f2'],
    ['near', 'n1'],
  ]) {
    expect(
      (await call(bridge.url, 'POST', '/workspaces', { ship, repoName: 'app', name, branch: 'main' })).status,
    ).toBe(201);
  }
  expect((await call(bridge.url, 'POST', path('app', 'f1', '/activate'))).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await proxy?.close();
  await far?.stop();
  await near?.stop();
  await removeRoot(root);
});

describe('a faulty link between the bridge and one ship', () => {
  it('with 200 ms of latency each way everything still works, only slower', async () => {
    proxy.latencyMs = 200;
    const started = Date.now();
    const routed = await call(bridge.url, 'GET', path('app', 'f1'));
    expect(routed.status).toBe(200);
    expect(routed.body).toMatchObject({ name: 'f1', ship: 'far' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect((await call(bridge.url, 'GET', path('app', 'n1'))).status).toBe(200);
    const terminal = await connectTerminal(terminalUrl(bridge.url, 'app', 'f1'));
    await terminal.waitForFrames(1, 10_000);
    await terminal.close();
    proxy.heal();
  });

  it('capped at 64 KB/s: a terminal streams to the end, routed calls work, and the other ship does not notice', async () => {
    expect((await call(bridge.url, 'POST', path('app', 'f2', '/activate'))).status).toBe(200);
    proxy.bytesPerSecond = 64 * 1024;
    const terminal = await connectTerminal(terminalUrl(bridge.url, 'app', 'f2'));
    await terminal.until((screen) => /[$#] ?$/m.test(screen.text()), 10_000);
    terminal.input('seq 1 40000\r');
    const nearTimes: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      expect((await call(bridge.url, 'GET', path('app', 'n1'))).status).toBe(200);
      nearTimes.push(performance.now() - started);
    }
    // Not queued behind the slow link: a call that waited on it would take seconds. How fast they stay (p99
    // against the link idle, bar 50 ms) is a benchmark, `npm run bench -- slow-link` (bench/RESULTS.md).
    expect(Math.max(...nearTimes)).toBeLessThan(1000);
    await terminal.until((screen) => /^40000$/m.test(screen.text()), 60_000);
    expect(terminal.socket.readyState).toBe(terminal.socket.OPEN);
    expect((await call(bridge.url, 'GET', path('app', 'f2'))).status).toBe(200);
    await terminal.close();
    proxy.heal();
    expect((await call(bridge.url, 'POST', path('app', 'f2', '/deactivate'))).status).toBe(200);
  }, 90_000);

  it('blackholed: 503 within the deadline, offline by ping, terminals closed, the other ship untouched; healed: a fresh sync wins', async () => {
    const terminal = await connectTerminal(terminalUrl(bridge.url, 'app', 'f1'));
    await terminal.waitForFrames(1, 10_000);
    proxy.blackhole();

    const started = Date.now();
    const inFlight = call(bridge.url, 'GET', path('app', 'f2'));
    const offlineAfter = await msUntil(
      async () => (await shipStatus(bridge.url, 'far')) === 'offline',
      'far offline',
      5000,
    );
    // two missed pongs at 300 ms; the ship-side ping of the same interval may notice first
    expect(offlineAfter).toBeLessThan(3000);
    const closed = await Promise.race([
      terminal.closed,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 5000)),
    ]);
    expect(closed).not.toBeNull();

    // The healthy ship answers throughout.
    for (let i = 0; i < 20; i++) expect((await call(bridge.url, 'GET', path('app', 'n1'))).status).toBe(200);
    expect(await shipStatus(bridge.url, 'near')).toBe('online');
    const offline = await call(bridge.url, 'GET', path('app', 'f1'));
    expect(offline.status).toBe(503);
    expect(offline.body).toEqual({ error: 'ship "far" hosting app/f1 is offline' });

    const answered = await inFlight;
    expect(answered.status).toBe(503);
    expect(answered.body.error).toMatch(/^ship "far" (unreachable: |hosting app\/f2 is offline)/);
    // the routed call's deadline is 10 s of silence; nothing may hang past it
    expect(Date.now() - started).toBeLessThan(11_000);

    // Behind the bridge's back the ship changes: one workspace gone, one new.
    expect((await call(far.url, 'DELETE', path('app', 'f2'))).status).toBe(200);
    expect(
      (await call(far.url, 'POST', '/workspaces', { repoName: 'app', name: 'f3', branch: 'main', url: remote.url }))
        .status,
    ).toBe(201);
    expect(await keys()).toEqual(['far:app/f1', 'far:app/f2', 'near:app/n1']);

    proxy.heal();
    const onlineAfter = await msUntil(
      async () => (await shipStatus(bridge.url, 'far')) === 'online',
      'far online after heal',
      10_000,
    );
    expect(onlineAfter).toBeLessThan(5000);
    expect(await keys()).toEqual(['far:app/f1', 'far:app/f3', 'near:app/n1']);
    expect((await call(bridge.url, 'GET', path('app', 'f3'))).status).toBe(200);
    expect((await call(bridge.url, 'GET', path('app', 'f2'))).status).toBe(404);
  }, 60_000);

  it('reset: the ship goes offline and is back online within 5 s, its routes answering again', async () => {
    expect(await shipStatus(bridge.url, 'far')).toBe('online');
    proxy.reset();
    const backAfter = await msUntil(
      async () =>
        (await shipStatus(bridge.url, 'far')) === 'online' &&
        (await call(bridge.url, 'GET', path('app', 'f1'))).status === 200,
      'far back',
      10_000,
    );
    expect(backAfter).toBeLessThan(5000);
    expect(await keys()).toEqual(['far:app/f1', 'far:app/f3', 'near:app/n1']);
  }, 30_000);

  it('half-closed (a FIN toward the bridge, nothing else): the bridge notices, reconnects and hears the ship again within 5 s', async () => {
    expect(await shipStatus(bridge.url, 'far')).toBe('online');
    const events = new WebSocket(`${bridge.url.replace(/^http/, 'ws')}/events`);
    const received: Array<{ type: string; workspace?: { name: string } }> = [];
    events.on('message', (data) => received.push(JSON.parse(data.toString())));
    await new Promise((resolve) => events.once('open', resolve));
    proxy.halfClose();
    const started = Date.now();
    await until(
      async () =>
        (await shipStatus(bridge.url, 'far')) === 'online' &&
        (await call(bridge.url, 'GET', path('app', 'f1'))).status === 200,
      'far back',
      10_000,
    );
    // The event stream works again: a workspace created on the ship itself reaches the bridge's subscribers.
    expect(
      (await call(far.url, 'POST', '/workspaces', { repoName: 'app', name: 'f4', branch: 'main', url: remote.url }))
        .status,
    ).toBe(201);
    await until(
      async () => received.some((event) => event.type === 'workspace.created' && event.workspace?.name === 'f4'),
      'f4 announced',
      10_000,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    events.close();
    expect((await call(bridge.url, 'DELETE', path('app', 'f4'))).status).toBe(200);
    expect(await keys()).toEqual(['far:app/f1', 'far:app/f3', 'near:app/n1']);
  }, 30_000);
});
