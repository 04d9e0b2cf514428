// The operator's bridge client (issue #19) against a real authenticating bridge on PostgreSQL, a real
// insecure bridge, and small stand-ins for what can sit in front of one (a proxy answering 502/503 or a
// redirect, a socket that never answers): credentials from the environment, one login shared by concurrent
// calls, exactly one re-login on 401, the typed errors, and a session token that never reaches a log line.
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import {
  BridgeClient,
  BridgeRefused,
  BridgeUnauthorized,
  BridgeUnavailable,
  bridgeCredentialsFromEnv,
  type BridgeClientOptions,
  type BridgeCredentials,
} from '../../operator/bridge-client.js';
import { postgresSchema } from '../helpers/databases.js';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';
import { freePort } from '../helpers/ports.js';
import { ADMIN, hasPostgres } from './reconcile-harness.js';

let root: string;
let bridge: Bridge;
let insecure: Bridge;
let dropSchema: () => Promise<void>;
let rootToken: string;
const servers: (Server | TcpServer)[] = [];
const sockets = new Set<import('node:net').Socket>();

/** A fetch that records what was sent, for counting logins and finding the session token. */
function recordingFetch() {
  const sent: { method: string; path: string; authorization?: string }[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    sent.push({
      method: init?.method ?? 'GET',
      path: new URL(String(input)).pathname,
      authorization: headers.get('authorization') ?? undefined,
    });
    return fetch(input, init);
  };
  return { sent, fetcher };
}

function client(
  credentials: BridgeCredentials,
  options: { url?: string; timeoutMs?: number; readLoginSecret?: BridgeClientOptions['readLoginSecret'] } = {},
) {
  const lines: string[] = [];
  const { sent, fetcher } = recordingFetch();
  const instance = new BridgeClient({
    url: options.url ?? bridge.url,
    credentials,
    timeoutMs: options.timeoutMs,
    fetch: fetcher,
    logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }),
    readLoginSecret: options.readLoginSecret,
  });
  return { instance, sent, lines };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

async function listen(server: Server | TcpServer): Promise<string> {
  servers.push(server);
  server.on('connection', (socket: import('node:net').Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe.skipIf(!hasPostgres)('operator bridge client', () => {
  beforeAll(async () => {
    root = await makeTempRoot('svc-test-bridge-client-');
    const schema = await postgresSchema();
    dropSchema = schema.drop;
    bridge = await startBridge({
      port: 0,
      dataDirectory: join(root, 'bridge'),
      databaseUrl: schema.url,
      logger: pino({ level: 'silent' }),
      firstAdmin: async () => ({ ...ADMIN }),
      sweepIntervalMs: 0,
    });
    insecure = await startBridge({
      port: 0,
      dataDirectory: join(root, 'insecure'),
      insecureNoAuth: true,
      banner: { write: () => {} },
      logger: pino({ level: 'silent' }),
      sweepIntervalMs: 0,
    });
    rootToken = (await call(bridge.url, 'POST', '/auth/login', { username: ADMIN.username, password: ADMIN.password }))
      .body.token;
  }, 60_000);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await bridge?.close();
    await insecure?.close();
    await dropSchema?.();
    await removeRoot(root);
  });

  it('reads its credentials from the environment: username and password, else SVC_TOKEN, else none; half a pair is an error', () => {
    expect(
      bridgeCredentialsFromEnv({ SVC_OPERATOR_USERNAME: 'op', SVC_OPERATOR_PASSWORD: 'pw', SVC_TOKEN: 't' }),
    ).toEqual({ kind: 'login', username: 'op', password: 'pw' });
    expect(bridgeCredentialsFromEnv({ SVC_TOKEN: 't' })).toEqual({ kind: 'token', token: 't' });
    expect(bridgeCredentialsFromEnv({ SVC_OPERATOR_ADMIN_SECRET: 'svc-admin', SVC_TOKEN: 't' })).toEqual({
      kind: 'secret',
      secret: 'svc-admin',
    });
    expect(bridgeCredentialsFromEnv({})).toEqual({ kind: 'none' });
    expect(() => bridgeCredentialsFromEnv({ SVC_OPERATOR_USERNAME: 'op' })).toThrow(
      'set both SVC_OPERATOR_USERNAME and SVC_OPERATOR_PASSWORD, or neither',
    );
  });

  it('logs in once for concurrent calls, returns typed results, and never logs the session token', async () => {
    const { instance, sent, lines } = client({ kind: 'login', username: ADMIN.username, password: ADMIN.password });
    const [ships, repos] = await Promise.all([instance.listShips(), instance.listRepos(), instance.listShips()]);
    expect(ships).toEqual([]);
    expect(repos).toEqual([]);
    expect(sent.filter((request) => request.path === '/auth/login')).toHaveLength(1);
    const session = sent.find((request) => request.authorization)!.authorization!.replace('Bearer ', '');
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await instance.registerRepo({ name: 'client-repo', url: 'https://example.com/c.git' })).toEqual({
      name: 'client-repo',
      url: 'https://example.com/c.git',
      provider: 'custom',
    });
    expect(await instance.deregisterRepo('client-repo')).toBe('removed');
    expect(await instance.deregisterRepo('client-repo')).toBe('absent');
    expect(await instance.deregisterShip('nobody')).toBe('absent');
    const text = lines.join('');
    expect(text).toContain('logged in to the bridge');
    expect(text).toContain('"route":"/repos/:name"');
    expect(text).not.toContain(session);
    expect(text).not.toContain(ADMIN.password);
  });

  it('a revoked session is replaced by exactly one fresh login; a login refused is BridgeUnauthorized', async () => {
    const password = 'operator-user-password-1';
    const create = () =>
      call(
        bridge.url,
        'POST',
        '/users',
        { username: 'op', email: 'op@example.com', password, role: 'admin' },
        { authorization: `Bearer ${rootToken}` },
      );
    expect((await create()).status).toBe(201);
    const { instance, sent } = client({ kind: 'login', username: 'op', password });
    await instance.listShips();
    // Deleting the user revokes its sessions; the same user made again accepts the password, not the old session.
    expect(
      (await call(bridge.url, 'DELETE', '/users/op', undefined, { authorization: `Bearer ${rootToken}` })).status,
    ).toBe(200);
    expect((await create()).status).toBe(201);
    await instance.listShips();
    expect(sent.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /auth/login',
      'GET /ships',
      'GET /ships',
      'POST /auth/login',
      'GET /ships',
    ]);

    const wrong = client({ kind: 'login', username: 'op', password: 'not-the-password-1' });
    const refused = await rejection(wrong.instance.listShips());
    expect(refused).toBeInstanceOf(BridgeUnauthorized);
    expect(refused.message).toBe('the bridge refused the operator\'s login as "op": invalid username or password');
    expect(refused.message).not.toContain('not-the-password-1');
  });

  it('with SVC_OPERATOR_ADMIN_SECRET it logs in with the pair read from that Secret at each login: absent is BridgeUnavailable, a changed password is read again', async () => {
    const secrets = new Map<string, { username: string; password: string }>();
    const asked: string[] = [];
    const readLoginSecret = async (name: string) => {
      asked.push(name);
      return secrets.get(name);
    };
    const { instance, sent, lines } = client({ kind: 'secret', secret: 'svc-admin' }, { readLoginSecret });
    // First start: the operator has not created the chart's first-admin Secret yet.
    const early = await rejection(instance.listShips());
    expect(early).toBeInstanceOf(BridgeUnavailable);
    expect(early.message).toBe("the operator's login Secret svc-admin is absent or lacks username and password");
    expect(sent).toEqual([]);
    const password = 'secret-held-password-1';
    const create = () =>
      call(
        bridge.url,
        'POST',
        '/users',
        { username: 'from-secret', email: 'fs@example.com', password, role: 'admin' },
        { authorization: `Bearer ${rootToken}` },
      );
    expect((await create()).status).toBe(201);
    secrets.set('svc-admin', { username: 'from-secret', password });
    expect(await instance.listShips()).toEqual([]);
    // The user is made again with another password and the Secret follows: the re-login after the 401 reads it.
    expect(
      (await call(bridge.url, 'DELETE', '/users/from-secret', undefined, { authorization: `Bearer ${rootToken}` }))
        .status,
    ).toBe(200);
    const changed = 'secret-held-password-2';
    expect(
      (
        await call(
          bridge.url,
          'POST',
          '/users',
          { username: 'from-secret', email: 'fs@example.com', password: changed, role: 'admin' },
          { authorization: `Bearer ${rootToken}` },
        )
      ).status,
    ).toBe(201);
    secrets.set('svc-admin', { username: 'from-secret', password: changed });
    expect(await instance.listRepos()).toEqual([]);
    expect(sent.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /auth/login',
      'GET /ships',
      'GET /repos',
      'POST /auth/login',
      'GET /repos',
    ]);
    expect(asked).toEqual(['svc-admin', 'svc-admin', 'svc-admin']);
    expect(lines.join('')).not.toContain(password);
    expect(lines.join('')).not.toContain(changed);
  });

  it('403 for a member and 401 for a bad SVC_TOKEN or no credential are BridgeUnauthorized, with no login attempted for a token', async () => {
    expect(
      (
        await call(
          bridge.url,
          'POST',
          '/users',
          { username: 'member1', email: 'm@example.com', password: 'member-password-1' },
          { authorization: `Bearer ${rootToken}` },
        )
      ).status,
    ).toBe(201);
    const member = client({ kind: 'login', username: 'member1', password: 'member-password-1' });
    const forbidden = await rejection(member.instance.registerShip({ url: 'http://127.0.0.1:1' }));
    expect(forbidden).toBeInstanceOf(BridgeUnauthorized);
    expect((forbidden as BridgeUnauthorized).status).toBe(403);
    expect(forbidden.message).toContain('it needs an admin');

    const token = client({ kind: 'token', token: 'not-a-session' });
    const badToken = await rejection(token.instance.listShips());
    expect(badToken).toBeInstanceOf(BridgeUnauthorized);
    expect(badToken.message).toMatch(/^the bridge refused SVC_TOKEN/);
    expect(token.sent.map((request) => request.path)).toEqual(['/ships']);

    const none = await rejection(client({ kind: 'none' }).instance.listShips());
    expect(none).toBeInstanceOf(BridgeUnauthorized);
    expect(none.message).toContain('set SVC_OPERATOR_USERNAME and SVC_OPERATOR_PASSWORD');
  });

  it('needs no credential against an --insecure-no-auth bridge', async () => {
    const { instance, sent } = client({ kind: 'none' }, { url: insecure.url });
    expect(await instance.listShips()).toEqual([]);
    expect(sent.every((request) => request.authorization === undefined)).toBe(true);
  });

  it('POST /ships verdicts are BridgeRefused: 502 for a ship that does not answer, 400 for half a token pair', async () => {
    const { instance } = client({ kind: 'login', username: ADMIN.username, password: ADMIN.password });
    const unreachable = await rejection(instance.registerShip({ url: 'http://127.0.0.1:9' }));
    expect(unreachable).toBeInstanceOf(BridgeRefused);
    expect((unreachable as BridgeRefused).status).toBe(502);
    expect(unreachable.message).toMatch(/^ship at http:\/\/127\.0\.0\.1:9 did not respond: /);
    const half = await rejection(instance.registerShip({ url: 'http://127.0.0.1:9', shipToken: 'only-one' }));
    expect(half).toMatchObject({
      status: 400,
      detail: 'a ship is registered with both a shipToken and a bridgeToken, or neither',
    });
  });

  it("nothing listening, a silent socket, a proxy's 502/503 and a redirect are BridgeUnavailable", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const refused = await rejection(client({ kind: 'none' }, { url: closed }).instance.listShips());
    expect(refused).toBeInstanceOf(BridgeUnavailable);
    expect(refused.message).toBe(`cannot reach the bridge at ${closed} (ECONNREFUSED)`);

    const silent = await listen(createTcpServer(() => {}));
    const started = Date.now();
    const timedOut = await rejection(client({ kind: 'none' }, { url: silent, timeoutMs: 200 }).instance.listShips());
    expect(timedOut).toBeInstanceOf(BridgeUnavailable);
    expect(timedOut.message).toBe(`cannot reach the bridge at ${silent} (timed out)`);
    expect(Date.now() - started).toBeLessThan(2_000);

    const proxy = await listen(
      createServer((request, response) => {
        if (request.url === '/redirect/ships') {
          response.writeHead(307, { location: 'http://elsewhere.example/ships' });
          response.end();
          return;
        }
        response.writeHead(request.method === 'POST' ? 502 : 503, { 'content-type': 'text/html' });
        response.end('<html>Bad Gateway</html>');
      }),
    );
    const unavailable = await rejection(client({ kind: 'none' }, { url: proxy }).instance.listShips());
    expect(unavailable).toBeInstanceOf(BridgeUnavailable);
    expect((unavailable as BridgeUnavailable).status).toBe(503);
    // A 502 without the bridge's {error} body is a proxy's, not the bridge's verdict on the ship.
    const proxy502 = await rejection(
      client({ kind: 'none' }, { url: proxy }).instance.registerShip({ url: 'http://x' }),
    );
    expect(proxy502).toBeInstanceOf(BridgeUnavailable);
    const redirected = await rejection(client({ kind: 'none' }, { url: `${proxy}/redirect` }).instance.listShips());
    expect(redirected).toBeInstanceOf(BridgeUnavailable);
    expect(redirected.message).toContain('a redirect, not followed');
  });
});
