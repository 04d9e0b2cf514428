// `svc bridge` as a real process on PostgreSQL (reached through a TCP proxy the test can cut), with a real
// `svc ship` registered, `--metrics-port` and the first admin from the environment (issue #20): /healthz and
// /readyz answer without a credential; /readyz turns 503 naming `migrations` while the latest migration's
// record is missing and `store` once the store is unreachable, while /healthz stays 200; /metrics is 401
// without a credential and 200 with one, and after real requests (a failed login, a ship registered, a repo,
// a create relayed to an /events subscriber, a branch listing, an unknown path) holds the bridge's families
// with route-pattern labels and no ship, repo, workspace or user name; the metrics port serves /metrics
// without a credential and nothing else; the probes never reach the request log while other requests do.
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, rawCall, removeRoot } from '../helpers/ship.js';
import { killFleetTmux, startCli, startShipCli, type RunningCli } from '../helpers/cli.js';
import { postgresSchema } from '../helpers/databases.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { freePort } from '../helpers/ports.js';
import { connectEvents, type EventClient } from '../helpers/events.js';
import { until } from '../helpers/poll.js';
import { expectMetricsPortOnly, loggedPaths, sample } from '../helpers/metrics.js';

const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) {
  if (process.env.CI === 'true') throw new Error('the bridge probe test needs TEST_DATABASE_URL');
  console.warn('\n*** bridge probe test SKIPPED: TEST_DATABASE_URL is not set. ***\n');
}

const ADMIN = { username: 'probeadmin', password: 'probe-admin-password-8Kd1' };
// Names no metric label may ever carry.
const SHIP = 'narwhalship';
const REPO = 'zebrarepo';
const WORKSPACE = 'quokkaspace';

describe.skipIf(!postgresUrl)('bridge probes and metrics', () => {
  let root: string;
  let remote: RemoteFixture;
  let schema: { url: string; drop(): Promise<void> };
  let proxy: FaultProxy;
  let ship: RunningCli;
  let bridge: RunningCli;
  let url: string;
  let metricsUrl: string;
  let auth: Record<string, string>;
  let events: EventClient | undefined;

  beforeAll(async () => {
    root = await makeTempRoot();
    remote = makeRemote(root);
    schema = await postgresSchema();
    const direct = new URL(schema.url);
    proxy = await FaultProxy.start(Number(direct.port || 5432));
    const proxied = new URL(schema.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const [shipPort, port, metricsPort] = [await freePort(), await freePort(), await freePort()];
    ship = await startShipCli(join(root, 'fleet'), shipPort, SHIP);
    bridge = startCli(
      [
        'bridge',
        '--port',
        String(port),
        '--data-directory',
        join(root, 'bridge-data'),
        '--database-url',
        proxied.toString(),
        '--metrics-port',
        String(metricsPort),
      ],
      {
        SVC_BRIDGE_ADMIN_USER: ADMIN.username,
        SVC_BRIDGE_ADMIN_EMAIL: 'probeadmin@example.com',
        SVC_BRIDGE_ADMIN_PASSWORD: ADMIN.password,
        SVC_INSECURE_NO_AUTH: undefined,
        SVC_DATABASE_URL: undefined,
        SVC_METRICS_PORT: undefined,
        SVC_LOG_LEVEL: 'info',
      },
    );
    await bridge.waitFor('bridge listening on');
    url = `http://localhost:${port}`;
    metricsUrl = `http://localhost:${metricsPort}`;
    const login = await call(url, 'POST', '/auth/login', ADMIN);
    auth = { authorization: `Bearer ${login.body.token as string}` };
    expect((await call(url, 'POST', '/ships', { url: `http://localhost:${shipPort}` }, auth)).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await events?.close();
    await bridge?.stop('SIGTERM');
    await ship?.stop('SIGTERM');
    await proxy?.close();
    await schema?.drop();
    await killFleetTmux(join(root, 'fleet'));
    await removeRoot(root);
  });

  it("answers /healthz and /readyz without a credential, with a kubelet's Host (the pod IP) and no Origin", async () => {
    expect(await call(url, 'GET', '/healthz')).toMatchObject({ status: 200, body: { ok: true } });
    expect(await call(url, 'GET', '/readyz')).toMatchObject({ status: 200, body: { ok: true } });
    // fetch sends its own Host; a kubelet's is the pod IP and port.
    expect(await rawCall(url, 'GET', '/healthz', { host: '10.1.2.3:4800' })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
  });

  it('needs a credential for /metrics on the main port', async () => {
    expect(await call(url, 'GET', '/metrics')).toMatchObject({
      status: 401,
      body: { error: 'authentication required' },
    });
    expect(await call(url, 'GET', '/metrics', undefined, { authorization: 'Bearer not-a-token' })).toMatchObject({
      status: 401,
      body: { error: 'authentication required' },
    });
    const reply = await call(url, 'GET', '/metrics', undefined, auth);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('counts requests by route pattern, sockets, ships, workspaces, relayed events, store queries and login failures, never by name', async () => {
    expect(
      (await call(url, 'POST', '/auth/login', { username: ADMIN.username, password: 'wrong-password-for-probe' }))
        .status,
    ).toBe(401);
    expect((await call(url, 'POST', '/repos', { name: REPO, url: remote.url }, auth)).status).toBe(201);
    events = await connectEvents(url, auth);
    await events.waitFor(1);
    expect(
      (await call(url, 'POST', '/workspaces', { ship: SHIP, repoName: REPO, name: WORKSPACE, branch: 'main' }, auth))
        .status,
    ).toBe(201);
    await until(
      async () => events!.events.some((event) => event.type === 'workspace.created'),
      'workspace.created on /events',
    );
    expect((await call(url, 'GET', `/repos/${REPO}/branches`, undefined, auth)).status).toBe(200);
    expect((await call(url, 'GET', `/no/such/${WORKSPACE}`, undefined, auth)).status).toBe(404);

    const text = (await call(url, 'GET', '/metrics', undefined, auth)).text;
    const requests = (method: string, route: string, status: string) =>
      sample(text, 'svc_bridge_http_request_duration_seconds_count', { method, route, status });
    expect(requests('POST', '/auth/login', '401')).toBe(1);
    expect(requests('POST', '/ships', '201')).toBe(1);
    expect(requests('POST', '/workspaces', '201')).toBe(1);
    expect(requests('GET', '/repos/:name/branches', '200')).toBe(1);
    expect(requests('GET', 'unmatched', '404')).toBe(1);
    expect(requests('GET', '/metrics', '401')).toBe(2);
    expect(sample(text, 'svc_bridge_login_failures_total')).toBe(1);
    expect(sample(text, 'svc_bridge_ships', { status: 'online' })).toBe(1);
    expect(sample(text, 'svc_bridge_ships', { status: 'offline' })).toBe(0);
    expect(sample(text, 'svc_bridge_workspaces', { state: 'inactive' })).toBe(1);
    expect(sample(text, 'svc_bridge_workspaces', { state: 'active' })).toBe(0);
    expect(sample(text, 'svc_bridge_websocket_connections', { kind: 'events' })).toBe(1);
    expect(sample(text, 'svc_bridge_websocket_connections', { kind: 'terminal' })).toBe(0);
    expect(sample(text, 'svc_bridge_websocket_connections', { kind: 'ship' })).toBe(1);
    expect(sample(text, 'svc_bridge_events_relayed_total', { type: 'workspace.created' })).toBe(1);
    expect(sample(text, 'svc_bridge_event_subscribers_dropped_total')).toBe(0);
    expect(sample(text, 'svc_bridge_store_query_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    expect(sample(text, 'svc_bridge_process_resident_memory_bytes')).toBeGreaterThan(0);
    for (const name of [SHIP, REPO, WORKSPACE, ADMIN.username]) expect(text).not.toContain(name);
  }, 60_000);

  it('serves only /metrics on the metrics port, without a credential, behind the Host and Origin guard', async () => {
    const text = await expectMetricsPortOnly(metricsUrl, ['/healthz', '/readyz', '/auth/mode', '/workspaces']);
    expect(
      sample(text, 'svc_bridge_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/workspaces',
        status: '201',
      }),
    ).toBe(1);
  });

  it('is unready naming migrations while the latest migration is not recorded, and naming the store once it is unreachable', async () => {
    const admin = new pg.Client({ connectionString: schema.url });
    await admin.connect();
    try {
      const removed = await admin.query<{ version: number; name: string }>(
        'DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations) RETURNING version, name',
      );
      const { version, name } = removed.rows[0]!;
      try {
        expect(await call(url, 'GET', '/readyz')).toMatchObject({
          status: 503,
          body: { ok: false, failing: 'migrations', error: `not applied: ${version} (${name})` },
        });
      } finally {
        await admin.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, name]);
      }
      expect(await call(url, 'GET', '/readyz')).toMatchObject({ status: 200, body: { ok: true } });
    } finally {
      await admin.end();
    }

    await proxy.close();
    const reply = await call(url, 'GET', '/readyz');
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual({ ok: false, failing: 'store', error: expect.any(String) });
    expect(reply.body.error).not.toBe('');
    expect(await call(url, 'GET', '/healthz')).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('keeps the probes out of the request log, which records the other requests', async () => {
    await events?.close();
    events = undefined;
    await bridge.stop('SIGTERM');
    const logged = loggedPaths(bridge.output());
    expect(logged).toContain('/workspaces');
    expect(logged).toContain('/metrics');
    expect(logged.filter((path) => path === '/healthz' || path === '/readyz')).toEqual([]);
  });
});
