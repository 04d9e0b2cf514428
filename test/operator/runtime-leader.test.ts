// Leader election (operator/runtime/leader.ts) and the runtime's gate on it, against the fake Kubernetes
// API's real Lease objects: of two replicas exactly one reconciles; a leader that stops cleanly releases the
// lease and the other takes over at its next retry; a leader killed (no release) is replaced once the lease
// duration has passed without renewal — measured in real time with a short lease, and under an injected
// clock without waiting. A leader that cannot renew steps down on its own.
import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeKubeApi } from '../fakes/kube-api/index.js';
import { until } from '../helpers/poll.js';
import { makeKubeClients } from '../../operator/kube/clients.js';
import { OperatorMetrics } from '../../operator/health/metrics.js';
import type { ObjectKey, Reconciler } from '../../operator/runtime/controller.js';
import { LeaderElector } from '../../operator/runtime/leader.js';
import { OperatorRuntime } from '../../operator/runtime/runtime.js';
import { quietLog, SHIPS, ship, startFake } from './runtime-fixture.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const LEASE = { leaseDurationMs: 1_000, renewDeadlineMs: 700, retryPeriodMs: 100 };

/** A runtime with one Ship reconciler that records which keys it reconciled. */
function replica(config: KubeConfig, identity: string, lease = LEASE) {
  const reconciled: string[] = [];
  const reconciler: Reconciler = {
    kind: 'Ship',
    resource: SHIPS,
    reconcile: async (key: ObjectKey) => {
      reconciled.push(`${key.namespace}/${key.name}`);
    },
  };
  const runtime = new OperatorRuntime({
    kube: makeKubeClients(config),
    reconcilers: () => [reconciler],
    options: { bridgeUrl: 'http://bridge.invalid', namespace: 'default', daemonsetGraceMs: 600_000 },
    log: quietLog.child({ replica: identity }),
    metrics: new OperatorMetrics({ processMetrics: false }),
    leaderElection: { namespace: 'default', identity, ...lease },
    watch: { restart: { baseMs: 20, maxMs: 200 } },
  });
  return { runtime, reconciled, identity };
}

async function holder(fake: FakeKubeApi): Promise<string | undefined> {
  return (
    fake.read('coordination.k8s.io/v1', 'Lease', 'svc-operator', 'default')?.spec as
      | { holderIdentity?: string }
      | undefined
  )?.holderIdentity;
}

describe('leader election between two operator replicas', () => {
  it('exactly one reconciles; a clean stop releases the lease and the other takes over at once', async () => {
    const { fake, config } = await startFake();
    cleanups.push(() => fake.close());
    fake.create(ship('a'));
    const one = replica(config, 'one');
    const two = replica(config, 'two');
    cleanups.push(
      () => one.runtime.stop(),
      () => two.runtime.stop(),
    );
    one.runtime.start();
    await until(async () => one.runtime.isLeader, 'one to lead');
    two.runtime.start();
    await two.runtime.whenSynced();
    await until(async () => one.reconciled.includes('default/a'), 'the leader to reconcile a');
    // Changes for a while: only the leader reconciles them; the standby's cache follows all the same.
    for (let round = 0; round < 5; round += 1) {
      fake.create(ship(`b${round}`));
      // Pacing: changes spread over time, so the standby's cache follows a stream, not one burst.
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    await until(async () => one.reconciled.includes('default/b4'), 'the leader to reconcile b4');
    expect(two.runtime.cache.get(SHIPS, { namespace: 'default', name: 'b4' })).toBeDefined();
    expect(two.runtime.isLeader).toBe(false);
    expect(two.reconciled).toEqual([]);
    expect(await holder(fake)).toBe('one');

    const stoppedAt = Date.now();
    await one.runtime.stop();
    await until(async () => two.runtime.isLeader, 'two to take over', 3_000);
    // Released: no need to wait out the lease duration.
    expect(Date.now() - stoppedAt).toBeLessThan(LEASE.leaseDurationMs);
    expect(await holder(fake)).toBe('two');
    // The new leader looks at everything once.
    await until(
      async () => ['a', 'b0', 'b4'].every((name) => two.reconciled.includes(`default/${name}`)),
      'two to reconcile every ship',
    );
  });

  it('a killed leader (no release) is replaced within the lease duration after its last renewal', async () => {
    const { fake, config } = await startFake();
    cleanups.push(() => fake.close());
    fake.create(ship('a'));
    const one = replica(config, 'one');
    const two = replica(config, 'two');
    cleanups.push(
      () => one.runtime.stop(),
      () => two.runtime.stop(),
    );
    one.runtime.start();
    await until(async () => one.runtime.isLeader, 'one to lead');
    two.runtime.start();
    // A window, not a condition: the standby must not take the lease while the leader holds it.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(two.runtime.isLeader).toBe(false);
    const killedAt = Date.now();
    await one.runtime.stop({ release: false });
    expect(await holder(fake)).toBe('one');
    await until(async () => two.runtime.isLeader, 'two to take over the expired lease', 5_000);
    const took = Date.now() - killedAt;
    // Not before the lease could have expired (the last renewal was at most one retry period before the
    // kill), and within the lease duration plus two retry periods of observation.
    expect(took).toBeGreaterThanOrEqual(LEASE.leaseDurationMs - LEASE.retryPeriodMs - 50);
    expect(took).toBeLessThan(LEASE.leaseDurationMs + 3 * LEASE.retryPeriodMs + 700);
    expect(await holder(fake)).toBe('two');
    const lease = fake.read('coordination.k8s.io/v1', 'Lease', 'svc-operator', 'default')!.spec as {
      leaseTransitions?: number;
    };
    expect(lease.leaseTransitions).toBe(1);
    await until(async () => two.reconciled.includes('default/a'), 'two to reconcile a');
  });

  it('under an injected clock: an expired lease is taken only once the clock passes the lease duration', async () => {
    const { fake, config } = await startFake();
    cleanups.push(() => fake.close());
    const leases = config.makeApiClient(CoordinationV1Api);
    let now = 1_000_000;
    const clock = () => now;
    const events: string[] = [];
    const make = (identity: string) =>
      new LeaderElector({
        leases,
        namespace: 'default',
        identity,
        clock,
        log: quietLog,
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 50,
        onStartedLeading: () => events.push(`${identity} leads`),
        onStoppedLeading: () => events.push(`${identity} stops`),
      });
    const one = make('one');
    const two = make('two');
    cleanups.push(
      () => one.stop({ release: false }),
      () => two.stop({ release: false }),
    );
    one.start();
    await until(async () => one.isLeader, 'one to lead');
    await one.stop({ release: false });
    two.start();
    // Real time passes (many retry periods) but the clock stands still: the lease is not expired.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(two.isLeader).toBe(false);
    now += 14_000;
    // A window, not a condition: 14 s on the operator's clock is still short of the lease's expiry.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(two.isLeader).toBe(false);
    now += 1_500;
    await until(async () => two.isLeader, 'two to take over once 15 s have passed on its clock', 3_000);
    expect(events).toEqual(['one leads', 'one stops', 'two leads']);
  });

  it('a leader that cannot renew steps down by its renew deadline, before the lease could be taken', async () => {
    const { fake, config } = await startFake();
    cleanups.push(() => fake.close());
    const one = replica(config, 'one');
    cleanups.push(() => one.runtime.stop());
    one.runtime.start();
    await until(async () => one.runtime.isLeader, 'one to lead');
    fake.inject({ status: 500, pathIncludes: '/leases', times: Infinity });
    const failingSince = Date.now();
    await until(async () => !one.runtime.isLeader, 'one to step down', 3_000);
    expect(Date.now() - failingSince).toBeLessThan(LEASE.leaseDurationMs);
    fake.clearFaults();
    await until(async () => one.runtime.isLeader, 'one to lead again once the API answers', 5_000);
  });
});
