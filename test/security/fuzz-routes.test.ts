// Property-based fuzzing of every HTTP route of a ship and of an (insecure) bridge, with bodies, queries and
// path parameters derived from each route's own schema: no answer is a 5xx (except the two the spec names for
// such input, see specifiedServerError), nothing crashes, and every 4xx body is `{error}` or the 422 shape.
import fc from 'fast-check';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../protocol/index.js';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { FREE_FAILURES_PER_ADDRESS } from '../../bridge/auth/login-backoff.js';
import { call, makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { insecureBridge } from '../helpers/bridge.js';
import { arbitraryFor, hostileString } from '../helpers/schema-arbitrary.js';

let root: string;
let ship: TestShip;
let bridge: Bridge;

beforeAll(async () => {
  root = await makeTempRoot();
  ship = await startTestShip(root, { name: 'fuzzed', allowLocalRepos: false });
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
    registrationProbeMs: 300,
    branchProbe: { stallSeconds: 1, deadlineMs: 1000 },
    allowLocalRepos: false,
  });
  await fetch(`${bridge.url}/ships`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: ship.url }),
  });
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await ship?.stop();
  await removeRoot(root);
});

/**
 * encodeURIComponent, or for a lone surrogate (which it refuses) the bytes Node would send for it. A value of
 * `.` or `..` has its dots escaped: as a bare path segment the URL parser removes it (`/repos/../pulls/..` is
 * `/`), so the request would never name the route; `%2E%2E` reaches it as the parameter `..`.
 */
const encodePart = (value: string) => {
  if (value === '.' || value === '..') return value.replaceAll('.', '%2E');
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
  }
};

interface Sent {
  method: string;
  path: string;
  body?: unknown;
}

function requestFor(route: RouteInfo): fc.Arbitrary<Sent> {
  const names = [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  return fc
    .record({
      params: fc.tuple(...names.map(() => hostileString())),
      query: route.schema?.querystring ? arbitraryFor(route.schema.querystring) : fc.constant(undefined),
      body: route.schema?.body ? arbitraryFor(route.schema.body) : fc.constant(undefined),
    })
    .map(({ params, query, body }) => {
      let index = 0;
      let path = route.url.replace(/:(\w+)/g, () => encodePart(params[index++] as string) || '%20');
      if (query && typeof query === 'object' && !Array.isArray(query)) {
        const search = new URLSearchParams();
        for (const [key, value] of Object.entries(query))
          for (const item of [value].flat())
            search.append(key, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
        if (search.size) path += `?${search}`;
      }
      return { method: route.method, path, body: route.method === 'GET' ? undefined : body };
    });
}

async function send(base: string, sent: Sent): Promise<{ status: number; body: unknown }> {
  const reply = await call(base, sent.method, sent.path, sent.body);
  return { status: reply.status, body: reply.body ?? reply.text };
}

const errorShaped = (body: unknown) =>
  !!body &&
  typeof body === 'object' &&
  (typeof (body as { error?: unknown }).error === 'string' ||
    (typeof (body as { message?: unknown }).message === 'string' &&
      Array.isArray((body as { issues?: unknown }).issues)));

/**
 * The 5xx answers the spec and DESIGN name for input a fuzzer can produce: a clone that fails (500 on
 * create), a branch listing of a registered repo whose remote git cannot reach (502), and a forge route of a
 * registered repo whose provider svc does not support (501). An earlier fuzzed `POST /repos` may have
 * registered a repo, with any provider, under the very name a later route asks for.
 */
function specifiedServerError(route: RouteInfo, answer: { status: number; body: unknown }) {
  const message = String((answer.body as { error?: string } | undefined)?.error);
  if (route.url.startsWith('/repos/:name/') && answer.status === 501)
    return /^provider ".*" is not supported yet$/s.test(message);
  if (route.method === 'POST' && route.url === '/workspaces')
    return answer.status === 500 && /^git clone of /.test(message);
  if (route.method === 'GET' && route.url === '/repos/:name/branches')
    return answer.status === 502 && /^could not list branches for repo "/.test(message);
  return false;
}

/**
 * Runs per route. Login stays within the client address's free failures, one kept for the regression test
 * below: past them every attempt from 127.0.0.1 waits 1 s, doubling, by design (tested in
 * login-backoff.test.ts), and a fuzzer that trips it only measures the sleep.
 */
function runsFor(route: RouteInfo) {
  const runs = Number(process.env.SVC_FUZZ_RUNS ?? 25);
  return route.url === '/auth/login' ? Math.min(runs, FREE_FAILURES_PER_ADDRESS - 1) : runs;
}

function fuzz(target: () => { base: string; routes: readonly RouteInfo[] }, skip: (route: RouteInfo) => boolean) {
  return async () => {
    const { base, routes } = target();
    const fuzzed = routes.filter((route) => !skip(route));
    expect(fuzzed.length).toBeGreaterThan(5);
    for (const route of fuzzed) {
      await fc.assert(
        fc.asyncProperty(requestFor(route), async (sent) => {
          const answer = await send(base, sent);
          if (answer.status >= 500 && !specifiedServerError(route, answer))
            throw new Error(
              `${sent.method} ${sent.path} ${JSON.stringify(sent.body)} → ${answer.status} ${JSON.stringify(answer.body)}`,
            );
          if (answer.status >= 400 && !errorShaped(answer.body))
            throw new Error(`${sent.method} ${sent.path} → ${answer.status} with body ${JSON.stringify(answer.body)}`);
        }),
        { numRuns: runsFor(route) },
      );
    }
  };
}

// WebSocket routes and the armory push (which would fetch from whatever URL it is given) are fuzzed elsewhere.
const notHttp = (route: RouteInfo) =>
  route.url.endsWith('/terminal') ||
  route.url === '/events' ||
  route.url.endsWith('/mcp') ||
  route.url === '/armory/sync';

describe('fuzzing every route', () => {
  it(
    'on the ship',
    fuzz(() => ({ base: ship.url, routes: ship.ship.routeCatalog }), notHttp),
    120_000,
  );
  // The GUI's static files and redirects (bridge/http/gui.ts) take no input: test/web covers them.
  const gui = (route: RouteInfo) => route.url === '/' || route.url === '/ui' || route.url.startsWith('/ui/');
  it(
    'on the bridge',
    fuzz(
      () => ({ base: bridge.url, routes: bridge.routeCatalog }),
      (route) => notHttp(route) || gui(route) || route.url === '/ships',
    ),
    120_000,
  );
});

describe('regressions found by fuzzing', () => {
  it('a NUL in a login name is an unknown user, and a NUL bound for the database is a 400', async () => {
    expect(
      await send(bridge.url, { method: 'POST', path: '/auth/login', body: { username: '\u0000', password: '' } }),
    ).toMatchObject({ status: 401 });
    expect(
      await send(bridge.url, {
        method: 'POST',
        path: '/repos',
        body: { name: 'nul', url: 'https://example.com/a\u0000b.git' },
      }),
    ).toMatchObject({
      status: 400,
    });
  });
});
