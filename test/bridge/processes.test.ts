// Real processes: `svc bridge` and `svc ship` from the built CLI. The bridge names its URL, store and data
// directory at start; a ship killed with SIGKILL in the middle of a routed call makes that call a 503
// `unreachable` and the ship offline; concurrent creates of one key through the bridge give one 201 and
// one 409. Fleet-wide reads see the ship as it is now: a workspace created on the ship directly is in the
// next bridge listing, and a ship SIGKILLed is offline with resources null, error null in the next read.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, TEST_SESSION_COMMAND } from '../helpers/ship.js';
import { Tmux } from '../../ship/sessions/tmux.js';
import { tmuxSocketFor } from '../../ship/server.js';
import { realpathSync } from 'node:fs';

const CLI = resolve(import.meta.dirname, '../../bin/svc.js');
let root: string;
let remote: RemoteFixture;
const children: ChildProcess[] = [];

function start(args: string[], ready: RegExp): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, SVC_LOG_LEVEL: 'info', SVC_SESSION_COMMAND: TEST_SESSION_COMMAND, SVC_BRIDGE_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), 20_000);
    const check = setInterval(() => {
      if (ready.test(out)) {
        clearInterval(check);
        clearTimeout(timer);
        resolveStart({ child, output: () => out });
      }
    }, 20);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const fleet of ['fleet-p1', 'fleet-p2']) {
    try {
      await new Tmux(tmuxSocketFor(realpathSync(join(root, fleet)))).killServer();
    } catch {
      // never started
    }
  }
  await removeRoot(root);
});

describe('bridge and ship processes', () => {
  it('routes to a ship process, and a SIGKILL mid-call is a 503 unreachable that marks it offline', async () => {
    const bridge = await start(
      ['bridge', '--port', '0', '--insecure-no-auth', '--data-directory', join(root, 'bridge-data')],
      /bridge listening on/,
    );
    const bridgeUrl = /bridge listening on (http:\/\/localhost:\d+)/.exec(bridge.output())![1]!;
    expect(bridge.output()).toContain('"store":"pglite"');
    expect(bridge.output()).toContain(join(root, 'bridge-data'));

    const ship = await start(
      ['ship', '--port', '0', '--name', 'p1', '--fleet-directory', join(root, 'fleet-p1')],
      /ship listening/,
    );
    const { port } = JSON.parse(readFileSync(join(root, 'fleet-p1', 'atlas.json'), 'utf8')) as { port: number };
    expect((await call(bridgeUrl, 'POST', '/ships', { url: `http://localhost:${port}` })).status).toBe(201);
    await call(bridgeUrl, 'POST', '/repos', { name: 'app', url: remote.url });

    const creates = await Promise.all(
      [1, 2, 3].map(() =>
        call(bridgeUrl, 'POST', '/workspaces', { ship: 'p1', repoName: 'app', name: 'race', branch: 'main' }),
      ),
    );
    expect(creates.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect((await call(bridgeUrl, 'GET', path('app', 'race'))).status).toBe(200);

    const inFlight = call(bridgeUrl, 'GET', '/ships/p1/system-resources');
    // Let the request reach the ship before it is killed (the kill mid-request is what is tested).
    await new Promise((r) => setTimeout(r, 30));
    ship.child.kill('SIGKILL');
    const reply = await inFlight;
    expect(reply.status).toBe(503);
    expect(reply.body.error).toMatch(/^ship "p1" (unreachable: |is offline)/);
    const ships = (await call(bridgeUrl, 'GET', '/ships')).body;
    expect(ships).toEqual([{ name: 'p1', url: `http://localhost:${port}`, status: 'offline' }]);
    expect(await call(bridgeUrl, 'GET', path('app', 'race'))).toMatchObject({
      status: 503,
      body: { error: 'ship "p1" hosting app/race is offline' },
    });

    bridge.child.kill('SIGTERM');
    expect(await new Promise((r) => bridge.child.on('exit', r))).toBe(0);
  }, 60_000);

  it('lists a workspace created on the ship directly at once, and a SIGKILLed ship offline on the next read', async () => {
    const bridge = await start(
      ['bridge', '--port', '0', '--insecure-no-auth', '--data-directory', join(root, 'bridge-data-2')],
      /bridge listening on/,
    );
    const bridgeUrl = /bridge listening on (http:\/\/localhost:\d+)/.exec(bridge.output())![1]!;
    const ship = await start(
      ['ship', '--port', '0', '--name', 'p2', '--fleet-directory', join(root, 'fleet-p2')],
      /ship listening/,
    );
    const { port } = JSON.parse(readFileSync(join(root, 'fleet-p2', 'atlas.json'), 'utf8')) as { port: number };
    const shipUrl = `http://localhost:${port}`;
    expect((await call(bridgeUrl, 'POST', '/ships', { url: shipUrl })).status).toBe(201);
    expect((await call(bridgeUrl, 'GET', '/workspaces')).body).toEqual([]);

    // Created on the ship, not through the bridge: the bridge's next listing re-fetches and shows it.
    expect(
      (
        await call(shipUrl, 'POST', '/workspaces', {
          url: remote.url,
          repoName: 'app',
          name: 'direct',
          branch: 'feature',
        })
      ).status,
    ).toBe(201);
    expect((await call(bridgeUrl, 'GET', '/workspaces')).body).toEqual([
      { repoName: 'app', name: 'direct', branch: 'feature', active: false, agent: null, ship: 'p2', ephemeral: null },
    ]);

    const before = (await call(bridgeUrl, 'GET', '/system-resources')).body;
    expect(before).toMatchObject([{ ship: 'p2', status: 'online', error: null }]);
    expect(before[0].resources.cpu.cores).toBeGreaterThan(0);
    const exited = new Promise((r) => ship.child.on('exit', r));
    ship.child.kill('SIGKILL');
    await exited;
    expect((await call(bridgeUrl, 'GET', '/system-resources')).body).toEqual([
      { ship: 'p2', status: 'offline', resources: null, error: null },
    ]);
    expect((await call(bridgeUrl, 'GET', '/ships')).body).toEqual([{ name: 'p2', url: shipUrl, status: 'offline' }]);

    bridge.child.kill('SIGTERM');
    expect(await new Promise((r) => bridge.child.on('exit', r))).toBe(0);
  }, 60_000);
});
