// The DaemonSet flow and the chart's Secrets end to end (issue #19): the fake Kubernetes API seeded with a
// ship DaemonSet and its pods (nodes as pod.spec.nodeName, host IPs on 127.0.0.0/8), real ships listening
// on those host IPs, each with its node's own token pair (`<node>-tokens`, made here before the ship starts,
// as the token exchange would hand it over: test/chart/service-e2e.test.ts runs that part), a real bridge on PostgreSQL, and the operator's clock
// injected so the grace period is walked through without waiting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../fakes/kube-api/index.js';
import { freePort } from '../helpers/ports.js';
import { until } from '../helpers/poll.js';
import type { TestShip } from '../helpers/ship.js';
import { CHART_SECRETS_KEY } from '../../operator/reconcile/chart-secrets.js';
import { NODE_WITHOUT_SHIP_SINCE } from '../../operator/reconcile/names.js';
import { newTokenPair } from '../../operator/reconcile/tokens.js';
import {
  condition,
  hasPostgres,
  NAMESPACE,
  reconcileUntil,
  shipObject,
  startHarness,
  type Harness,
} from './reconcile-harness.js';

let h: Harness;
let port: number;
let daemonSet: KubeObject;
const running: Record<string, TestShip> = {};
const LABELS = { 'app.kubernetes.io/name': 'svc', 'app.kubernetes.io/component': 'ship' };
const MINUTE = 60_000;
const dsKey = { namespace: NAMESPACE, name: 'svc-ship' };
const bridgeShips = async () =>
  (await h.asAdmin('GET', '/ships')).body as { name: string; url: string; status: string }[];
const ready = (name: string) => condition(h.ship(name), 'Ready');

function decode(data: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]),
  );
}

function seedPod(node: string, hostIP: string, isReady = true): void {
  const name = `svc-ship-${node}`;
  h.fake.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NAMESPACE,
      labels: LABELS,
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'svc-ship', uid: daemonSet.metadata.uid, controller: true },
      ],
    },
    spec: { nodeName: node, containers: [{ name: 'ship', image: 'svc:test' }] },
  });
  setPod(node, hostIP, isReady);
}

function setPod(node: string, hostIP: string, isReady: boolean): void {
  h.fake.writeStatus('v1', 'Pod', `svc-ship-${node}`, {
    phase: 'Running',
    hostIP,
    conditions: [{ type: 'Ready', status: isReady ? 'True' : 'False' }],
  });
}

async function startNodeShip(node: string, hostIP: string): Promise<void> {
  const secret = `${node}-tokens`;
  if (!h.secret(secret)) {
    h.fake.create({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: { name: secret, namespace: NAMESPACE, labels: { 'app.kubernetes.io/managed-by': 'svc-operator' } },
      stringData: newTokenPair(),
    });
  }
  running[node] = await h.startShip(node, { host: hostIP, port, ...h.tokensIn(secret) });
}

describe.skipIf(!hasPostgres)('DaemonSet ships and chart Secrets', () => {
  beforeAll(async () => {
    port = await freePort();
    h = await startHarness({ reconcile: { daemonsetShipPort: port } });
  }, 60_000);

  afterAll(async () => {
    await h?.close();
  });

  it("creates the chart's Secrets when absent with CSPRNG values, keeps a pre-existing one, and never regenerates", async () => {
    h.fake.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'svc-postgres', namespace: NAMESPACE },
      type: 'Opaque',
      stringData: { password: 'chosen-by-the-user' },
    });
    await h.chartSecrets.ensureAll();
    const admin = h.secret('svc-admin')!;
    expect(admin.type).toBe('Opaque');
    expect(decode(admin.data)).toEqual({
      username: 'admin',
      email: 'admin@svc.invalid',
      password: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(admin.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'svc-operator' });
    // No shared ship token pair any more: each node's Ship has its own (below).
    expect(h.secret('svc-ship-tokens')).toBeUndefined();
    expect(decode(h.secret('svc-postgres')!.data)).toEqual({ password: 'chosen-by-the-user' });
    const versions = ['svc-admin', 'svc-postgres'].map((name) => h.secret(name)!.metadata.resourceVersion);
    const key = { namespace: NAMESPACE, name: CHART_SECRETS_KEY };
    await h.chartSecrets.ensureAll();
    await h.chartSecrets.reconcile(key);
    expect(['svc-admin', 'svc-postgres'].map((name) => h.secret(name)!.metadata.resourceVersion)).toEqual(versions);
    // One fixed key: enqueued at start, and for events of the chart's Secrets only.
    expect(h.chartSecrets.initialKeys()).toEqual([key]);
    expect(h.chartSecrets.keysOf(admin)).toEqual([key]);
    expect(h.chartSecrets.keysOf({ metadata: { name: 'other', namespace: NAMESPACE } })).toEqual([]);
    expect(h.chartSecrets.keysOf({ metadata: { name: 'svc-admin', namespace: 'elsewhere' } })).toEqual([]);
    // Deleted: made again (with new values: deleting it is how a user asks for that).
    h.fake.remove('v1', 'Secret', 'svc-admin');
    await h.chartSecrets.reconcile(key);
    expect(decode(h.secret('svc-admin')!.data).password).not.toBe(decode(admin.data).password);
  });

  it('one Ship per node with a ready ship pod: named after the node, http://<hostIP>:<port>, owned by the DaemonSet, a Generated pair of its own; a user Ship is left alone', async () => {
    daemonSet = h.fake.create({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'svc-ship', namespace: NAMESPACE, labels: LABELS },
      spec: {
        selector: { matchLabels: LABELS },
        template: { metadata: { labels: LABELS }, spec: { containers: [{ name: 'ship', image: 'svc:test' }] } },
      },
    });
    // Another DaemonSet's pod on a node, and a user's Ship named like a node.
    h.fake.create(shipObject('node-d', { url: 'http://127.0.0.9:1', auth: { mode: 'None' } }));
    await startNodeShip('node-a', '127.0.0.2');
    await startNodeShip('node-b', '127.0.0.3');
    seedPod('node-a', '127.0.0.2');
    seedPod('node-b', '127.0.0.3');
    seedPod('node-c', '127.0.0.4', false);
    seedPod('node-d', '127.0.0.5');
    expect(await h.daemonSets.reconcile(dsKey)).toEqual({});
    const created = h.fake
      .list('svc.dev/v1alpha1', 'Ship', NAMESPACE)
      .map((ship) => ship.metadata.name)
      .sort();
    expect(created).toEqual(['node-a', 'node-b', 'node-d']);
    expect(h.ship('node-a')).toMatchObject({
      metadata: {
        labels: { 'svc.dev/managed-by': 'daemonset', 'app.kubernetes.io/managed-by': 'svc-operator' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'svc-ship', uid: daemonSet.metadata.uid, controller: true },
        ],
      },
      spec: { url: `http://127.0.0.2:${port}`, expectedName: 'node-a', auth: { mode: 'Generated' } },
    });
    expect(h.ship('node-d')!.spec).toEqual({
      url: 'http://127.0.0.9:1',
      auth: { mode: 'None' },
      deletionPolicy: 'Deregister',
    });
    expect(h.ship('node-d')!.metadata.labels).toBeUndefined();

    for (const node of ['node-a', 'node-b'])
      await reconcileUntil(h.ships, node, () => ready(node)?.status === 'True', `${node} Ready`);
    expect(h.ship('node-a')!.status).toMatchObject({
      shipName: 'node-a',
      tokenSecretName: 'node-a-tokens',
      bridgeStatus: 'online',
    });
    expect(decode(h.secret('node-a-tokens')!.data).bridgeToken).not.toBe(
      decode(h.secret('node-b-tokens')!.data).bridgeToken,
    );
    expect((await bridgeShips()).map((ship) => ship.name)).toEqual(['node-a', 'node-b']);
    // The pod on node-c becomes ready: its Ship follows.
    setPod('node-c', '127.0.0.4', true);
    await h.daemonSets.reconcile(dsKey);
    expect(h.ship('node-c')!.spec.url).toBe(`http://127.0.0.4:${port}`);
  });

  it('a node without a ready ship pod keeps its Ship for the grace period; a pod back in time clears it; after the grace the Ship goes and is deregistered', async () => {
    const start = h.clock.now;
    h.fake.remove('v1', 'Pod', 'svc-ship-node-b');
    expect(await h.daemonSets.reconcile(dsKey)).toEqual({ requeueAfterMs: 10 * MINUTE });
    expect(h.ship('node-b')!.metadata.annotations?.[NODE_WITHOUT_SHIP_SINCE]).toBe(new Date(start).toISOString());
    h.clock.now = start + 6 * MINUTE;
    expect(await h.daemonSets.reconcile(dsKey)).toEqual({ requeueAfterMs: 4 * MINUTE });
    expect(h.ship('node-b')).toBeDefined();
    // The pod is back (a rollout finished): the clock restarts from nothing next time.
    seedPod('node-b', '127.0.0.3');
    await h.daemonSets.reconcile(dsKey);
    expect(h.ship('node-b')!.metadata.annotations?.[NODE_WITHOUT_SHIP_SINCE]).toBeUndefined();

    h.clock.now = start + 7 * MINUTE;
    setPod('node-b', '127.0.0.3', false);
    await h.daemonSets.reconcile(dsKey);
    h.clock.now = start + 17 * MINUTE - 1;
    expect(await h.daemonSets.reconcile(dsKey)).toEqual({ requeueAfterMs: 1 });
    expect(h.ship('node-b')!.metadata.deletionTimestamp).toBeUndefined();
    h.clock.now = start + 17 * MINUTE;
    await h.daemonSets.reconcile(dsKey);
    expect(h.ship('node-b')!.metadata.deletionTimestamp).toBeTruthy();
    await h.ships.reconcile({ namespace: NAMESPACE, name: 'node-b' });
    expect(h.ship('node-b')).toBeUndefined();
    expect((await bridgeShips()).map((ship) => ship.name)).not.toContain('node-b');
    expect(h.ship('node-a')).toBeDefined();
  });

  it("a node's ship on a new host IP: the Ship's url follows and the ship is registered at the new address", async () => {
    await running['node-a']!.stopShipOnly();
    await startNodeShip('node-a', '127.0.0.6');
    setPod('node-a', '127.0.0.6', true);
    await h.daemonSets.reconcile(dsKey);
    expect(h.ship('node-a')!.spec.url).toBe(`http://127.0.0.6:${port}`);
    await reconcileUntil(
      h.ships,
      'node-a',
      () =>
        h.ship('node-a')!.status?.registeredURL === `http://127.0.0.6:${port}` && ready('node-a')?.status === 'True',
      'node-a at its new address',
    );
    expect((await bridgeShips()).find((ship) => ship.name === 'node-a')).toEqual({
      name: 'node-a',
      url: `http://127.0.0.6:${port}`,
      status: 'online',
    });
  });

  it('deleting the DaemonSet garbage-collects its Ships, each deregistered by its finalizer; the user Ship stays', async () => {
    h.fake.remove('apps/v1', 'DaemonSet', 'svc-ship');
    expect(await h.daemonSets.reconcile(dsKey)).toBeUndefined();
    await until(
      () => h.ship('node-a')?.metadata.deletionTimestamp,
      'node-a marked for deletion by the garbage collector',
      10_000,
    );
    for (const node of ['node-a', 'node-c'])
      await reconcileUntil(h.ships, node, () => h.ship(node) === undefined, `${node} gone`);
    expect((await bridgeShips()).map((ship) => ship.name)).not.toContain('node-a');
    expect(h.ship('node-d')).toBeDefined();
  });
});
