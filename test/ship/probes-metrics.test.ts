// `svc ship` as a real process with SVC_BRIDGE_TOKEN and SVC_METRICS_PORT (issue #20): /healthz and /readyz
// answer without a credential; /readyz turns 503 naming `tmux` while the tmux server's socket is gone (and
// 200 again once SIGUSR1 makes tmux recreate it) and naming `fleet-directory` while the fleet directory is a
// file; /metrics needs the bridge token on the main port and, after real requests, a clone, an activation
// and a terminal with a resync, holds the ship's families with route-pattern labels and no repo or
// workspace name; the metrics port serves /metrics without a credential and nothing else, behind the Host
// guard; the probes never reach the request log while other requests do.
import { execFileSync } from 'node:child_process';
import { realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, rawCall, removeRoot } from '../helpers/ship.js';
import { until } from '../helpers/poll.js';
import { killFleetTmux, startShipCli, type RunningCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { connectTerminal, terminalUrl } from '../helpers/terminal.js';
import { expectMetricsPortOnly, loggedPaths, sample } from '../helpers/metrics.js';
import { tmuxSocketFor } from '../../ship/server.js';

const TOKEN = 'probe-test-bridge-token';
const auth = { authorization: `Bearer ${TOKEN}` };
// Names no metric label may ever carry.
const REPO = 'zebrarepo';
const WORKSPACE = 'quokkaspace';

let root: string;
let fleet: string;
let remote: RemoteFixture;
let ship: RunningCli;
let url: string;
let metricsUrl: string;

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  fleet = join(root, 'fleet');
  const [port, metricsPort] = [await freePort(), await freePort()];
  ship = await startShipCli(fleet, port, 'probed', {
    SVC_BRIDGE_TOKEN: TOKEN,
    SVC_METRICS_PORT: String(metricsPort),
    SVC_LOG_LEVEL: 'info',
  });
  url = `http://localhost:${port}`;
  metricsUrl = `http://localhost:${metricsPort}`;
}, 60_000);

afterAll(async () => {
  await ship?.stop('SIGTERM');
  await killFleetTmux(fleet);
  await removeRoot(root);
});

describe('ship probes and metrics', () => {
  it("answers /healthz and /readyz without a credential, with a kubelet's Host (the pod IP) and no Origin", async () => {
    expect(await call(url, 'GET', '/healthz')).toMatchObject({ status: 200, body: { ok: true } });
    expect(await call(url, 'GET', '/readyz')).toMatchObject({ status: 200, body: { ok: true } });
    // fetch sends its own Host; a kubelet's is the pod IP and port.
    expect(await rawCall(url, 'GET', '/readyz', { host: '10.1.2.3:4700' })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    // The other routes still need the token, /metrics among them.
    expect(await call(url, 'GET', '/workspaces')).toMatchObject({
      status: 401,
      body: { error: 'authentication required' },
    });
    expect(await call(url, 'GET', '/metrics')).toMatchObject({
      status: 401,
      body: { error: 'authentication required' },
    });
  });

  it('counts requests by route pattern, git, terminal frames and resyncs, sockets and workspaces, never by name', async () => {
    expect(
      (
        await call(
          url,
          'POST',
          '/workspaces',
          { url: remote.url, repoName: REPO, name: WORKSPACE, branch: 'main' },
          auth,
        )
      ).status,
    ).toBe(201);
    expect((await call(url, 'GET', path(REPO, WORKSPACE), undefined, auth)).status).toBe(200);
    expect((await call(url, 'POST', path(REPO, WORKSPACE, '/activate'), undefined, auth)).status).toBe(200);
    expect((await call(url, 'GET', `/no/such/${WORKSPACE}`, undefined, auth)).status).toBe(404);
    const terminal = await connectTerminal(terminalUrl(url, REPO, WORKSPACE), { headers: auth });
    try {
      await terminal.waitForFrames(1);
      const grids = () => terminal.frames.filter((frame) => frame.type === 'grid').length;
      const before = grids();
      terminal.send({ type: 'resync' });
      await until(async () => grids() > before, 'the grid answering the resync');

      const reply = await call(url, 'GET', '/metrics', undefined, auth);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = reply.text;
      const requests = (route: string, status: string, method = 'GET') =>
        sample(text, 'svc_ship_http_request_duration_seconds_count', { method, route, status });
      expect(requests('/workspaces', '201', 'POST')).toBe(1);
      expect(requests('/workspaces/:repo/:name', '200')).toBe(1);
      expect(requests('/workspaces/:repo/:name/activate', '200', 'POST')).toBe(1);
      expect(requests('unmatched', '404')).toBe(1);
      expect(requests('/healthz', '200')).toBe(1);
      expect(requests('/readyz', '200')).toBe(2);
      expect(sample(text, 'svc_ship_websocket_connections', { kind: 'terminal' })).toBe(1);
      expect(sample(text, 'svc_ship_websocket_connections', { kind: 'events' })).toBe(0);
      expect(sample(text, 'svc_ship_workspaces', { state: 'active' })).toBe(1);
      expect(sample(text, 'svc_ship_workspaces', { state: 'inactive' })).toBe(0);
      expect(sample(text, 'svc_ship_git_spawns_total', { command: 'clone', result: 'ok' })).toBe(1);
      expect(sample(text, 'svc_ship_git_duration_seconds_count', { command: 'clone' })).toBe(1);
      expect(sample(text, 'svc_ship_terminal_frames_total', { type: 'grid' })).toBeGreaterThanOrEqual(2);
      expect(sample(text, 'svc_ship_terminal_resyncs_total')).toBe(1);
      expect(sample(text, 'svc_ship_process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(text).not.toContain(REPO);
      expect(text).not.toContain(WORKSPACE);
    } finally {
      await terminal.close();
    }
  }, 60_000);

  it('serves only /metrics on the metrics port, without a credential, behind the Host and Origin guard', async () => {
    const text = await expectMetricsPortOnly(metricsUrl, ['/healthz', '/readyz', '/', '/workspaces']);
    expect(
      sample(text, 'svc_ship_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/workspaces',
        status: '201',
      }),
    ).toBe(1);
  });

  it("is unready naming tmux while its server's socket is gone, and ready again once tmux recreates it", async () => {
    const socketName = tmuxSocketFor(realpathSync(fleet));
    const [socketPath, pid] = execFileSync(
      'tmux',
      ['-L', socketName, 'display-message', '-p', '-t', '=svc-control', '#{socket_path} #{pid}'],
      { encoding: 'utf8' },
    )
      .trim()
      .split(' ');
    rmSync(socketPath!);
    try {
      const reply = await call(url, 'GET', '/readyz');
      expect(reply.status).toBe(503);
      expect(reply.body).toEqual({
        ok: false,
        failing: 'tmux',
        error: expect.stringMatching(/^the tmux server does not answer: /),
      });
      // Alive all along: only readiness changed.
      expect(await call(url, 'GET', '/healthz')).toMatchObject({ status: 200, body: { ok: true } });
    } finally {
      process.kill(Number(pid), 'SIGUSR1'); // tmux: recreate the server socket
    }
    // tmux recreates its socket on its own loop: ready again once it has.
    await until(async () => (await call(url, 'GET', '/readyz')).status === 200, 'the tmux socket recreated', 10_000);
    expect(await call(url, 'GET', '/readyz')).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('is unready naming the fleet directory while a file stands in its place, and ready again once it is back', async () => {
    const real = realpathSync(fleet);
    const aside = `${real}-aside`;
    renameSync(real, aside);
    writeFileSync(real, 'not a directory\n');
    try {
      expect(await call(url, 'GET', '/readyz')).toMatchObject({
        status: 503,
        body: { ok: false, failing: 'fleet-directory', error: 'the fleet directory is not writable (ENOTDIR)' },
      });
    } finally {
      rmSync(real);
      renameSync(aside, real);
    }
    expect(await call(url, 'GET', '/readyz')).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('keeps the probes out of the request log, which records the other requests', async () => {
    await ship.stop('SIGTERM');
    const logged = loggedPaths(ship.output());
    expect(logged).toContain('/workspaces');
    expect(logged).toContain('/metrics');
    expect(logged.filter((path) => path === '/healthz' || path === '/readyz')).toEqual([]);
  });
});
