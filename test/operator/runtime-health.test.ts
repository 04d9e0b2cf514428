// The operator's probe server and metrics, through startOperator (what `svc operator` runs) against the fake
// Kubernetes API: /healthz answers at once; /readyz is 503 naming the unsynced caches while the API refuses
// the list, 200 once synced (a non-leader too); /metrics carries reconciles by kind and result, the queue
// depth, watch restarts by reason and the bridge latency histogram the bridge client observes into.
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll.js';
import type { Reconciler, ReconcilerContext } from '../../operator/runtime/controller.js';
import { startOperator, type RunningOperator } from '../../operator/runtime/start.js';
import { quietLog, SHIPS, ship, startFake } from './runtime-fixture.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function get(
  port: number,
  path: string,
  method = 'GET',
): Promise<{ status: number; body: string; type: string | null }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
  return { status: response.status, body: await response.text(), type: response.headers.get('content-type') };
}

/** Reconciles ships: 'bad' always fails; every call reports one fake bridge call. */
function testReconcilers(context: ReconcilerContext): Reconciler[] {
  return [
    {
      kind: 'Ship',
      resource: SHIPS,
      async reconcile(key) {
        context.observeBridgeCall('GET', '/ships', 200, 0.012);
        if (key.name === 'bad') throw new Error('bridge unavailable');
        return key.name === 'slow' ? { requeueAfterMs: 60_000 } : undefined;
      },
    },
  ];
}

async function start(fakeKubeconfig: string, leaderElect = false): Promise<RunningOperator> {
  const operator = await startOperator({
    bridgeUrl: 'http://bridge.invalid',
    allNamespaces: false,
    healthPort: 0,
    healthHost: '127.0.0.1',
    leaderElect,
    daemonsetGraceMs: 600_000,
    kubeconfig: { env: { KUBECONFIG: fakeKubeconfig } },
    logger: quietLog,
    reconcilers: testReconcilers,
    tuning: {
      watch: { restart: { baseMs: 20, maxMs: 100 } },
      queue: { retry: { baseMs: 20, maxMs: 100 } },
      lease: { leaseDurationMs: 1_000, renewDeadlineMs: 700, retryPeriodMs: 100 },
    },
  });
  cleanups.push(() => operator.close());
  return operator;
}

describe('operator probes and metrics', () => {
  it('/healthz at once; /readyz 503 until the caches have listed, then 200; unknown paths 404, writes 405', async () => {
    const { fake } = await startFake();
    cleanups.push(() => fake.close());
    fake.inject({ status: 503, pathIncludes: '/ships', times: Infinity });
    const operator = await start(fake.kubeconfigPath);
    expect(await get(operator.healthPort, '/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    const notReady = await get(operator.healthPort, '/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toContain('caches not synced: ships.svc.dev/v1alpha1');
    fake.clearFaults();
    await until(async () => (await get(operator.healthPort, '/readyz')).status === 200, '/readyz to answer 200', 5_000);
    expect((await get(operator.healthPort, '/nope')).status).toBe(404);
    expect((await get(operator.healthPort, '/healthz', 'POST')).status).toBe(405);
    expect((await get(operator.healthPort, '/healthz', 'HEAD')).status).toBe(200);
  });

  it('a replica that is not the leader is ready too', async () => {
    const { fake } = await startFake();
    cleanups.push(() => fake.close());
    const leader = await start(fake.kubeconfigPath, true);
    await until(async () => leader.runtime.isLeader, 'the first replica to lead');
    const standby = await start(fake.kubeconfigPath, true);
    await until(
      async () => (await get(standby.healthPort, '/readyz')).status === 200,
      'the standby to be ready',
      5_000,
    );
    expect(standby.runtime.isLeader).toBe(false);
    expect((await get(standby.healthPort, '/metrics')).body).toMatch(/^svc_operator_leader 0$/m);
    expect((await get(leader.healthPort, '/metrics')).body).toMatch(/^svc_operator_leader 1$/m);
  });

  it('/metrics: reconciles by kind and result, queue depth, watch restarts, bridge call latency, process metrics', async () => {
    const { fake } = await startFake();
    cleanups.push(() => fake.close());
    fake.create(ship('good'));
    fake.create(ship('bad'));
    fake.create(ship('slow'));
    const operator = await start(fake.kubeconfigPath);
    await until(
      async () =>
        /svc_operator_reconciles_total\{kind="Ship",result="error"\} [3-9]/.test(
          (await get(operator.healthPort, '/metrics')).body,
        ),
      'a few failed reconciles of bad',
    );
    fake.expireWatches();
    await until(
      async () =>
        /svc_operator_watch_restarts_total\{resource="ships",reason="expired"\} 1/.test(
          (await get(operator.healthPort, '/metrics')).body,
        ),
      'the expired watch to be counted',
    );
    const metrics = await get(operator.healthPort, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toContain('text/plain');
    expect(metrics.body).toMatch(/^svc_operator_reconciles_total\{kind="Ship",result="success"\} [1-9]/m);
    expect(metrics.body).toMatch(/^svc_operator_reconciles_total\{kind="Ship",result="requeue"\} [1-9]/m);
    expect(metrics.body).toMatch(/^svc_operator_queue_depth\{kind="Ship"\} \d+$/m);
    expect(metrics.body).toMatch(/^svc_operator_reconcile_duration_seconds_count\{kind="Ship"\} [1-9]/m);
    expect(metrics.body).toMatch(
      /^svc_operator_bridge_request_duration_seconds_bucket\{le="0.025",method="GET",route="\/ships",status="200"\} [1-9]/m,
    );
    expect(metrics.body).toMatch(/^svc_operator_process_resident_memory_bytes \d+/m);
  });
});
