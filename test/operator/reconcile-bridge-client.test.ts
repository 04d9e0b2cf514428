// The operator's bridge client (issue #19) against a real authenticating bridge on PostgreSQL, a real
// insecure bridge, and small stand-ins for what can sit in front of one (a proxy answering 502/503 or a
// redirect, a socket that never answers): credentials from the environment, one login shared by concurrent
// calls, exactly one re-login on 401, each failure a RequestFailed of the right kind, and a session token that
// never reaches a log line. What the client sends is recorded by a pass-through proxy in front of the bridge.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { BridgeClient, type BridgeClientOptions } from '../../operator/bridge-client.js';
import { type BridgeCredentials, bridgeCredentialsFromEnv } from '../../operator/bridge-login.js';
import { RequestFailed } from '../../server/request-failed.js';
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

interface Sent {
  method: string;
  path: string;
  authorization?: string;
}

/** A pass-through proxy to `target` that records what was sent, for counting logins and finding the session token. */
async function recordingProxy(target: string): Promise<{ url: string; sent: Sent[] }> {
  const sent: Sent[] = [];
  const url = await listen(
    createServer((request, response) => {
      sent.push({
        method: request.method ?? 'GET',
        path: new URL(request.url ?? '/', target).pathname,
        authorization: request.headers.authorization,
      });
      const upstream = httpRequest(
        target + request.url,
        { method: request.method, headers: request.headers, agent: false },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.destroy());
      request.pipe(upstream);
    }),
  );
  return { url, sent };
}

/**
 * A client of `options.url` (default: the authenticating bridge) through a recording proxy, or straight to
 * it with `direct` (for the failures, where a proxy would answer in its place).
 */
async function client(
  credentials: BridgeCredentials,
  options: {
    url?: string;
    direct?: boolean;
    timeoutMs?: number;
    readLoginSecret?: BridgeClientOptions['readLoginSecret'];
  } = {},
) {
  const lines: string[] = [];
  const target = options.url ?? bridge.url;
  const { url, sent } = options.direct ? { url: target, sent: [] as Sent[] } : await recordingProxy(target);
  const instance = new BridgeClient({
    url,
    credentials,
    timeoutMs: options.timeoutMs,
    logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }),
    readLoginSecret: options.readLoginSecret,
  });
  return { instance, sent, lines };
}

/** What kind of failure `error` is: a RequestFailed's kind and status. */
function failure(error: Error): Pick<RequestFailed, 'kind' | 'status'> {
  expect(error).toBeInstanceOf(RequestFailed);
  const { kind, status } = error as RequestFailed;
  return { kind, status };
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
    const { instance, sent, lines } = await client({
      kind: 'login',
      username: ADMIN.username,
      password: ADMIN.password,
    });
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

  it('a revoked session is replaced by exactly one fresh login; a login refused is unauthorized', async () => {
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
    const { instance, sent } = await client({ kind: 'login', username: 'op', password });
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

    const wrong = await client({ kind: 'login', username: 'op', password: 'not-the-password-1' });
    const refused = await rejection(wrong.instance.listShips());
    expect(failure(refused)).toEqual({ kind: 'unauthorized', status: 401 });
    expect(refused.message).toBe('the bridge refused the operator\'s login as "op": invalid username or password');
    expect(refused.message).not.toContain('not-the-password-1');
  });

  it('with SVC_OPERATOR_ADMIN_SECRET it logs in with the pair read from that Secret at each login: absent is unavailable, a changed password is read again', async () => {
    const secrets = new Map<string, { username: string; password: string }>();
    const asked: string[] = [];
    const readLoginSecret = async (name: string) => {
      asked.push(name);
      return secrets.get(name);
    };
    const { instance, sent, lines } = await client({ kind: 'secret', secret: 'svc-admin' }, { readLoginSecret });
    // First start: the operator has not created the chart's first-admin Secret yet.
    const early = await rejection(instance.listShips());
    expect(failure(early)).toEqual({ kind: 'unavailable', status: undefined });
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

  it('403 for a member and 401 for a bad SVC_TOKEN or no credential are unauthorized, with no login attempted for a token', async () => {
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
    const member = await client({ kind: 'login', username: 'member1', password: 'member-password-1' });
    const forbidden = await rejection(member.instance.registerShip({ url: 'http://127.0.0.1:1' }));
    expect(failure(forbidden)).toEqual({ kind: 'unauthorized', status: 403 });
    expect(forbidden.message).toContain('it needs an admin');

    const token = await client({ kind: 'token', token: 'not-a-session' });
    const badToken = await rejection(token.instance.listShips());
    expect(failure(badToken)).toEqual({ kind: 'unauthorized', status: 401 });
    expect(badToken.message).toMatch(/^the bridge refused SVC_TOKEN/);
    expect(token.sent.map((request) => request.path)).toEqual(['/ships']);

    const none = await rejection((await client({ kind: 'none' })).instance.listShips());
    expect(failure(none)).toEqual({ kind: 'unauthorized', status: 401 });
    expect(none.message).toContain('set SVC_OPERATOR_USERNAME and SVC_OPERATOR_PASSWORD');
  });

  it('needs no credential against an --insecure-no-auth bridge', async () => {
    const { instance, sent } = await client({ kind: 'none' }, { url: insecure.url });
    expect(await instance.listShips()).toEqual([]);
    expect(sent.every((request) => request.authorization === undefined)).toBe(true);
  });

  it('POST /ships verdicts are refusals: 502 for a ship that does not answer, 400 for half a token pair', async () => {
    const { instance } = await client({ kind: 'login', username: ADMIN.username, password: ADMIN.password });
    const unreachable = await rejection(instance.registerShip({ url: 'http://127.0.0.1:9' }));
    expect(failure(unreachable)).toEqual({ kind: 'refused', status: 502 });
    expect(unreachable.message).toMatch(/^ship at http:\/\/127\.0\.0\.1:9 did not respond: /);
    const half = await rejection(instance.registerShip({ url: 'http://127.0.0.1:9', shipToken: 'only-one' }));
    expect(half).toMatchObject({
      kind: 'refused',
      status: 400,
      detail: 'a ship is registered with both a shipToken and a bridgeToken, or neither',
    });
  });

  it("nothing listening, a silent socket, a proxy's 502/503 and a redirect are unavailable, a timeout a timeout", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const refused = await rejection(
      (await client({ kind: 'none' }, { url: closed, direct: true })).instance.listShips(),
    );
    expect(failure(refused)).toEqual({ kind: 'unavailable', status: undefined });
    expect(refused.message).toBe(`cannot reach the bridge at ${closed} (ECONNREFUSED)`);

    const silent = await listen(createTcpServer(() => {}));
    const started = Date.now();
    const timedOut = await rejection(
      (await client({ kind: 'none' }, { url: silent, direct: true, timeoutMs: 200 })).instance.listShips(),
    );
    expect(failure(timedOut)).toEqual({ kind: 'timeout', status: undefined });
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
    const unavailable = await rejection(
      (await client({ kind: 'none' }, { url: proxy, direct: true })).instance.listShips(),
    );
    expect(failure(unavailable)).toEqual({ kind: 'unavailable', status: 503 });
    // A 502 without the bridge's {error} body is a proxy's, not the bridge's verdict on the ship.
    const proxy502 = await rejection(
      (await client({ kind: 'none' }, { url: proxy, direct: true })).instance.registerShip({ url: 'http://x' }),
    );
    expect(failure(proxy502)).toEqual({ kind: 'unavailable', status: 502 });
    const redirected = await rejection(
      (await client({ kind: 'none' }, { url: `${proxy}/redirect`, direct: true })).instance.listShips(),
    );
    expect(failure(redirected)).toEqual({ kind: 'unavailable', status: 307 });
    expect(redirected.message).toContain('a redirect, not followed');
  });
});
