// The runtime as reconcilers see it (operator/runtime/runtime.ts + controller.ts), against the fake
// Kubernetes API: a reconciler gets keys, reads the latest object from the cache (undefined once deleted),
// is re-run for changes of objects it watches through ownerReferences, and under a storm of changes and
// watch faults its last reconcile of every key sees the server's final state (no update is lost between the
// watch and the queue). A reconcile that throws is retried; requeueAfter brings the key back.
import { afterEach, describe, expect, it } from 'vitest';
import type { KubernetesObject } from '@kubernetes/client-node';
import { until } from '../helpers/poll.js';
import { makeKubeClients } from '../../operator/kube/clients.js';
import { OperatorMetrics } from '../../operator/health/metrics.js';
import {
  keyString,
  ownedBy,
  type CacheReader,
  type ObjectKey,
  type Reconciler,
  type ResourceRef,
} from '../../operator/runtime/controller.js';
import { OperatorRuntime } from '../../operator/runtime/runtime.js';
import { quietLog, SHIP_API, SHIPS, ship, startFake } from './runtime-fixture.js';

const SECRETS: ResourceRef = { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Seen {
  key: string;
  resourceVersion: string | undefined;
  status: unknown;
  secretVersion?: string;
}

async function runtimeWith(
  makeReconciler: (cache: CacheReader) => Reconciler,
  fakeOptions: Parameters<typeof startFake>[0] = {},
) {
  const { fake, config } = await startFake(fakeOptions);
  cleanups.push(() => fake.close());
  const runtime = new OperatorRuntime({
    kube: makeKubeClients(config),
    reconcilers: (context) => [makeReconciler(context.cache)],
    options: { bridgeUrl: 'http://bridge.invalid', namespace: 'default', daemonsetGraceMs: 600_000 },
    log: quietLog,
    metrics: new OperatorMetrics({ processMetrics: false }),
    watch: { restart: { baseMs: 20, maxMs: 100 } },
    queue: { concurrency: 3, retry: { baseMs: 20, maxMs: 100 } },
  });
  cleanups.push(() => runtime.stop());
  runtime.start();
  await runtime.whenSynced();
  return { fake, runtime };
}

function recordingShipReconciler(
  seen: Seen[],
  options: { watchSecrets?: boolean; fail?: (key: ObjectKey) => boolean } = {},
) {
  return (cache: CacheReader): Reconciler => ({
    kind: 'Ship',
    resource: SHIPS,
    watches: options.watchSecrets ? [{ resource: SECRETS, map: ownedBy('Ship') }] : [],
    async reconcile(key) {
      const object = cache.get<KubernetesObject & { status?: unknown }>(SHIPS, key);
      const secret = options.watchSecrets
        ? cache.get(SECRETS, { namespace: key.namespace, name: `${key.name}-tokens` })
        : undefined;
      seen.push({
        key: keyString(key),
        resourceVersion: object?.metadata?.resourceVersion,
        status: object?.status,
        secretVersion: secret?.metadata?.resourceVersion,
      });
      if (options.fail?.(key)) throw new Error('bridge unavailable');
    },
  });
}

const last = (seen: Seen[], key: string) => seen.filter((entry) => entry.key === key).at(-1);

describe('operator runtime and reconcilers', () => {
  it('reconciles each key from the cache, and a deleted object as undefined', async () => {
    const seen: Seen[] = [];
    const { fake } = await runtimeWith(recordingShipReconciler(seen));
    fake.create(ship('a'));
    await until(async () => last(seen, 'default/a')?.resourceVersion !== undefined, 'a reconciled');
    fake.writeStatus(SHIP_API, 'Ship', 'a', { phase: 'x' });
    await until(
      async () => (last(seen, 'default/a')?.status as { phase?: string } | undefined)?.phase === 'x',
      'the status change reconciled',
    );
    fake.remove(SHIP_API, 'Ship', 'a');
    await until(
      async () => seen.length > 0 && last(seen, 'default/a')!.resourceVersion === undefined,
      'the deletion reconciled with no object',
    );
  });

  it('a change of an owned Secret reconciles its owner Ship', async () => {
    const seen: Seen[] = [];
    const { fake } = await runtimeWith(recordingShipReconciler(seen, { watchSecrets: true }));
    const owner = fake.create(ship('a'));
    await until(async () => Boolean(last(seen, 'default/a')), 'a reconciled');
    const secret = fake.create({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: 'a-tokens',
        namespace: 'default',
        ownerReferences: [
          { apiVersion: SHIP_API, kind: 'Ship', name: 'a', uid: owner.metadata.uid!, controller: true },
        ],
      },
      data: { shipToken: Buffer.from('s').toString('base64') },
    });
    await until(
      async () => last(seen, 'default/a')?.secretVersion === secret.metadata.resourceVersion,
      'the owner reconciled after the Secret appeared',
    );
    // A Secret nobody owns reconciles nothing.
    const before = seen.length;
    fake.create({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: { name: 'loose', namespace: 'default' },
      data: {},
    });
    // A window, not a condition: a Secret nobody watches for must not trigger a reconcile.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen.length).toBe(before);
  });

  it('retries a failing reconcile until it succeeds', async () => {
    const seen: Seen[] = [];
    let failures = 3;
    const { fake, runtime } = await runtimeWith(recordingShipReconciler(seen, { fail: () => failures-- > 0 }));
    fake.create(ship('a'));
    await until(async () => seen.length === 4, 'three failures then a success', 5_000);
    // A window, not a condition: no fifth reconcile follows the success.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen.length).toBe(4);
    expect(runtime.queueOf('Ship')!.retries('default/a')).toBe(0);
  });

  it('never loses an update: after a storm of changes and watch faults, every key was last reconciled at its final state', async () => {
    const seen: Seen[] = [];
    const { fake } = await runtimeWith(recordingShipReconciler(seen));
    const names = Array.from({ length: 20 }, (_, index) => `s${index}`);
    for (const name of names) fake.create(ship(name));
    for (let round = 0; round < 120; round += 1) {
      const name = names[(round * 7) % names.length]!;
      if (round % 13 === 12) fake.remove(SHIP_API, 'Ship', name);
      else if (!fake.read(SHIP_API, 'Ship', name, 'default')) fake.create(ship(name));
      else fake.writeStatus(SHIP_API, 'Ship', name, { round });
      if (round % 10 === 0) fake.dropWatches({ midEvent: true });
      if (round % 25 === 0) fake.expireWatches();
      if (round % 40 === 0) {
        fake.dropWatches();
        fake.compact();
      }
      // Pacing: a turn for the watches between rounds of changes.
      if (round % 4 === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await until(
      async () =>
        names.every((name) => {
          const object = fake.read(SHIP_API, 'Ship', name, 'default');
          return last(seen, `default/${name}`)?.resourceVersion === object?.metadata.resourceVersion;
        }),
      'every ship to be reconciled at its final resourceVersion (or as deleted)',
      15_000,
    );
  });
});
