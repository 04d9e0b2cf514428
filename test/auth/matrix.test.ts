// The authorization matrix: every bridge route × {no credential, garbage, expired session, member, admin,
// ship token, agent token} → the status the spec's principal rules give, in one table. The route list is
// the bridge's own, so a route added without a row here fails the first test. Requests are chosen to be
// harmless and deterministic for whoever is let through (a 404, a 422, or a read). The bridge is built without
// a socket (test/auth/app-harness.ts) on a real store; the ship whose credentials it checks is a real one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { until } from '../helpers/poll.js';
import { ADMIN } from './harness.js';
import { buildAuthApp, type AuthApp } from './app-harness.js';
import { SESSION_LIFETIME_MS } from '../../protocol/index.js';

type Credential = 'none' | 'garbage' | 'expired' | 'member' | 'admin' | 'ship' | 'agent';
type Access = 'open' | 'user' | 'admin' | 'self-or-admin' | 'user-or-ship' | 'user-or-agent';

interface Row {
  route: string;
  access: Access;
  request: { method: string; path: string; body?: unknown };
  /** What a principal that is let through gets. */
  passes: number;
}

const row = (route: string, access: Access, path: string, passes: number, body?: unknown): Row => ({
  route,
  access,
  request: { method: route.split(' ')[0]!, path, body },
  passes,
});

const ROWS: Row[] = [
  row('POST /auth/login', 'open', '/auth/login', 422, {}),
  row('GET /auth/mode', 'open', '/auth/mode', 200),
  row('GET /openapi.json', 'open', '/openapi.json', 200),
  row('GET /healthz', 'open', '/healthz', 200),
  row('GET /readyz', 'open', '/readyz', 200),
  // The GUI (docs/architecture.md §7): its static files and the redirects to them are open; `npm test` builds dist/web.
  row('GET /', 'open', '/', 302),
  row('GET /ui', 'open', '/ui', 302),
  row('GET /ui/*', 'open', '/ui/workspaces', 200),
  row('GET /metrics', 'user', '/metrics', 200),
  row('GET /auth/me', 'user', '/auth/me', 200),
  row('POST /auth/ws-ticket', 'user', '/auth/ws-ticket', 200),
  row('GET /users', 'admin', '/users', 200),
  row('POST /users', 'admin', '/users', 422, {}),
  row('DELETE /users/:name', 'admin', '/users/nobody', 404),
  row('POST /users/:name/role', 'admin', '/users/nobody/role', 422, {}),
  row('POST /users/:name/password', 'self-or-admin', '/users/member/password', 422, {}),
  row('POST /users/:name/email', 'self-or-admin', '/users/member/email', 422, {}),
  row('GET /repos', 'user-or-agent', '/repos', 200),
  row('POST /repos', 'user-or-agent', '/repos', 422, {}),
  row('DELETE /repos/:name', 'user-or-agent', '/repos/nope', 404),
  row('GET /repos/:name/branches', 'user-or-agent', '/repos/nope/branches', 404),
  row('GET /repos/:name/info', 'user-or-agent', '/repos/nope/info', 404),
  row('GET /repos/:name/issues', 'user-or-agent', '/repos/nope/issues', 404),
  row('GET /repos/:name/issues/:number', 'user-or-agent', '/repos/nope/issues/1', 404),
  row('POST /repos/:name/issues/:number/comments', 'user-or-agent', '/repos/nope/issues/1/comments', 422, {}),
  row('GET /repos/:name/pulls', 'user-or-agent', '/repos/nope/pulls', 404),
  row('GET /repos/:name/pulls/:number', 'user-or-agent', '/repos/nope/pulls/1', 404),
  row('POST /repos/:name/pulls/:number/comments', 'user-or-agent', '/repos/nope/pulls/1/comments', 422, {}),
  row('POST /repos/:name/pulls/:number/reviews', 'user-or-agent', '/repos/nope/pulls/1/reviews', 422, {}),
  row('GET /repos/:name/checks', 'user-or-agent', '/repos/nope/checks', 404),
  row('GET /repos/:name/checks/logs', 'user-or-agent', '/repos/nope/checks/logs', 404),
  row('GET /ships', 'user', '/ships', 200),
  row('POST /ships', 'admin', '/ships', 422, {}),
  row('DELETE /ships/:name', 'admin', '/ships/nope', 404),
  row('POST /ships/:name/drain-report', 'admin', '/ships/nope/drain-report', 200, { workspaces: [], scanned: 0 }),
  row('GET /ships/:ship/system-resources', 'user', '/ships/nope/system-resources', 400),
  row('GET /system-resources', 'user', '/system-resources', 200),
  row('GET /armory', 'user-or-ship', '/armory', 200),
  row('GET /armory/file', 'user-or-ship', '/armory/file?path=skills/none.md', 404),
  row('GET /armory/ships', 'user', '/armory/ships', 200),
  row('GET /workspaces', 'user', '/workspaces', 200),
  row('GET /workspaces/agent-history', 'user', '/workspaces/agent-history', 200),
  row('GET /workspaces/:repo/:name', 'user', '/workspaces/r/n', 404),
  row('GET /workspaces/:repo/:name/diff', 'user', '/workspaces/r/n/diff', 404),
  row('POST /workspaces', 'user', '/workspaces', 422, {}),
  row('POST /workspaces/sweep', 'user', '/workspaces/sweep', 200),
  row('POST /workspaces/:repo/:name/branch', 'user', '/workspaces/r/n/branch', 422, {}),
  row('POST /workspaces/:repo/:name/activate', 'user', '/workspaces/r/n/activate', 404),
  row('POST /workspaces/:repo/:name/deactivate', 'user', '/workspaces/r/n/deactivate', 404),
  row('POST /workspaces/:repo/:name/input', 'user', '/workspaces/r/n/input', 404, { text: 'x' }),
  row('DELETE /workspaces/:repo/:name', 'user', '/workspaces/r/n', 404),
  // WebSocket routes reached with a plain GET: let through, then not found as HTTP (upgrades: lifecycle suite).
  row('GET /events', 'user', '/events', 404),
  row('GET /workspaces/:repo/:name/terminal', 'user', '/workspaces/r/n/terminal', 404),
  // Last: it revokes the session it is given.
  row('POST /auth/logout', 'open', '/auth/logout', 200),
];

const UNKNOWN: Row[] = [
  row('GET /no/such/route', 'user', '/no/such/route', 404),
  row('DELETE /repos/x/y/z', 'user-or-agent', '/repos/x/y/z', 404),
];

const CREDENTIALS: Credential[] = ['none', 'garbage', 'expired', 'ship', 'agent', 'member', 'admin'];

function expected(access: Access, credential: Credential, passes: number): { status: number; error?: string } {
  if (access === 'open') return { status: passes };
  if (credential === 'none' || credential === 'garbage' || credential === 'expired')
    return { status: 401, error: 'authentication required' };
  if (credential === 'ship') return access === 'user-or-ship' ? { status: passes } : { status: 403 };
  if (credential === 'agent') return access === 'user-or-agent' ? { status: passes } : { status: 403 };
  if (credential === 'member' && access === 'admin') return { status: 403, error: 'this endpoint requires an admin' };
  return { status: passes };
}

let root: string;
let harness: AuthApp;
let ship: TestShip;
const tokens: Record<Credential, string | null> = {
  none: null,
  garbage: 'not-a-token-anyone-issued',
  expired: '',
  member: '',
  admin: '',
  ship: '',
  agent: '',
};

const as: AuthApp['as'] = (...call) => harness.as(...call);
const login: AuthApp['login'] = (...call) => harness.login(...call);

beforeAll(async () => {
  root = await makeTempRoot();
  harness = await buildAuthApp(root);
  const firstAdmin = await login(ADMIN.username, ADMIN.password);
  const member = await harness.addUser(firstAdmin, 'member');
  const old = await harness.addUser(firstAdmin, 'old');
  tokens.expired = await login(old.username, old.password);
  harness.clock.now += SESSION_LIFETIME_MS;
  tokens.admin = await login(ADMIN.username, ADMIN.password);
  tokens.member = await login(member.username, member.password);

  ship = await startTestShip(root, { name: 'matrix-ship', bridgeToken: 'bridge-token-for-matrix-ship' });
  tokens.ship = 'ship-token-for-matrix-ship';
  const registered = await as(tokens.admin, 'POST', '/ships', {
    url: ship.url,
    shipToken: tokens.ship,
    bridgeToken: 'bridge-token-for-matrix-ship',
  });
  expect(registered.status).toBe(201);
  tokens.agent = (await until(async () => ship.ship.bridgeCredentials.get() ?? null, 'agent credentials', 5000)).token;
}, 60_000);

afterAll(async () => {
  await harness?.bridge.close();
  await ship?.stop();
  await removeRoot(root);
});

describe('authorization matrix', () => {
  it('has a row for every route the bridge serves, and none for a route it does not', () => {
    expect(harness.bridge.routes.map((route) => `${route.method} ${route.url}`).sort()).toEqual(
      ROWS.map((r) => r.route).sort(),
    );
  });

  for (const entry of [...ROWS.slice(0, -1), ...UNKNOWN, ROWS.at(-1)!]) {
    it(`${entry.route}`, async () => {
      const cells: Record<string, unknown> = {};
      const wanted: Record<string, unknown> = {};
      for (const credential of CREDENTIALS) {
        const token = tokens[credential];
        // The GUI's redirects are answered, not followed.
        const reply = await as(token, entry.request.method, entry.request.path, entry.request.body);
        const want = expected(entry.access, credential, entry.passes);
        cells[credential] = want.error ? { status: reply.status, error: reply.body?.error } : reply.status;
        wanted[credential] = want.error ? { status: want.status, error: want.error } : want.status;
      }
      expect(cells).toEqual(wanted);
    });
  }
});

describe('guard details', () => {
  beforeAll(async () => {
    // The matrix's last row logged both users out.
    tokens.admin = await login(ADMIN.username, ADMIN.password);
    tokens.member = await login('member', 'member-password-1');
  });

  it('names the credential kind and the request in a 403', async () => {
    expect((await as(tokens.ship, 'GET', '/workspaces')).body).toEqual({
      error: 'a ship credential may not reach GET /workspaces',
    });
    expect((await as(tokens.agent, 'POST', '/workspaces', {})).body).toEqual({
      error: 'a ship-agent credential may not reach POST /workspaces',
    });
  });

  it('lets a member change only their own account, whether the other user exists or not', async () => {
    for (const name of [ADMIN.username, 'no-such-user']) {
      for (const field of ['password', 'email']) {
        const reply = await as(tokens.member, 'POST', `/users/${name}/${field}`, {
          [field]: 'whatever@example.com',
        });
        expect(reply).toMatchObject({ status: 403, body: { error: 'you may only change your own account' } });
      }
    }
    const own = await as(tokens.member, 'POST', '/users/MEMBER/email', { email: 'member-new@example.com' });
    expect(own).toMatchObject({ status: 200, body: { username: 'member', email: 'member-new@example.com' } });
  });

  it('judges the route fastify matched, so an encoded path is gated like the plain one', async () => {
    expect(await as(tokens.member, 'GET', '/%75sers')).toMatchObject({
      status: 403,
      body: { error: 'this endpoint requires an admin' },
    });
    expect(await as(null, 'GET', '/%75sers')).toMatchObject({ status: 401 });
  });

  it('accepts the scheme in any case, and refuses two Authorization headers or an oversized token', async () => {
    expect((await as(null, 'GET', '/auth/me', undefined, { authorization: `bearer ${tokens.admin}` })).status).toBe(
      200,
    );
    // Two header lines (inject reflects an array as two raw headers; node would keep only one in `headers`).
    const twice = (
      await as(null, 'GET', '/auth/me', undefined, {
        authorization: [`Bearer ${tokens.admin}`, `Bearer ${tokens.member}`],
      })
    ).status;
    expect([400, 401]).toContain(twice); // never answered as either user
    expect(
      (await as(null, 'GET', '/auth/me', undefined, { authorization: `Bearer ${'x'.repeat(10_000)}` })).status,
    ).toBe(401);
  });
});
