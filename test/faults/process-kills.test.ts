// X2, X3 and the tmux kill of the security notes, with real `svc` processes: a bridge killed with SIGKILL
// (and one stopped with SIGTERM) comes back with users, ships and repos identical and an index equal to the
// ships' own view; a ship killed with SIGKILL while a terminal is attached leaves its sessions running, and
// the restarted ship adopts them with their MCP tokens; a killed tmux server leaves the ship answering, its
// workspaces inactive and activatable again.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, TEST_SESSION_COMMAND } from '../helpers/ship.js';
import { killFleetTmux, startCli, startShipCli, type RunningCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { connectTerminal } from '../helpers/terminal.js';
import { Tmux } from '../../ship/sessions/tmux.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { tmuxSocketFor } from '../../ship/server.js';

const ADMIN = { SVC_BRIDGE_ADMIN_USER: 'root', SVC_BRIDGE_ADMIN_EMAIL: 'root@example.com', SVC_BRIDGE_ADMIN_PASSWORD: 'root-password-1' };
const ENV = { SVC_SESSION_COMMAND: TEST_SESSION_COMMAND, SVC_BRIDGE_TOKEN: '', SVC_TOKEN: undefined, SVC_INSECURE_NO_AUTH: undefined };

let root: string;
let remote: RemoteFixture;
const running: RunningCli[] = [];
let shipPort: number;
let bridgePort: number;

const startShip = async () => {
  const ship = await startShipCli(join(root, 'fleet'), shipPort, 'kp', ENV);
  running.push(ship);
  return ship;
};
const startBridge = async () => {
  const bridge = startCli(['bridge', '--port', String(bridgePort), '--data-directory', join(root, 'bridge')], { ...ENV, ...ADMIN });
  running.push(bridge);
  await bridge.waitFor('bridge listening on');
  return bridge;
};
const bridgeUrl = () => `http://localhost:${bridgePort}`;
const shipUrl = () => `http://localhost:${shipPort}`;

async function until<T>(probe: () => Promise<T | null>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  shipPort = await freePort();
  bridgePort = await freePort();
}, 30_000);

afterAll(async () => {
  for (const child of running) await child.stop('SIGKILL');
  await killFleetTmux(join(root, 'fleet'));
  await removeRoot(root);
});

describe('process kills', () => {
  let token: string;
  const auth = () => ({ authorization: `Bearer ${token}` });
  const snapshot = async () => ({
    users: (await call(bridgeUrl(), 'GET', '/users', undefined, auth())).body,
    ships: (await call(bridgeUrl(), 'GET', '/ships', undefined, auth())).body,
    repos: (await call(bridgeUrl(), 'GET', '/repos', undefined, auth())).body,
    workspaces: (await call(bridgeUrl(), 'GET', '/workspaces', undefined, auth())).body,
  });

  it('a bridge killed with SIGKILL, or stopped, comes back with everything it acknowledged', async () => {
    await startShip();
    let bridge = await startBridge();
    token = (await call(bridgeUrl(), 'POST', '/auth/login', { username: 'root', password: ADMIN.SVC_BRIDGE_ADMIN_PASSWORD })).body.token;
    expect((await call(bridgeUrl(), 'POST', '/ships', { url: shipUrl() }, auth())).status).toBe(201);
    expect((await call(bridgeUrl(), 'POST', '/repos', { name: 'app', url: remote.url }, auth())).status).toBe(201);
    expect((await call(bridgeUrl(), 'POST', '/users', { username: 'm1', email: 'm1@example.com', password: 'member-password' }, auth())).status).toBe(201);
    for (const name of ['w1', 'w2']) expect((await call(bridgeUrl(), 'POST', '/workspaces', { ship: 'kp', repoName: 'app', name, branch: 'main' }, auth())).status).toBe(201);
    const before = await snapshot();
    // X3: five of each, alternating.
    const signals = Array.from({ length: 10 }, (_, round) => (round % 2 === 0 ? 'SIGKILL' : 'SIGTERM') as NodeJS.Signals);
    for (const signal of signals) {
      expect(await bridge.stop(signal)).toBe(signal === 'SIGTERM' ? 0 : null);
      bridge = await startBridge();
      // Sessions survive a restart (they live in the store); the ship reconnects within seconds.
      await until(async () => ((await snapshot()).ships as Array<{ status: string }>)[0]?.status === 'online' ? true : null, 'ship back online', 10_000);
      const after = await snapshot();
      expect(after).toEqual(before);
      const direct = (await call(shipUrl(), 'GET', '/workspaces')).body as Array<{ name: string }>;
      expect((after.workspaces as Array<{ name: string }>).map((w) => w.name)).toEqual(direct.map((w) => w.name));
    }
  });

  it('a ship killed with SIGKILL under an attached terminal leaves its session, which the next ship adopts', async () => {
    expect((await call(bridgeUrl(), 'POST', path('app', 'w1', '/activate'), undefined, auth())).status).toBe(200);
    const tmux = new Tmux(tmuxSocketFor(realpathSync(join(root, 'fleet'))));
    const tokenBefore = (await tmux.sessionVariables(sessionName('app', 'w1'))).SVC_MCP_TOKEN;
    const { ticket } = (await call(bridgeUrl(), 'POST', '/auth/ws-ticket', undefined, auth())).body;
    const terminal = await connectTerminal(`ws://localhost:${bridgePort}${path('app', 'w1', '/terminal')}?ticket=${ticket}`);
    await terminal.until((screen) => /[$#] ?$/m.test(screen.text()));
    terminal.input('echo survivor-$((20+22)) > marker.txt; echo typed\r');
    await terminal.until((screen) => screen.text().includes('typed'));
    const ship = running.find((child) => child.output().includes('"name":"kp"') || child.child.spawnargs.includes('ship'))!;
    await ship.stop('SIGKILL');
    const exit = await Promise.race([terminal.exit, terminal.closed.then(() => -1)]);
    expect(exit === 1 || exit === -1).toBe(true);
    expect((await call(bridgeUrl(), 'GET', path('app', 'w1'), undefined, auth())).status).toBe(503);

    await startShip();
    const status = await until(async () => {
      const reply = await call(bridgeUrl(), 'GET', path('app', 'w1'), undefined, auth());
      return reply.status === 200 ? reply.body : null;
    }, 'ship back and routed');
    expect(status).toMatchObject({ state: 'active' });
    expect((await tmux.sessionVariables(sessionName('app', 'w1'))).SVC_MCP_TOKEN).toBe(tokenBefore);
    const mcp = await call(shipUrl(), 'GET', path('app', 'w1', '/mcp'), undefined, { authorization: `Bearer ${tokenBefore}` });
    expect(mcp.status).not.toBe(401);
  });

  it('a killed tmux server leaves the ship answering, its workspaces inactive and activatable again', async () => {
    const tmux = new Tmux(tmuxSocketFor(realpathSync(join(root, 'fleet'))));
    await tmux.killServer();
    const inactive = await until(async () => {
      const reply = await call(shipUrl(), 'GET', path('app', 'w1'));
      return reply.status === 200 && reply.body.state === 'inactive' ? reply.body : null;
    }, 'w1 inactive after the tmux kill');
    expect(inactive).toMatchObject({ name: 'w1', state: 'inactive' });
    expect(await call(bridgeUrl(), 'POST', path('app', 'w1', '/activate'), undefined, auth())).toMatchObject({ status: 200 });
    expect((await call(bridgeUrl(), 'GET', path('app', 'w1'), undefined, auth())).body).toMatchObject({ state: 'active' });
    expect((await call(bridgeUrl(), 'POST', path('app', 'w1', '/deactivate'), undefined, auth())).status).toBe(200);
  });
});
