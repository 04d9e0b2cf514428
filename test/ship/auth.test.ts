// The ship's request guard: SVC_BRIDGE_TOKEN, workspace MCP tokens reaching only their own /mcp route,
// and the browser guards (foreign Origin, cross-site fetch, DNS rebinding on an open ship).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { makeRemote } from '../helpers/git-fixtures.js';
import { connectEvents } from '../helpers/events.js';
import { call, makeTempRoot, path, rawCall, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { sessionName } from '../../ship/sessions/session-names.js';

const BRIDGE_TOKEN = 'sentinel-bridge-token-0123456789abcdef';
let root: string;
let ship: TestShip;
let open: TestShip;
const auth = { authorization: `Bearer ${BRIDGE_TOKEN}` };

beforeAll(async () => {
  root = await makeTempRoot();
  const remote = makeRemote(root);
  ship = await startTestShip(root, { bridgeToken: BRIDGE_TOKEN, fleetDirectory: `${root}/fleet-auth` });
  open = await startTestShip(root, { fleetDirectory: `${root}/fleet-open` });
  for (const name of ['a', 'b']) {
    expect(
      (await call(ship.url, 'POST', '/workspaces', { url: remote.url, repoName: 'r', name, branch: 'main' }, auth))
        .status,
    ).toBe(201);
    expect((await call(ship.url, 'POST', path('r', name, '/activate'), undefined, auth)).status).toBe(200);
  }
});
afterAll(async () => {
  await ship.stop();
  await open.stop();
  await removeRoot(root);
});

const mcpToken = async (name: string) =>
  (await ship.ship.tmux.sessionVariables(sessionName('r', name))).SVC_MCP_TOKEN ?? null;

describe('ship authentication (SVC_BRIDGE_TOKEN set)', () => {
  it('refuses every route without a credential or with a wrong one: 401, unknown paths included', async () => {
    for (const [method, url] of [
      ['GET', '/workspaces'],
      ['GET', path('r', 'a')],
      ['POST', path('r', 'a', '/deactivate')],
      ['GET', '/system-resources'],
      ['POST', '/agent/credentials'],
      ['GET', '/no/such/route'],
    ] as const) {
      expect(await call(ship.url, method, url)).toMatchObject({
        status: 401,
        body: { error: 'authentication required' },
      });
      expect((await call(ship.url, method, url, undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await call(ship.url, method, url, undefined, { authorization: BRIDGE_TOKEN })).status).toBe(401);
    }
    expect((await call(ship.url, 'GET', path('r', 'a'))).status).toBe(401);
    expect((await call(ship.url, 'GET', path('r', 'a'), undefined, auth)).body.state).toBe('active');
  });

  it('accepts the bridge token on every route, with any case of "Bearer"', async () => {
    expect((await call(ship.url, 'GET', '/workspaces', undefined, auth)).status).toBe(200);
    expect(
      (await call(ship.url, 'GET', '/workspaces', undefined, { authorization: `bearer ${BRIDGE_TOKEN}` })).status,
    ).toBe(200);
    expect(
      (await call(ship.url, 'POST', '/agent/credentials', { bridgeUrl: 'http://localhost:4800', token: 't' }, auth))
        .body,
    ).toEqual({ ok: true });
  });

  it('refuses the event socket upgrade without the token and accepts it with', async () => {
    await expect(connectEvents(ship.url)).rejects.toThrow(/401/);
    const events = await connectEvents(ship.url, auth);
    const [sync] = await events.waitFor(1);
    expect(sync.type).toBe('sync');
    await events.close();
  });

  it('a workspace MCP token reaches only GET/POST/DELETE of its own /mcp route', async () => {
    const tokenA = (await mcpToken('a'))!;
    const bearerA = { authorization: `Bearer ${tokenA}` };
    expect(tokenA).toBeTruthy();
    // Past the guard: the MCP route itself is not served yet, so the router answers 404, never 401.
    for (const method of ['GET', 'POST', 'DELETE']) {
      expect((await call(ship.url, method, path('r', 'a', '/mcp'), undefined, bearerA)).status).not.toBe(401);
    }
    expect((await call(ship.url, 'PUT', path('r', 'a', '/mcp'), undefined, bearerA)).status).toBe(401);
    expect((await call(ship.url, 'POST', path('r', 'b', '/mcp'), undefined, bearerA)).status).toBe(401);
    expect((await call(ship.url, 'GET', path('r', 'a'), undefined, bearerA)).status).toBe(401);
    expect((await call(ship.url, 'GET', '/workspaces', undefined, bearerA)).status).toBe(401);
    expect((await call(ship.url, 'POST', '/agent/credentials', { bridgeUrl: 'x', token: 'y' }, bearerA)).status).toBe(
      401,
    );
    expect((await call(ship.url, 'GET', path('r', 'a', '/mcp/extra'), undefined, bearerA)).status).toBe(401);
  });

  it('deactivation unbinds the token at once', async () => {
    const tokenB = (await mcpToken('b'))!;
    await call(ship.url, 'POST', path('r', 'b', '/deactivate'), undefined, auth);
    expect(
      (await call(ship.url, 'POST', path('r', 'b', '/mcp'), undefined, { authorization: `Bearer ${tokenB}` })).status,
    ).toBe(401);
    await call(ship.url, 'POST', path('r', 'b', '/activate'), undefined, auth);
    const fresh = await mcpToken('b');
    expect(fresh).not.toBe(tokenB);
  });
});

describe('browser guards', () => {
  it('refuses a foreign Origin and a cross-site fetch with 403, before anything runs', async () => {
    await call(open.url, 'POST', '/workspaces', {
      url: 'file:///nonexistent',
      repoName: 'x',
      name: 'y',
      branch: 'main',
    });
    const evil = await call(open.url, 'POST', path('x', 'y', '/activate'), undefined, {
      origin: 'http://evil.example',
    });
    expect(evil.status).toBe(403);
    expect((await call(open.url, 'GET', '/workspaces', undefined, { origin: 'null' })).status).toBe(403);
    expect((await call(open.url, 'GET', '/workspaces', undefined, { 'sec-fetch-site': 'cross-site' })).status).toBe(
      403,
    );
    const own = new URL(open.url);
    expect((await call(open.url, 'GET', '/workspaces', undefined, { origin: `http://${own.host}` })).status).toBe(200);
  });

  it('refuses a WebSocket upgrade from a foreign Origin before the 101', async () => {
    const socket = new WebSocket(`${open.url.replace('http', 'ws')}/events`, { origin: 'http://evil.example' });
    const status = await new Promise<number>((resolve) => {
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('open', () => resolve(101));
      socket.on('error', () => undefined);
    });
    expect(status).toBe(403);
    socket.terminate();
  });

  it('an open ship refuses Host names that are not loopback, IP literals or configured (DNS rebinding: 421)', async () => {
    expect((await rawCall(open.url, 'GET', '/workspaces', { host: 'rebind.evil.example:4700' })).status).toBe(421);
    expect((await rawCall(open.url, 'GET', '/workspaces', { host: 'localhost:4700' })).status).toBe(200);
    expect((await rawCall(open.url, 'GET', '/workspaces', { host: '127.0.0.1' })).status).toBe(200);
    expect((await rawCall(open.url, 'GET', '/workspaces', { host: '[::1]:4700' })).status).toBe(200);
    // With a token the Host does not matter: the credential is what protects.
    expect((await rawCall(ship.url, 'GET', '/workspaces', { host: 'ship.internal:4700', ...auth })).status).toBe(200);
  });
});
