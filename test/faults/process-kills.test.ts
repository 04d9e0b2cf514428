// docs/security.md X2, X3 and X8, with real `svc` processes: a bridge killed with SIGKILL (and one
// stopped with SIGTERM) comes back with users, ships and repos identical, an index equal to the ships' own
// view, and every WebSocket ticket void; a ship killed with SIGKILL under eight attached terminals leaves
// their sessions running, and the restarted ship adopts them with their shells, screens and MCP tokens; a
// killed tmux server leaves the ship answering, its workspaces inactive and activatable again.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, TEST_SESSION_COMMAND } from '../helpers/ship.js';
import { killFleetTmux, startCli, startShipCli, type RunningCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { until } from '../helpers/poll.js';
import { connectTerminal } from '../helpers/terminal.js';
import { Tmux } from '../../ship/sessions/tmux.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { tmuxSocketFor } from '../../ship/server.js';

const ADMIN = {
  SVC_BRIDGE_ADMIN_USER: 'root',
  SVC_BRIDGE_ADMIN_EMAIL: 'root@example.com',
  SVC_BRIDGE_ADMIN_PASSWORD: 'root-password-1',
};
const ENV = {
  SVC_SESSION_COMMAND: TEST_SESSION_COMMAND,
  SVC_BRIDGE_TOKEN: '',
  SVC_TOKEN: undefined,
  SVC_INSECURE_NO_AUTH: undefined,
};

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
  const bridge = startCli(['bridge', '--port', String(bridgePort), '--data-directory', join(root, 'bridge')], {
    ...ENV,
    ...ADMIN,
  });
  running.push(bridge);
  await bridge.waitFor('bridge listening on');
  return bridge;
};
const bridgeUrl = () => `http://localhost:${bridgePort}`;
const shipUrl = () => `http://localhost:${shipPort}`;

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
  /** A terminal attached through the bridge, once its shell prompts. */
  const attach = async (name: string) => {
    const { ticket } = (await call(bridgeUrl(), 'POST', '/auth/ws-ticket', undefined, auth())).body;
    const terminal = await connectTerminal(
      `ws://localhost:${bridgePort}${path('app', name, '/terminal')}?ticket=${ticket}`,
    );
    await terminal.until((screen) => /[$#] ?$/m.test(screen.text()));
    return terminal;
  };
  /** The HTTP status a WebSocket upgrade to the bridge's `path` gets (101 when it opens). */
  const upgradeStatus = (path: string) =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(`ws://localhost:${bridgePort}${path}`);
      socket.once('open', () => {
        resolve(101);
        socket.close();
      });
      socket.once('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0);
        socket.terminate();
      });
      socket.once('error', () => undefined);
    });
  /** Whether `terminal` was told it ended (exit frame or close) within `ms`. */
  const toldWithin = (terminal: Awaited<ReturnType<typeof attach>>, ms: number) =>
    Promise.race([terminal.exit.then(() => true), terminal.closed.then(() => true), sleep(ms).then(() => false)]);

  it('a bridge killed with SIGKILL, or stopped, comes back with everything it acknowledged', async () => {
    await startShip();
    let bridge = await startBridge();
    token = (
      await call(bridgeUrl(), 'POST', '/auth/login', { username: 'root', password: ADMIN.SVC_BRIDGE_ADMIN_PASSWORD })
    ).body.token;
    expect((await call(bridgeUrl(), 'POST', '/ships', { url: shipUrl() }, auth())).status).toBe(201);
    expect((await call(bridgeUrl(), 'POST', '/repos', { name: 'app', url: remote.url }, auth())).status).toBe(201);
    expect(
      (
        await call(
          bridgeUrl(),
          'POST',
          '/users',
          { username: 'm1', email: 'm1@example.com', password: 'member-password' },
          auth(),
        )
      ).status,
    ).toBe(201);
    for (const name of ['w1', 'w2'])
      expect(
        (await call(bridgeUrl(), 'POST', '/workspaces', { ship: 'kp', repoName: 'app', name, branch: 'main' }, auth()))
          .status,
      ).toBe(201);
    const before = await snapshot();
    // X3: five of each, alternating.
    const signals = Array.from(
      { length: 10 },
      (_, round) => (round % 2 === 0 ? 'SIGKILL' : 'SIGTERM') as NodeJS.Signals,
    );
    for (const signal of signals) {
      // Tickets live in the bridge's memory only: one minted before the restart is void after it (spec).
      const { ticket } = (await call(bridgeUrl(), 'POST', '/auth/ws-ticket', undefined, auth())).body;
      expect(await bridge.stop(signal)).toBe(signal === 'SIGTERM' ? 0 : null);
      bridge = await startBridge();
      expect(await upgradeStatus(`/events?ticket=${ticket}`)).toBe(401);
      // Sessions survive a restart (they live in the store); the ship reconnects within seconds.
      await until(
        async () => (((await snapshot()).ships as Array<{ status: string }>)[0]?.status === 'online' ? true : null),
        'ship back online',
        10_000,
      );
      const after = await snapshot();
      expect(after).toEqual(before);
      const direct = (await call(shipUrl(), 'GET', '/workspaces')).body as Array<{ name: string }>;
      expect((after.workspaces as Array<{ name: string }>).map((w) => w.name)).toEqual(direct.map((w) => w.name));
    }
  });

  it('a ship killed with SIGKILL under 8 attached terminals leaves their sessions, which the next ship adopts', async () => {
    // X2: eight active workspaces, each with a terminal attached through the bridge and an agent status.
    const names = ['w1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'];
    const tmux = new Tmux(tmuxSocketFor(realpathSync(join(root, 'fleet'))));
    const mcpTokens = new Map<string, string | undefined>();
    const terminals = [];
    for (const name of names) {
      if (name !== 'w1')
        expect(
          (
            await call(
              bridgeUrl(),
              'POST',
              '/workspaces',
              { ship: 'kp', repoName: 'app', name, branch: 'main' },
              auth(),
            )
          ).status,
        ).toBe(201);
      expect((await call(bridgeUrl(), 'POST', path('app', name, '/activate'), undefined, auth())).status).toBe(200);
      mcpTokens.set(name, (await tmux.sessionVariables(sessionName('app', name))).SVC_MCP_TOKEN);
      expect(
        (await call(shipUrl(), 'POST', path('app', name, '/agent/init'), { model: 'm', provider: 'p', harness: 'h' }))
          .status,
      ).toBe(200);
      const terminal = await attach(name);
      terminal.input(`echo before-$((20+22))-${name}\r`);
      await terminal.until((screen) => screen.text().includes(`before-42-${name}`));
      terminals.push(terminal);
    }
    expect(new Set(mcpTokens.values()).size).toBe(names.length);

    const ship = running.find((child) => child.child.spawnargs.includes('ship') && child.child.exitCode === null)!;
    await ship.stop('SIGKILL');
    // Every client is told within 2 s, and a routed call fails at once instead of hanging.
    expect(await Promise.all(terminals.map((terminal) => toldWithin(terminal, 2000)))).toEqual(
      terminals.map(() => true),
    );
    const asked = Date.now();
    expect((await call(bridgeUrl(), 'GET', path('app', 'w1'), undefined, auth())).status).toBe(503);
    expect(Date.now() - asked).toBeLessThan(1000);
    // The tmux server is not the ship's child: every session outlives it.
    const sessions = await tmux.listSessions();
    for (const name of names) expect(sessions.has(sessionName('app', name))).toBe(true);

    await startShip();
    for (const name of names) {
      const status = await until(async () => {
        const reply = await call(bridgeUrl(), 'GET', path('app', name), undefined, auth());
        return reply.status === 200 ? reply.body : null;
      }, `${name} back and routed`);
      // Adopted: still active, the agent status gone with the old process (spec), the MCP token re-bound.
      expect(status).toMatchObject({ state: 'active', agent: null });
      expect((await tmux.sessionVariables(sessionName('app', name))).SVC_MCP_TOKEN).toBe(mcpTokens.get(name));
      const mcp = await call(shipUrl(), 'GET', path('app', name, '/mcp'), undefined, {
        authorization: `Bearer ${mcpTokens.get(name)}`,
      });
      expect(mcp.status).not.toBe(401);
      // The same shell, with what it printed before the kill still on its screen.
      const terminal = await attach(name);
      expect(terminal.screen.text()).toContain(`before-42-${name}`);
      await terminal.close();
    }
  });

  it('a killed tmux server leaves the ship answering, its workspaces inactive and activatable again', async () => {
    // X8: the eight workspaces of the last test are active, one with a terminal and an agent status.
    const names = ['w1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'];
    const tmux = new Tmux(tmuxSocketFor(realpathSync(join(root, 'fleet'))));
    expect(
      (await call(shipUrl(), 'POST', path('app', 'w1', '/agent/init'), { model: 'm', provider: 'p', harness: 'h' }))
        .status,
    ).toBe(200);
    const terminal = await attach('w1');
    await tmux.killServer();
    expect(await toldWithin(terminal, 2000)).toBe(true);
    const killedAt = Date.now();
    for (const name of names) {
      const inactive = await until(async () => {
        const reply = await call(bridgeUrl(), 'GET', path('app', name), undefined, auth());
        return reply.status === 200 && reply.body.state === 'inactive' ? reply.body : null;
      }, `${name} inactive after the tmux kill`);
      expect(inactive).toMatchObject({ name, state: 'inactive' });
    }
    expect(Date.now() - killedAt).toBeLessThan(2000);
    // Every working tree is still listed; the agent status went with its session.
    const listed = (await call(bridgeUrl(), 'GET', '/workspaces', undefined, auth())).body as Array<{
      name: string;
      active: boolean;
      agent: unknown;
    }>;
    expect(listed.map((w) => w.name).sort()).toEqual([...names, 'w2'].sort());
    expect(listed.every((w) => !w.active && w.agent === null)).toBe(true);
    expect((await call(shipUrl(), 'GET', path('app', 'w1', '/agent/status'))).body).toBeNull();
    const reactivated = await call(bridgeUrl(), 'POST', path('app', 'w1', '/activate'), undefined, auth());
    expect(reactivated.text).toBe('{"ok":true}');
    expect((await call(bridgeUrl(), 'GET', path('app', 'w1'), undefined, auth())).body).toMatchObject({
      state: 'active',
    });
    expect((await call(bridgeUrl(), 'POST', path('app', 'w1', '/deactivate'), undefined, auth())).status).toBe(200);
  });
});
