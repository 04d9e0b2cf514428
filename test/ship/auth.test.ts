// The ship's request guard: SVC_BRIDGE_TOKEN, workspace MCP tokens reaching only their own /mcp route,
// and the browser guards (foreign Origin, cross-site fetch, DNS rebinding on an open ship). The ships are
// built without a socket (test/helpers/ship-app.ts) on real fleets; the guard at the WebSocket handshake is
// tested on listening ships in auth-upgrade.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote } from '../helpers/git-fixtures.js';
import { makeTempRoot, path, removeRoot } from '../helpers/ship.js';
import { buildTestShip, type TestShipApp } from '../helpers/ship-app.js';
import { sessionName } from '../../ship/sessions/session-names.js';

const BRIDGE_TOKEN = 'sentinel-bridge-token-0123456789abcdef';
let root: string;
let ship: TestShipApp;
let open: TestShipApp;
const auth = { authorization: `Bearer ${BRIDGE_TOKEN}` };

beforeAll(async () => {
  root = await makeTempRoot();
  const remote = makeRemote(root);
  ship = await buildTestShip(root, { bridgeToken: BRIDGE_TOKEN, fleetDirectory: `${root}/fleet-auth` });
  open = await buildTestShip(root, { fleetDirectory: `${root}/fleet-open` });
  for (const name of ['a', 'b']) {
    expect(
      (await ship.inject('POST', '/workspaces', { url: remote.url, repoName: 'r', name, branch: 'main' }, auth)).status,
    ).toBe(201);
    expect((await ship.inject('POST', path('r', name, '/activate'), undefined, auth)).status).toBe(200);
  }
});
afterAll(async () => {
  await ship?.close();
  await open?.close();
  await removeRoot(root);
});

const mcpToken = async (name: string) =>
  (await ship.services.tmux.sessionVariables(sessionName('r', name))).SVC_MCP_TOKEN ?? null;

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
      expect(await ship.inject(method, url)).toMatchObject({
        status: 401,
        body: { error: 'authentication required' },
      });
      expect((await ship.inject(method, url, undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await ship.inject(method, url, undefined, { authorization: BRIDGE_TOKEN })).status).toBe(401);
    }
    expect((await ship.inject('GET', path('r', 'a'))).status).toBe(401);
    expect((await ship.inject('GET', path('r', 'a'), undefined, auth)).body.state).toBe('active');
  });

  it('accepts the bridge token on every route, with any case of "Bearer"', async () => {
    expect((await ship.inject('GET', '/workspaces', undefined, auth)).status).toBe(200);
    expect(
      (await ship.inject('GET', '/workspaces', undefined, { authorization: `bearer ${BRIDGE_TOKEN}` })).status,
    ).toBe(200);
    expect(
      (await ship.inject('POST', '/agent/credentials', { bridgeUrl: 'http://localhost:4800', token: 't' }, auth)).body,
    ).toEqual({ ok: true });
  });

  it('a workspace MCP token reaches only GET/POST/DELETE of its own /mcp route', async () => {
    const tokenA = (await mcpToken('a'))!;
    const bearerA = { authorization: `Bearer ${tokenA}` };
    expect(tokenA).toBeTruthy();
    // Past the guard: the MCP route itself is not served yet, so the router answers 404, never 401.
    for (const method of ['GET', 'POST', 'DELETE']) {
      expect((await ship.inject(method, path('r', 'a', '/mcp'), undefined, bearerA)).status).not.toBe(401);
    }
    expect((await ship.inject('PUT', path('r', 'a', '/mcp'), undefined, bearerA)).status).toBe(401);
    expect((await ship.inject('POST', path('r', 'b', '/mcp'), undefined, bearerA)).status).toBe(401);
    expect((await ship.inject('GET', path('r', 'a'), undefined, bearerA)).status).toBe(401);
    expect((await ship.inject('GET', '/workspaces', undefined, bearerA)).status).toBe(401);
    expect((await ship.inject('POST', '/agent/credentials', { bridgeUrl: 'x', token: 'y' }, bearerA)).status).toBe(401);
    expect((await ship.inject('GET', path('r', 'a', '/mcp/extra'), undefined, bearerA)).status).toBe(401);
  });

  it('deactivation unbinds the token at once', async () => {
    const tokenB = (await mcpToken('b'))!;
    await ship.inject('POST', path('r', 'b', '/deactivate'), undefined, auth);
    expect(
      (await ship.inject('POST', path('r', 'b', '/mcp'), undefined, { authorization: `Bearer ${tokenB}` })).status,
    ).toBe(401);
    await ship.inject('POST', path('r', 'b', '/activate'), undefined, auth);
    const fresh = await mcpToken('b');
    expect(fresh).not.toBe(tokenB);
  });
});

describe('browser guards', () => {
  it('refuses a foreign Origin and a cross-site fetch with 403, before anything runs', async () => {
    await open.inject('POST', '/workspaces', {
      url: 'file:///nonexistent',
      repoName: 'x',
      name: 'y',
      branch: 'main',
    });
    const evil = await open.inject('POST', path('x', 'y', '/activate'), undefined, {
      origin: 'http://evil.example',
    });
    expect(evil.status).toBe(403);
    expect((await open.inject('GET', '/workspaces', undefined, { origin: 'null' })).status).toBe(403);
    expect((await open.inject('GET', '/workspaces', undefined, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const own = { host: 'localhost:4700', origin: 'http://localhost:4700' };
    expect((await open.inject('GET', '/workspaces', undefined, own)).status).toBe(200);
  });

  it('an open ship refuses Host names that are not loopback, IP literals or configured (DNS rebinding: 421)', async () => {
    expect((await open.inject('GET', '/workspaces', undefined, { host: 'rebind.evil.example:4700' })).status).toBe(421);
    expect((await open.inject('GET', '/workspaces', undefined, { host: 'localhost:4700' })).status).toBe(200);
    expect((await open.inject('GET', '/workspaces', undefined, { host: '127.0.0.1' })).status).toBe(200);
    expect((await open.inject('GET', '/workspaces', undefined, { host: '[::1]:4700' })).status).toBe(200);
    // With a token the Host does not matter: the credential is what protects.
    expect((await ship.inject('GET', '/workspaces', undefined, { host: 'ship.internal:4700', ...auth })).status).toBe(
      200,
    );
  });
});
