// Ship/bridge token pairs and ship-agent tokens end to end, over real HTTP and WebSockets between a real
// bridge and a real ship that enforces SVC_BRIDGE_TOKEN: half a pair is 400, a bridge without the ship's
// token is refused, with it every call, the event stream and the terminal proxy work; the agent token is
// pushed, works only on /repos, rotates on reconnect and dies with the ship. Stored forms as the spec says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { pino } from 'pino';
import { startBridge } from '../../bridge/server.js';
import { insecureBridge } from '../helpers/bridge.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { connectTerminal } from '../helpers/terminal.js';
import { tokenHash } from '../../server/tokens.js';
import { ADMIN, startAuthBridge, type AuthHarness } from './harness.js';
import { until } from '../helpers/poll.js';

const SHIP_TOKEN = 'sentinel-ship-token-Zq8u2WcE1JtT0aVfX4mNnR7yLpB3sKdGh6oQ';
const BRIDGE_TOKEN = 'sentinel-bridge-token-Pd9vK2hWmF5xS1qYbR8tN3cJ6uLzA0eGo4iT';

let root: string;
let h: AuthHarness;
let ship: TestShip;
let admin: string;

beforeAll(async () => {
  root = await makeTempRoot();
  h = await startAuthBridge(root);
  admin = await h.login(ADMIN.username, ADMIN.password);
  ship = await startTestShip(root, { name: 'guarded', bridgeToken: BRIDGE_TOKEN });
}, 60_000);

afterAll(async () => {
  await h?.bridge.close();
  await ship?.stop();
  await removeRoot(root);
});

describe('ship token pairs', () => {
  it('are both given or neither', async () => {
    for (const half of [{ shipToken: SHIP_TOKEN }, { bridgeToken: BRIDGE_TOKEN }]) {
      expect(await h.as(admin, 'POST', '/ships', { url: ship.url, ...half })).toMatchObject({
        status: 400,
        body: { error: 'a ship is registered with both a shipToken and a bridgeToken, or neither' },
      });
    }
  });

  it("keep a bridge without the ship's token out", async () => {
    const reply = await h.as(admin, 'POST', '/ships', { url: ship.url });
    expect(reply).toMatchObject({
      status: 502,
      body: { error: `ship at ${ship.url} did not respond: the ship answered HTTP 401 to the event stream` },
    });
    expect((await h.as(admin, 'GET', '/ships')).body).toEqual([]);
  });

  it('let the bridge route calls, events and terminals to a ship that requires its token', async () => {
    expect(
      (await h.as(admin, 'POST', '/ships', { url: ship.url, shipToken: SHIP_TOKEN, bridgeToken: BRIDGE_TOKEN })).status,
    ).toBe(201);
    expect((await h.as(admin, 'GET', '/ships')).body).toEqual([{ name: 'guarded', url: ship.url, status: 'online' }]);
    const remote = makeRemote(root);
    expect((await h.as(admin, 'POST', '/repos', { name: 'app', url: remote.url })).status).toBe(201);
    expect(
      (await h.as(admin, 'POST', '/workspaces', { ship: 'guarded', repoName: 'app', name: 'w1', branch: 'main' }))
        .status,
    ).toBe(201);
    expect((await h.as(admin, 'POST', path('app', 'w1', '/activate'))).status).toBe(200);
    expect((await h.as(admin, 'GET', path('app', 'w1'))).body).toMatchObject({
      name: 'w1',
      state: 'active',
      ship: 'guarded',
    });
    const owned = h
      .logs()
      .split('\n')
      .filter((line) => line.includes('"audit":"ownership"'))
      .map((line) => JSON.parse(line));
    expect(owned.map((entry) => [entry.key, entry.from, entry.to])).toEqual([['app/w1', null, 'guarded']]);

    const { ticket } = (await h.as(admin, 'POST', '/auth/ws-ticket')).body;
    h.secrets.add(ticket);
    const terminal = await connectTerminal(
      `${h.bridge.url.replace(/^http/, 'ws')}${path('app', 'w1', '/terminal')}?ticket=${ticket}`,
    );
    await terminal.until((screen) => /[$#] ?$/m.test(screen.text()));
    terminal.input('echo through-$((6*7))\r');
    await terminal.until((screen) => screen.text().includes('through-42'));
    await terminal.close();
  });

  it('store the ship token as its sha256 and the bridge token in clear', async () => {
    const rows = (
      await h.bridge.store.db.query<{ ship_token_hash: string; bridge_token: string }>(
        'SELECT ship_token_hash, bridge_token FROM ships',
      )
    ).rows;
    expect(rows).toEqual([{ ship_token_hash: tokenHash(SHIP_TOKEN), bridge_token: BRIDGE_TOKEN }]);
  });

  it('let the ship token reach only the armory', async () => {
    expect((await h.as(SHIP_TOKEN, 'GET', '/workspaces')).status).toBe(403);
    expect((await h.as(SHIP_TOKEN, 'GET', '/repos')).status).toBe(403);
  });
});

describe('ship-agent tokens', () => {
  it('are pushed to the ship with the bridge URL, stored hashed, and reach /repos only', async () => {
    const pushed = await until(() => ship.ship.bridgeCredentials.get(), 'agent credentials', 5000);
    h.secrets.add(pushed.token);
    expect(pushed.bridgeUrl).toBe(h.bridge.publicUrl);
    const stored = (await h.bridge.store.db.query<{ token_hash: string }>('SELECT token_hash FROM agent_tokens')).rows;
    expect(stored).toEqual([{ token_hash: tokenHash(pushed.token) }]);
    expect((await h.as(pushed.token, 'GET', '/repos')).status).toBe(200);
    expect(
      (await h.as(pushed.token, 'POST', '/repos', { name: 'agent-made', url: 'https://example.com/a.git' })).status,
    ).toBe(201);
    expect((await h.as(pushed.token, 'DELETE', '/repos/agent-made')).status).toBe(200);
    expect((await h.as(pushed.token, 'GET', '/workspaces')).body).toEqual({
      error: 'a ship-agent credential may not reach GET /workspaces',
    });
    // Every /repos write is audited with its principal (a compromised ship could re-point a repo).
    const audit = h
      .logs()
      .split('\n')
      .filter((line) => line.includes('"audit":"repo.'))
      .map((line) => JSON.parse(line));
    expect(audit.map((entry) => [entry.audit, entry.principal, entry.repo])).toEqual([
      ['repo.create', 'user:root', 'app'],
      ['repo.create', 'ship-agent:guarded', 'agent-made'],
      ['repo.delete', 'ship-agent:guarded', 'agent-made'],
    ]);
  });

  it('rotate when the ship reconnects, revoking the old one', async () => {
    const before = ship.ship.bridgeCredentials.get()!.token;
    h.bridge.registry.get('guarded')!.connection.lost();
    const after = await until(
      () => {
        const current = ship.ship.bridgeCredentials.get()!.token;
        return current !== before ? current : null;
      },
      'a rotated agent token',
      10_000,
    );
    h.secrets.add(after);
    expect((await h.as(before, 'GET', '/repos')).status).toBe(401);
    expect((await h.as(after, 'GET', '/repos')).status).toBe(200);
  });

  it('die with the ship, as does its ship token', async () => {
    const token = ship.ship.bridgeCredentials.get()!.token;
    expect((await h.as(admin, 'DELETE', '/ships/guarded')).status).toBe(200);
    expect((await h.as(token, 'GET', '/repos')).status).toBe(401);
    expect((await h.as(SHIP_TOKEN, 'GET', '/workspaces')).status).toBe(401);
  });
});

describe('logs', () => {
  it('never show a password or a token handled in this suite', () => {
    for (const secret of [SHIP_TOKEN, BRIDGE_TOKEN]) h.secrets.add(secret);
    const logs = h.logs();
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of h.secrets) expect(logs).not.toContain(secret);
  });
});

describe('a bridge without authentication', () => {
  it('is still refused by a ship that holds a bridge token', async () => {
    const insecure = await startBridge({
      ...insecureBridge,
      port: 0,
      dataDirectory: `${root}/insecure`,
      logger: pino({ level: 'silent' }),
    });
    try {
      const reply = await call(insecure.url, 'POST', '/ships', { url: ship.url });
      expect(reply).toMatchObject({
        status: 502,
        body: { error: `ship at ${ship.url} did not respond: the ship answered HTTP 401 to the event stream` },
      });
    } finally {
      await insecure.close();
    }
  });
});
