// The operator AS IT RUNS (issue #19, "Operator end to end", "kubectl black-box" and "Faults"): `npx svc
// operator` as a process, KUBECONFIG the fake API server's, --bridge-url a real authenticating bridge on real
// PostgreSQL (the reconcile harness's, restartable on the same port and database), real ships in process.
// Everything is asserted from outside: object status and conditions in the fake API server, the bridge's
// GET /ships, and kubectl. The invariants after every fault: nothing is registered twice, no token Secret is
// regenerated, every Ship is Ready=True within 60 s of recovery.
//
// The operator reaches the bridge through a small HTTP proxy of this file that can answer 503 for a while
// (a bridge behind a load balancer with no ready backend); the bridge is also stopped and started on the same
// port and database (connections refused), once for a few seconds and once for longer than the operator's
// bridge retry interval (see OUTAGE_MS for why 25 s stands for the minute).
import { execFile } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERGE_PATCH } from '../../operator/kube/clients.js';
import { startNpx, type NpxProcess } from '../helpers/npx.js';
import { freePort } from '../helpers/ports.js';
import { until } from '../helpers/poll.js';
import { K8S_TOOLS_HINT, KUBECTL, toolAvailable } from '../helpers/external-tools.js';
import { ADMIN, condition, hasPostgres, shipObject, startHarness, type Harness } from './reconcile-harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const kubectl = KUBECTL;
const haveKubectl = toolAvailable(kubectl, 'test/operator/operator-e2e.test.ts (kubectl)', K8S_TOOLS_HINT);

const CONVERGE_MS = 60_000;
/**
 * How long the bridge stays stopped in the long-outage test. A bridge the operator cannot reach is retried
 * every bridgeRetryMs (10 s), a fixed interval: no backoff grows with the outage (the work queue's 60 s cap
 * applies to reconciles that throw, and bridge trouble is a condition, not a throw). So 25 s — two and a half
 * retry intervals — takes the path a full minute takes; SVC_TEST_BRIDGE_OUTAGE_MS=60000 runs the minute.
 */
const OUTAGE_MS = Number(process.env.SVC_TEST_BRIDGE_OUTAGE_MS ?? 25_000);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** An HTTP proxy to the bridge that answers 503 while `unavailable` is set. */
async function startBridgeProxy(
  target: string,
): Promise<{ url: string; unavailable: boolean; close(): Promise<void> }> {
  const targetUrl = new URL(target);
  const state = { unavailable: false };
  const server: Server = createServer((incoming, outgoing) => {
    if (state.unavailable) {
      outgoing
        .writeHead(503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'no ready backend' }));
      incoming.resume();
      return;
    }
    const forward = request(
      {
        host: targetUrl.hostname,
        port: targetUrl.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  });
}

describe.skipIf(!hasPostgres)('svc operator as a process: real bridge, real ships, the fake API server', () => {
  let h: Harness;
  let operator: NpxProcess | undefined;
  let scratch: string;
  let proxy: Awaited<ReturnType<typeof startBridgeProxy>>;
  const stops: Array<() => Promise<void>> = [];

  let healthPort = 0;
  const startOperator = async () => {
    const started = startNpx(['operator', '--bridge-url', proxy.url, '--health-port', '0'], {
      KUBECONFIG: h.fake.kubeconfigPath,
      KUBERNETES_SERVICE_HOST: '',
      SVC_LOG_LEVEL: 'info',
      SVC_OPERATOR_USERNAME: ADMIN.username,
      SVC_OPERATOR_PASSWORD: ADMIN.password,
      SVC_TOKEN: '',
    });
    healthPort = Number((await started.waitFor(/"healthPort":\d+/, 30_000)).split(':')[1]);
    operator = started;
  };
  /** The operator's bridge calls that got no answer, from its /metrics. */
  const failedBridgeCalls = async () => {
    const text = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
    return [
      ...text.matchAll(/^svc_operator_bridge_request_duration_seconds_count\{[^}]*status="error"[^}]*\} (\d+)$/gm),
    ].reduce((total, match) => total + Number(match[1]), 0);
  };

  const kubectlRun = (args: string[], input?: string) =>
    new Promise<Run>((done) => {
      const child = execFile(
        kubectl,
        ['--kubeconfig', h.fake.kubeconfigPath, '--cache-dir', join(scratch, 'kube-cache'), ...args],
        { cwd: ROOT, timeout: 90_000, env: { ...process.env, KUBECONFIG: '' } },
        (error, stdout, stderr) => {
          done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
        },
      );
      if (input !== undefined) child.stdin?.end(input);
    });
  const kubectlOk = async (args: string[], input?: string) => {
    const result = await kubectlRun(args, input);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return result.stdout;
  };

  const shipNames = () =>
    h.fake.list('svc.dev/v1alpha1', 'Ship', 'default').map((ship) => ship.metadata.name as string);
  const bridgeShips = async () => {
    const reply = await h.asAdmin('GET', '/ships');
    if (reply.status !== 200) throw new Error(`GET /ships: ${reply.status} ${reply.text}`);
    return reply.body as { name: string; url: string }[];
  };
  /** Every Generated Secret's data, by name. */
  const tokenSecrets = () =>
    Object.fromEntries(
      h.fake
        .list('v1', 'Secret', 'default')
        .filter((secret) => (secret.metadata.name as string).endsWith('-tokens'))
        .map((secret) => [secret.metadata.name as string, JSON.stringify((secret as { data?: unknown }).data)]),
    );
  const allReady = () => shipNames().every((name) => condition(h.ship(name), 'Ready')?.status === 'True');
  const waitAllReady = (what: string) =>
    until(
      async () => allReady(),
      `every Ship Ready=True ${what}: ${JSON.stringify(shipNames().map((name) => [name, condition(h.ship(name), 'Ready')]))}`,
      CONVERGE_MS,
      100,
    );

  /** How often the operator has logged a watch answered 410 (it relists then): proof a fault was exercised. */
  const expiredCount = () => (operator?.output().match(/watch history expired/g) ?? []).length;

  /** Nothing registered twice: one bridge registration per Ship object, at the Ship's URL. */
  const expectRegisteredOnce = async () => {
    const registered = await bridgeShips();
    const names = registered.map((ship) => ship.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(shipNames().sort());
    for (const name of shipNames()) {
      expect(registered.find((ship) => ship.name === name)?.url).toBe(h.ship(name)!.spec!.url);
      expect(h.ship(name)!.status).toMatchObject({
        shipName: name,
        bridgeStatus: 'online',
        observedGeneration: h.ship(name)!.metadata.generation,
      });
    }
  };

  /** A ship without credentials and its Ship (auth None): Ready as soon as the operator reconciles it. */
  const addPlainShip = async (name: string) => {
    const ship = await h.startShip(name);
    h.fake.create(shipObject(name, { url: ship.url, auth: { mode: 'None' } }));
    return ship;
  };

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'svc-test-operator-e2e-'));
    h = await startHarness();
    proxy = await startBridgeProxy(h.bridgeUrl);
    stops.push(() => proxy.close());
    await startOperator();
    // A Generated Ship present from the start (created directly, so the faults below have it even without kubectl).
    const port = await freePort();
    h.fake.create(shipObject('beta', { url: `http://127.0.0.1:${port}` }));
    await until(async () => h.secret('beta-tokens') ?? false, 'the operator to create beta-tokens', 30_000);
    await h.startShip('beta', { port, ...h.tokensIn('beta-tokens') });
    // Nothing tells the operator the ship came up: its retry of an unreachable ship brings it Ready.
    await until(async () => condition(h.ship('beta'), 'Ready')?.status === 'True', 'beta Ready', CONVERGE_MS, 100);
  }, 120_000);

  afterAll(async () => {
    await operator?.terminateThenKill();
    for (const stop of stops) await stop();
    await h?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 60_000);

  it.skipIf(!haveKubectl)(
    'kubectl: apply -f crds/ and a Generated Ship; `kubectl wait --for=condition=Ready` returns because the operator made it Ready; `get ships` shows it online',
    async () => {
      await kubectlOk(['apply', '-f', 'crds/']);
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      await kubectlOk(
        ['apply', '-f', '-'],
        `apiVersion: svc.dev/v1alpha1\nkind: Ship\nmetadata:\n  name: alpha\n  namespace: default\nspec:\n  url: ${url}\n  auth:\n    mode: Generated\n`,
      );
      const waiting = kubectlRun(['wait', '--for=condition=Ready', 'ship/alpha', '--timeout=60s']);
      // The ship "pod" starts with the pair the operator put in the Secret.
      await until(async () => h.secret('alpha-tokens') ?? false, 'the operator to create alpha-tokens', 30_000);
      await h.startShip('alpha', { port, ...h.tokensIn('alpha-tokens') });
      const waited = await waiting;
      expect(waited.stderr).toBe('');
      expect(waited.code).toBe(0);
      expect(waited.stdout).toContain('ship.svc.dev/alpha condition met');
      const table = await kubectlOk(['get', 'ships']);
      const [header, ...rows] = table.trim().split('\n');
      expect(header!.split(/\s+/)).toEqual(['NAME', 'SHIP', 'URL', 'BRIDGE', 'READY', 'AGE']);
      const row = rows.find((line) => line.startsWith('alpha '))!.split(/\s+/);
      expect(row.slice(0, 5)).toEqual(['alpha', 'alpha', url, 'online', 'True']);
      await expectRegisteredOnce();
    },
    90_000,
  );

  it('faults: a watch cut mid-event, 410 on resume, an API server restart with a new history, the bridge answering 503, the bridge stopped and started — nothing registered twice, no Secret regenerated, every Ship Ready within 60 s', async () => {
    await waitAllReady('before the faults');
    const secrets = tokenSecrets();
    expect(Object.keys(secrets)).toContain('beta-tokens');

    // The watch cut mid-event, then a change the operator must see through the resumed watch.
    h.fake.dropWatches({ midEvent: true });
    await addPlainShip('cut');
    await waitAllReady('after a watch cut mid-event');
    await expectRegisteredOnce();

    // 410 on resume: the history is compacted and the watches dropped, so resuming must relist.
    const expiredBefore = expiredCount();
    h.fake.compact();
    h.fake.dropWatches();
    await addPlainShip('gone');
    await waitAllReady('after 410 on resume');
    await until(async () => expiredCount() > expiredBefore, 'the operator to log a 410 and relist', 10_000);
    await expectRegisteredOnce();

    // The API server restarted with a new resourceVersion history; a Ship created while it was down.
    const expiredBeforeRestart = expiredCount();
    await h.fake.restart({ downMs: 500 });
    await addPlainShip('reborn');
    await waitAllReady('after the API server restarted');
    await until(async () => expiredCount() > expiredBeforeRestart, 'the operator to relist on the new history', 10_000);
    await expectRegisteredOnce();

    // The bridge answering 503 for a while; a Ship created meanwhile says BridgeUnavailable, then converges.
    proxy.unavailable = true;
    await addPlainShip('waiting');
    await until(
      async () => condition(h.ship('waiting'), 'Ready')?.reason === 'BridgeUnavailable',
      'waiting Ready=False BridgeUnavailable while the bridge answers 503',
      30_000,
      100,
    );
    // The outage lasts a while (several bridge retry rounds) before the bridge answers again.
    await new Promise((done) => setTimeout(done, 5_000));
    proxy.unavailable = false;
    // waitAllReady gives up at CONVERGE_MS: every Ship Ready within 60 s of the bridge answering again.
    await waitAllReady('after the bridge answered again');
    await expectRegisteredOnce();

    // The bridge down (connections refused) and back on the same port and database; a Ship created meanwhile
    // says BridgeUnavailable, then everything converges.
    await h.stopBridge();
    await addPlainShip('patient');
    await until(
      async () => condition(h.ship('patient'), 'Ready')?.reason === 'BridgeUnavailable',
      'patient Ready=False BridgeUnavailable while the bridge is down',
      30_000,
      100,
    );
    expect(condition(h.ship('patient'), 'Ready')).toMatchObject({ status: 'False', reason: 'BridgeUnavailable' });
    // The outage lasts a while (a few retry rounds) before the bridge comes back.
    await new Promise((done) => setTimeout(done, 3_000));
    await h.startBridgeAgain();
    await waitAllReady('after the bridge came back');
    await expectRegisteredOnce();

    expect(tokenSecrets()).toEqual(secrets);
  }, 150_000);

  it(
    `the bridge stopped for ${OUTAGE_MS / 1000} s, longer than the operator's retry interval, and started again: the operator kept retrying, every Ship is Ready within 60 s, nothing registered twice, no Secret regenerated`,
    async () => {
      await waitAllReady('before the outage');
      const secrets = tokenSecrets();
      await h.stopBridge();
      const before = await failedBridgeCalls();
      // Each Ship would notice at its next refresh (30 s at the most); a touch of its metadata (an event, no
      // new generation) makes it look now, so the whole outage counts. Touched until it has noticed: a
      // reconcile within a second of the stop may still read the roster read just before it (rosterMaxAgeMs).
      await until(
        async () => {
          const unaware = shipNames().filter(
            (name) => condition(h.ship(name), 'Ready')?.reason !== 'BridgeUnavailable',
          );
          for (const name of unaware) {
            await h.kube.custom.patchNamespacedCustomObject(
              {
                group: 'svc.dev',
                version: 'v1alpha1',
                plural: 'ships',
                namespace: 'default',
                name,
                body: { metadata: { annotations: { 'test/outage': String(Date.now()) } } },
              },
              MERGE_PATCH,
            );
          }
          return unaware.length === 0;
        },
        'every Ship BridgeUnavailable while the bridge is stopped',
        30_000,
        500,
      );
      const noticed = await failedBridgeCalls();
      // The outage goes on for OUTAGE_MS, long enough for two retry rounds at the fixed interval.
      await new Promise((done) => setTimeout(done, OUTAGE_MS));
      // Still retrying at the fixed bridge retry interval (10 s): at least two more rounds of calls that failed.
      expect(noticed).toBeGreaterThan(before);
      expect((await failedBridgeCalls()) - noticed).toBeGreaterThanOrEqual(2);
      await h.startBridgeAgain();
      await waitAllReady('within 60 s of the bridge coming back');
      await expectRegisteredOnce();
      expect(tokenSecrets()).toEqual(secrets);
    },
    OUTAGE_MS + 150_000,
  );

  it('the operator SIGTERMed then SIGKILLed (its group) and started again: nothing registered twice, Secrets unchanged, every Ship Ready', async () => {
    await waitAllReady('before the restart');
    const secrets = tokenSecrets();
    const before = await bridgeShips();
    await operator!.terminateThenKill();
    operator = undefined;
    // A change while no operator runs.
    await addPlainShip('late');
    await startOperator();
    await waitAllReady('after the operator restarted');
    await expectRegisteredOnce();
    expect((await bridgeShips()).length).toBe(before.length + 1);
    expect(tokenSecrets()).toEqual(secrets);
  }, 90_000);
});
