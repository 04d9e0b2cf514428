// The fake Kubernetes API server's own behaviour beyond the portable contract (contract.test.ts): its TLS
// and authentication, the fault knobs tests rely on (dropped and expired watches, compaction, a restart with
// a new resourceVersion history, injected errors, authorization), the schemaless Ship/Repo defaults and CRD
// take-over, loading CRDs from files, and the protocol details kubectl and client-go use (pagination,
// strategic merge patch, sendInitialEvents, timeoutSeconds, Table for built-ins).
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  COMMITTED_CRDS,
  startFakeKubeApi,
  type FakeKubeApi,
  type FakeKubeApiOptions,
} from '../fakes/kube-api/index.js';
import { collectWatch, rawGet, rawRequest, rejection } from './client.js';
import { WIDGET_CRD } from './contract-crd.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const SHIPS = { group: 'svc.dev', version: 'v1alpha1', namespace: 'default', plural: 'ships' } as const;

let fake: FakeKubeApi | undefined;
const scratch: string[] = [];
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  for (const directory of scratch.splice(0)) rmSync(directory, { recursive: true, force: true });
});

async function start(
  options: FakeKubeApiOptions = {},
): Promise<{ fake: FakeKubeApi; kubeconfig: KubeConfig; core: CoreV1Api; custom: CustomObjectsApi }> {
  fake = await startFakeKubeApi({ crds: 'none', ...options });
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(fake.kubeconfigPath);
  return {
    fake,
    kubeconfig,
    core: kubeconfig.makeApiClient(CoreV1Api),
    custom: kubeconfig.makeApiClient(CustomObjectsApi),
  };
}

function httpsGet(url: string, options: { ca?: string; token?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const call = request(
      url,
      { ca: options.ca, headers: options.token ? { Authorization: `Bearer ${options.token}` } : {} },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    call.on('error', reject);
    call.end();
  });
}

describe('fake kube-api: TLS, kubeconfig and authentication', () => {
  it('serves a certificate for 127.0.0.1 signed by the CA in the kubeconfig, and answers 401 without the bearer token', async () => {
    const { fake } = await start();
    const leaf = new X509Certificate(
      await new Promise<Buffer>((resolve, reject) => {
        const call = request(`${fake.url}/version`, { ca: fake.caPem }, (response) => {
          resolve((response.socket as unknown as { getPeerCertificate(): { raw: Buffer } }).getPeerCertificate().raw);
          response.resume();
        });
        call.on('error', reject);
        call.end();
      }),
    );
    expect(leaf.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(leaf.verify(new X509Certificate(fake.caPem).publicKey)).toBe(true);
    await expect(httpsGet(`${fake.url}/api`, {})).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
    const anonymous = await httpsGet(`${fake.url}/api/v1/namespaces/default/secrets`, { ca: fake.caPem });
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.body)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    expect(
      (await httpsGet(`${fake.url}/api/v1/namespaces/default/secrets`, { ca: fake.caPem, token: 'wrong' })).status,
    ).toBe(401);
    expect(
      (await httpsGet(`${fake.url}/api/v1/namespaces/default/secrets`, { ca: fake.caPem, token: fake.token })).status,
    ).toBe(200);
  });

  it('an authorize hook turns requests into 403 Forbidden Status bodies; other users get their own kubeconfig', async () => {
    const { fake, core } = await start({
      authorize: ({ user, verb, resource }) => !(user === 'operator' && resource === 'secrets' && verb === 'delete'),
    });
    fake.addToken('operator-token', 'operator');
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromFile(fake.kubeconfigFor('operator-token'));
    const operator = kubeconfig.makeApiClient(CoreV1Api);
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 's' } } });
    expect((await operator.readNamespacedSecret({ namespace: 'default', name: 's' })).metadata?.name).toBe('s');
    const denied = await rejection(operator.deleteNamespacedSecret({ namespace: 'default', name: 's' }));
    expect(denied.code).toBe(403);
    expect(denied.status.message).toBe(
      'secrets "s" is forbidden: User "operator" cannot delete resource "secrets" in API group "" in the namespace "default"',
    );
  });

  it('injected faults answer the next matching requests (with Retry-After), then the server answers normally', async () => {
    const { fake, core } = await start();
    fake.inject({
      status: 503,
      reason: 'ServiceUnavailable',
      message: 'etcd is away',
      method: 'GET',
      pathIncludes: '/secrets',
      times: 2,
      retryAfterSeconds: 1,
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      const failed = await rejection(core.listNamespacedSecret({ namespace: 'default' }));
      expect(failed.code).toBe(503);
      expect(failed.status).toMatchObject({ reason: 'ServiceUnavailable', message: 'etcd is away' });
    }
    expect((await core.listNamespacedSecret({ namespace: 'default' })).items).toEqual([]);
    expect(
      fake.requests.filter((seen) => seen.path === '/api/v1/namespaces/default/secrets').map((seen) => seen.status),
    ).toEqual([503, 503, 200]);
  });
});

describe('fake kube-api: watch knobs', () => {
  it('a connection dropped mid-event ends the client stream; resuming from the last resourceVersion loses nothing', async () => {
    const { fake, kubeconfig, core } = await start();
    const list = await core.listNamespacedSecret({ namespace: 'default' });
    const watch = await collectWatch(kubeconfig, '/api/v1/namespaces/default/secrets', {
      resourceVersion: list.metadata!.resourceVersion!,
    });
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'a' } } });
    await watch.next((event) => event.object.metadata?.name === 'a', 'ADDED a');
    fake.dropWatches({ midEvent: true });
    await watch.ended;
    expect(watch.events.map((event) => event.type)).toEqual(['ADDED']);
    expect(fake.openWatches).toBe(0);
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'b' } } });
    const resumed = await collectWatch(kubeconfig, '/api/v1/namespaces/default/secrets', {
      resourceVersion: watch.events[0]!.object.metadata!.resourceVersion!,
    });
    await resumed.next((event) => event.object.metadata?.name === 'b', 'ADDED b after the drop');
    expect(resumed.events.map((event) => `${event.type} ${event.object.metadata?.name}`)).toEqual(['ADDED b']);
    resumed.stop();
  });

  it('expireWatches sends an in-stream ERROR 410; tooOldResourceVersion "http" answers a compacted resume with HTTP 410', async () => {
    const { fake, kubeconfig, core } = await start();
    const watch = await collectWatch(kubeconfig, '/api/v1/namespaces/default/secrets', {
      resourceVersion: fake.currentResourceVersion(),
    });
    // The watch is open on the fake but has no event to show it: give it a moment to be registered.
    await new Promise((resolve) => setTimeout(resolve, 50));
    fake.expireWatches();
    await watch.ended;
    expect(watch.events).toEqual([
      { type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }) },
    ]);

    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'x' } } });
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'y' } } });
    fake.compact();
    fake.tooOldResourceVersion = 'http';
    const refused = await collectWatch(kubeconfig, '/api/v1/namespaces/default/secrets', { resourceVersion: '1' });
    expect(await refused.ended).toMatchObject({ statusCode: 410 });
    expect(refused.events).toEqual([]);
  });

  it('restart: connections are cut, objects survive with new resourceVersions, an old resourceVersion is 410 (or 504 "too large" after a rewind)', async () => {
    const { fake, kubeconfig, core } = await start();
    const created = await core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 'kept' }, stringData: { a: 'b' } },
    });
    const watch = await collectWatch(kubeconfig, '/api/v1/namespaces/default/secrets', {
      resourceVersion: created.metadata!.resourceVersion!,
    });
    const port = fake.port;
    await fake.restart({ downMs: 50 });
    await watch.ended;
    expect(fake.port).toBe(port);
    const after = await core.readNamespacedSecret({ namespace: 'default', name: 'kept' });
    expect(after.metadata?.uid).toBe(created.metadata?.uid);
    expect(Number(after.metadata?.resourceVersion)).toBeGreaterThan(1_000_000);
    const stale = await rejection(core.replaceNamespacedSecret({ namespace: 'default', name: 'kept', body: created }));
    expect(stale.code).toBe(409);
    const resumed = await collectWatch(kubeconfig, '/api/v1/namespaces/default/secrets', {
      resourceVersion: created.metadata!.resourceVersion!,
    });
    await resumed.ended;
    expect(resumed.events[0]?.object).toMatchObject({ code: 410 });

    await fake.restart({ rewind: true });
    const future = await collectWatch(kubeconfig, '/api/v1/namespaces/default/secrets', {
      resourceVersion: after.metadata!.resourceVersion!,
    });
    expect(await future.ended).toMatchObject({ statusCode: 504 });
  });

  it('bookmarks go out on the interval only when allowed; sendInitialEvents ends its ADDED events with an annotated bookmark; timeoutSeconds ends the stream', async () => {
    const { kubeconfig, core } = await start({ bookmarkIntervalMs: 30 });
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'one' } } });
    const allowed = await collectWatch(kubeconfig, '/api/v1/namespaces/default/secrets', {
      resourceVersion: '1',
      allowWatchBookmarks: true,
    });
    const plain = await collectWatch(kubeconfig, '/api/v1/namespaces/default/secrets', { resourceVersion: '1' });
    await allowed.next((event) => event.type === 'BOOKMARK', 'an interval bookmark');
    // A window, not a condition: the plain watch (no allowWatchBookmarks) must get no bookmark.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(plain.events).toEqual([]);
    allowed.stop();
    plain.stop();

    const initial = await collectWatch(kubeconfig, '/api/v1/namespaces/default/secrets', {
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
    });
    const end = await initial.next((event) => event.type === 'BOOKMARK', 'the initial-events-end bookmark');
    expect(initial.events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'one' } } });
    expect(end.object.metadata?.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    initial.stop();

    const timed = await collectWatch(kubeconfig, '/api/v1/namespaces/default/secrets', {
      resourceVersion: '1',
      timeoutSeconds: 1,
    });
    expect(await timed.ended).toBeNull();
  });
});

describe('fake kube-api: custom resources', () => {
  it('serves svc.dev ships and repos schemaless (status subresource on) until a CRD defines them; deleting the CRD deletes instances and brings the default back', async () => {
    const { fake, kubeconfig, custom } = await start();
    const ship = (await custom.createNamespacedCustomObject({
      ...SHIPS,
      body: {
        apiVersion: 'svc.dev/v1alpha1',
        kind: 'Ship',
        metadata: { name: 'node-a' },
        spec: { url: 'http://10.0.0.1:4700', anything: { goes: true } },
      },
    })) as { spec: unknown; metadata: { generation: number } };
    expect(ship.spec).toEqual({ url: 'http://10.0.0.1:4700', anything: { goes: true } });
    const statused = (await custom.patchNamespacedCustomObjectStatus(
      { ...SHIPS, name: 'node-a', body: { status: { bridgeStatus: 'online' } } },
      mergePatch,
    )) as { status: unknown; metadata: { generation: number } };
    expect(statused).toMatchObject({ status: { bridgeStatus: 'online' }, metadata: { generation: 1 } });
    expect(
      (await rawGet(kubeconfig, '/apis/svc.dev/v1alpha1/namespaces/default/repos', 'application/json')).status,
    ).toBe(200);

    const shipCrd = {
      ...WIDGET_CRD,
      metadata: { name: 'ships.svc.dev' },
      spec: {
        ...WIDGET_CRD.spec,
        group: 'svc.dev',
        names: { plural: 'ships', singular: 'ship', kind: 'Ship' },
        versions: [{ ...WIDGET_CRD.spec.versions[0]!, name: 'v1alpha1' }],
      },
    };
    expect(
      (
        await rawRequest(kubeconfig, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
          body: shipCrd,
        })
      ).status,
    ).toBe(201);
    // The fake registers a CRD's schema after answering: give it a turn before a create is pruned by it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const pruned = (await custom.createNamespacedCustomObject({
      ...SHIPS,
      body: {
        apiVersion: 'svc.dev/v1alpha1',
        kind: 'Ship',
        metadata: { name: 'node-b' },
        spec: { url: 'http://10.0.0.2:4700', anything: 1 },
      },
    })) as { spec: unknown };
    expect(pruned.spec).toEqual({ url: 'http://10.0.0.2:4700', size: 3 });
    const table = await rawGet(
      kubeconfig,
      '/apis/svc.dev/v1alpha1/namespaces/default/ships',
      'application/json;as=Table;v=v1;g=meta.k8s.io',
    );
    expect((table.body.columnDefinitions as Array<{ name: string }>).map((column) => column.name)).toEqual([
      'Name',
      'Color',
      'Size',
      'Ready',
      'Age',
    ]);

    await rawRequest(kubeconfig, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ships.svc.dev');
    await expect
      .poll(() => fake.read('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'ships.svc.dev', undefined))
      .toBeUndefined();
    expect(fake.list('svc.dev/v1alpha1', 'Ship')).toEqual([]);
    const schemaless = (await custom.createNamespacedCustomObject({
      ...SHIPS,
      body: { apiVersion: 'svc.dev/v1alpha1', kind: 'Ship', metadata: { name: 'node-c' }, spec: { anything: 2 } },
    })) as { spec: unknown };
    expect(schemaless.spec).toEqual({ anything: 2 });
  });

  it('loads CRDs from a directory of YAML at start, and the committed crds/ by default when there are any', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'svc-test-crds-'));
    scratch.push(directory);
    writeFileSync(
      join(directory, 'widget.yaml'),
      `# a comment\n---\n${stringify(WIDGET_CRD)}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ignored}\n`,
    );
    const { fake: fromDirectory, custom } = await start({ crds: directory });
    const created = (await custom.createNamespacedCustomObject({
      group: 'contract.svc.dev',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: { apiVersion: 'contract.svc.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { url: 'u' } },
    })) as { spec: unknown };
    expect(created.spec).toEqual({ url: 'u', size: 3 });
    const crd = fromDirectory.read(
      'apiextensions.k8s.io/v1',
      'CustomResourceDefinition',
      WIDGET_CRD.metadata.name,
      undefined,
    );
    expect((crd!.status as { conditions: Array<{ type: string; status: string }> }).conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Established', status: 'True' })]),
    );
    await fromDirectory.close();
    fake = undefined;

    const committed = readdirSync(COMMITTED_CRDS).filter((name) => /\.ya?ml$/.test(name));
    const withDefaults = await startFakeKubeApi();
    fake = withDefaults;
    const installed = withDefaults.list('apiextensions.k8s.io/v1', 'CustomResourceDefinition');
    expect(committed).toHaveLength(2);
    expect(installed).toHaveLength(committed.length);
  });
});

describe('fake kube-api: protocol details', () => {
  it('paginates with limit and continue (remainingItemCount); a continue token from before a compaction is 410', async () => {
    const { fake, core } = await start();
    for (const name of ['e', 'a', 'd', 'b', 'c'])
      await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name } } });
    const first = await core.listNamespacedSecret({ namespace: 'default', limit: 2 });
    expect(first.items.map((item) => item.metadata?.name)).toEqual(['a', 'b']);
    expect(first.metadata?.remainingItemCount).toBe(3);
    const second = await core.listNamespacedSecret({
      namespace: 'default',
      limit: 2,
      _continue: first.metadata!._continue!,
    });
    expect(second.items.map((item) => item.metadata?.name)).toEqual(['c', 'd']);
    const third = await core.listNamespacedSecret({
      namespace: 'default',
      limit: 2,
      _continue: second.metadata!._continue!,
    });
    expect(third.items.map((item) => item.metadata?.name)).toEqual(['e']);
    expect(third.metadata?._continue).toBeUndefined();
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'f' } } });
    fake.compact();
    expect(
      (
        await rejection(
          core.listNamespacedSecret({ namespace: 'default', limit: 2, _continue: first.metadata!._continue! }),
        )
      ).code,
    ).toBe(410);
  });

  it('label selectors: =, !=, in, notin, exists and !exists', async () => {
    const { core } = await start();
    const labelled = { a: { tier: 'web', env: 'prod' }, b: { tier: 'db', env: 'prod' }, c: { tier: 'web' }, d: {} };
    for (const [name, labels] of Object.entries(labelled))
      await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name, labels } } });
    const names = async (labelSelector: string) =>
      (await core.listNamespacedSecret({ namespace: 'default', labelSelector })).items.map(
        (item) => item.metadata?.name,
      );
    expect(await names('tier=web')).toEqual(['a', 'c']);
    expect(await names('tier!=web')).toEqual(['b', 'd']);
    expect(await names('tier in (db,cache),env')).toEqual(['b']);
    expect(await names('tier notin (web)')).toEqual(['b', 'd']);
    expect(await names('!env')).toEqual(['c', 'd']);
    expect((await rejection(core.listNamespacedSecret({ namespace: 'default', labelSelector: 'tier=(' }))).code).toBe(
      400,
    );
  });

  it('strategic merge patch on built-ins: lists merge by key, $patch delete and $deleteFromPrimitiveList apply, finalizers merge as a set; other content types are 415', async () => {
    const { kubeconfig, core } = await start();
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'p', finalizers: ['a/x'] },
        spec: {
          containers: [
            { name: 'one', image: 'i:1' },
            { name: 'two', image: 'i:2' },
          ],
        },
      },
    });
    const patched = await core.patchNamespacedPod(
      {
        namespace: 'default',
        name: 'p',
        body: {
          metadata: { finalizers: ['b/y'], '$deleteFromPrimitiveList/finalizers': ['a/x'] },
          spec: {
            containers: [
              { name: 'two', image: 'i:22' },
              { name: 'one', $patch: 'delete' },
              { name: 'three', image: 'i:3' },
            ],
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(patched.metadata?.finalizers).toEqual(['b/y']);
    expect(patched.spec?.containers.map((container) => `${container.name}=${container.image}`)).toEqual([
      'two=i:22',
      'three=i:3',
    ]);
    expect(patched.status).toEqual({ phase: 'Pending' });
    const text = await rawRequest(kubeconfig, 'PATCH', '/api/v1/namespaces/default/pods/p', {
      body: {},
      contentType: 'text/plain',
    });
    expect(text.status).toBe(415);
    expect(text.body).toMatchObject({ reason: 'UnsupportedMediaType' });
    const apply = await rawRequest(kubeconfig, 'PATCH', '/api/v1/namespaces/default/pods/p', {
      body: {},
      contentType: 'application/apply-patch+yaml',
    });
    expect(apply.status).toBe(415);
  });

  it("accepts YAML bodies, dry runs change nothing, and Secrets get kubectl's Table columns", async () => {
    const { fake, kubeconfig } = await start();
    const yaml = await rawRequest(kubeconfig, 'POST', '/api/v1/namespaces/default/secrets', { body: undefined });
    expect(yaml.status).toBe(400);
    const created = await new Promise<number>((resolve, reject) => {
      const options: Record<string, unknown> = { method: 'POST', headers: { 'Content-Type': 'application/yaml' } };
      void kubeconfig.applyToHTTPSOptions(options).then(() => {
        const call = request(`${fake.url}/api/v1/namespaces/default/secrets`, options, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        call.on('error', reject);
        call.end(
          'apiVersion: v1\nkind: Secret\nmetadata:\n  name: from-yaml\ntype: kubernetes.io/basic-auth\nstringData:\n  username: u\n  password: p\n',
        );
      });
    });
    expect(created).toBe(201);
    const dryRun = await rawRequest(kubeconfig, 'POST', '/api/v1/namespaces/default/secrets?dryRun=All', {
      body: { metadata: { name: 'dry' } },
    });
    expect(dryRun.status).toBe(201);
    expect(fake.read('v1', 'Secret', 'dry')).toBeUndefined();
    const table = await rawGet(
      kubeconfig,
      '/api/v1/namespaces/default/secrets',
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    );
    expect((table.body.columnDefinitions as Array<{ name: string }>).map((column) => column.name)).toEqual([
      'Name',
      'Type',
      'Data',
      'Age',
    ]);
    expect((table.body.rows as Array<{ cells: unknown[] }>)[0]!.cells.slice(0, 3)).toEqual([
      'from-yaml',
      'kubernetes.io/basic-auth',
      2,
    ]);
  });

  it('direct access for tests follows the same rules: create, read, list, writeStatus, remove', async () => {
    const { fake } = await start();
    fake.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'ship-x', labels: { app: 'ship' } },
      spec: { nodeName: 'node-1', containers: [{ name: 'ship', image: 'svc' }] },
    });
    const ready = fake.writeStatus('v1', 'Pod', 'ship-x', {
      phase: 'Running',
      hostIP: '10.0.0.5',
      conditions: [{ type: 'Ready', status: 'True' }],
    });
    expect(ready.status).toMatchObject({ phase: 'Running', hostIP: '10.0.0.5' });
    expect(fake.list('v1', 'Pod').map((pod) => pod.metadata.name)).toEqual(['ship-x']);
    expect(() => fake.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ship-x' } })).toThrow(
      /already exists/,
    );
    fake.remove('v1', 'Pod', 'ship-x');
    expect(fake.read('v1', 'Pod', 'ship-x')).toBeUndefined();
  });
});
