// Kubernetes API contract: what the operator relies on, exercised with @kubernetes/client-node 1.4 — CRUD,
// optimistic concurrency, generation and the status subresource, patch content types, CRD schema
// validation and pruning, CEL validation rules, watch with bookmarks and resume, 410 on a too-old resourceVersion, finalizers,
// owner references and garbage collection, Table output, and the built-in kinds the operator touches
// (Secrets, Pods, Events, DaemonSets, Leases).
//
// It runs against the fake API server (test/fakes/kube-api) always. To run the same assertions against a
// real cluster (kind, k3d, minikube, a dev cluster — anything where you may create a CRD):
//
//   SVC_KUBE_CONTRACT=real KUBECONFIG=$HOME/.kube/config npx vitest run test/kube/contract.test.ts
//
// Both variables are required (KUBECONFIG alone never sends test objects to a cluster). Optional:
// SVC_KUBE_CONTRACT_NAMESPACE (default: the context's namespace, else `default`). The run installs the CRD
// widgets.contract.svc.dev (its own group, never svc.dev), creates uniquely named objects and deletes them
// and the CRD afterwards. The few cases that need a knob only the fake has (bookmarks on demand, dropping a
// watch) say so in their names and assert the portable part on a cluster. Without SVC_KUBE_CONTRACT=real
// (CI) the real-cluster block is reported as skipped with that notice.
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  V1MicroTime,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll.js';
import { collectWatch, rawGet, rawRequest, rejection, uniqueName } from './client.js';
import { WIDGET, WIDGET_CRD } from './contract-crd.js';
import { fakeTarget, REAL_CLUSTER_KUBECONFIG, REAL_CLUSTER_NOTICE, realTarget, type ContractTarget } from './target.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

type Widget = KubernetesObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

const targets: Array<{ name: string; make: () => Promise<ContractTarget> }> = [
  { name: 'fake API server', make: () => fakeTarget() },
];
if (REAL_CLUSTER_KUBECONFIG) targets.push({ name: 'real cluster', make: realTarget });
else {
  describe.skip(`real cluster — ${REAL_CLUSTER_NOTICE}`, () => {
    it('runs the contract against KUBECONFIG', () => {});
  });
}

for (const { name: targetName, make } of targets) {
  describe(`Kubernetes API contract: ${targetName}`, () => {
    let target: ContractTarget;
    let core: CoreV1Api;
    let custom: CustomObjectsApi;
    let namespace: string;
    const widgetPath = () => `/apis/${WIDGET.group}/${WIDGET.version}/namespaces/${namespace}/${WIDGET.plural}`;
    const widgets = () => ({ group: WIDGET.group, version: WIDGET.version, namespace, plural: WIDGET.plural });
    const createWidget = (
      name: string,
      spec: Record<string, unknown> = { url: 'https://example.test/a' },
      metadata: Record<string, unknown> = {},
    ) =>
      custom.createNamespacedCustomObject({
        ...widgets(),
        body: {
          apiVersion: `${WIDGET.group}/${WIDGET.version}`,
          kind: WIDGET.kind,
          metadata: { name, ...metadata },
          spec,
        },
      }) as Promise<Widget>;
    const readWidget = (name: string) => custom.getNamespacedCustomObject({ ...widgets(), name }) as Promise<Widget>;
    const gone = async (read: Promise<unknown>) => (await rejection(read)).code === 404;

    beforeAll(async () => {
      target = await make();
      namespace = target.namespace;
      core = target.kubeconfig.makeApiClient(CoreV1Api);
      custom = target.kubeconfig.makeApiClient(CustomObjectsApi);
      const extensions = target.kubeconfig.makeApiClient(ApiextensionsV1Api);
      // Raw JSON: client-node's typed CRD model would drop `default` and `enum` (see client.ts rawRequest).
      const installed = await rawRequest(
        target.kubeconfig,
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        { body: WIDGET_CRD },
      );
      if (installed.status !== 201 && installed.status !== 409)
        throw new Error(`installing the contract CRD: ${installed.status} ${JSON.stringify(installed.body)}`);
      await until(
        async () => {
          const crd = await extensions.readCustomResourceDefinition({ name: WIDGET_CRD.metadata.name });
          return (
            crd.status?.conditions?.some(
              (condition) => condition.type === 'Established' && condition.status === 'True',
            ) ?? false
          );
        },
        'the contract CRD to be Established',
        30_000,
        100,
      );
      // Serving can lag Established by a moment on a real apiserver.
      await until(
        async () => (await custom.listNamespacedCustomObject(widgets())) !== undefined,
        'widgets to be served',
        30_000,
        200,
      );
    }, 60_000);

    afterAll(async () => {
      if (!target) return;
      const extensions = target.kubeconfig.makeApiClient(ApiextensionsV1Api);
      await extensions.deleteCustomResourceDefinition({ name: WIDGET_CRD.metadata.name }).catch(() => undefined);
      await target.close();
    });

    it('discovery lists the core, apps, coordination and apiextensions groups and the CRD group with its resource', async () => {
      const coreResources = (await core.getAPIResources()).resources.map((resource) => resource.name);
      expect(coreResources).toEqual(expect.arrayContaining(['secrets', 'pods', 'events', 'pods/status']));
      expect(
        (await target.kubeconfig.makeApiClient(AppsV1Api).getAPIResources()).resources.map((resource) => resource.name),
      ).toEqual(expect.arrayContaining(['daemonsets', 'daemonsets/status']));
      expect(
        (await target.kubeconfig.makeApiClient(CoordinationV1Api).getAPIResources()).resources.map(
          (resource) => resource.name,
        ),
      ).toContain('leases');
      const groups = await rawGet(target.kubeconfig, '/apis', 'application/json');
      const names = (groups.body.groups as Array<{ name: string }>).map((group) => group.name);
      expect(names).toEqual(
        expect.arrayContaining(['apps', 'coordination.k8s.io', 'apiextensions.k8s.io', WIDGET.group]),
      );
      const list = await rawGet(target.kubeconfig, `/apis/${WIDGET.group}/${WIDGET.version}`, 'application/json');
      const widgetResource = (list.body.resources as Array<Record<string, unknown>>).find(
        (resource) => resource.name === WIDGET.plural,
      );
      expect(widgetResource).toMatchObject({
        kind: WIDGET.kind,
        namespaced: true,
        singularName: 'widget',
        shortNames: ['wd'],
      });
      expect((list.body.resources as Array<{ name: string }>).map((resource) => resource.name)).toContain(
        `${WIDGET.plural}/status`,
      );
    });

    it('Secret CRUD: stringData is stored as base64 data, server fields are set, a deleted Secret is a 404 Status', async () => {
      const name = uniqueName('contract-secret');
      const created = await core.createNamespacedSecret({
        namespace,
        body: { metadata: { name, labels: { 'svc.dev/contract': name } }, stringData: { shipToken: 'ship-1' } },
      });
      expect(created.data).toEqual({ shipToken: Buffer.from('ship-1').toString('base64') });
      expect(created.type).toBe('Opaque');
      expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.metadata?.resourceVersion).toBeTruthy();
      expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
      expect(JSON.stringify(created)).not.toContain('stringData');

      const listed = await core.listNamespacedSecret({ namespace, labelSelector: `svc.dev/contract=${name}` });
      expect(listed.items.map((secret) => secret.metadata?.name)).toEqual([name]);
      expect(listed.metadata?.resourceVersion).toBeTruthy();

      const replaced = await core.replaceNamespacedSecret({
        namespace,
        name,
        body: { ...created, data: { ...created.data, bridgeToken: Buffer.from('bridge-1').toString('base64') } },
      });
      expect(Object.keys(replaced.data ?? {}).sort()).toEqual(['bridgeToken', 'shipToken']);
      expect(replaced.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);
      expect(replaced.metadata?.uid).toBe(created.metadata?.uid);

      const patched = await core.patchNamespacedSecret(
        { namespace, name, body: { metadata: { annotations: { note: 'x' } } } },
        mergePatch,
      );
      expect(patched.metadata?.annotations?.note).toBe('x');

      await core.deleteNamespacedSecret({ namespace, name });
      const missing = await rejection(core.readNamespacedSecret({ namespace, name }));
      expect(missing.code).toBe(404);
      expect(missing.status).toMatchObject({
        kind: 'Status',
        reason: 'NotFound',
        code: 404,
        details: { name, kind: 'secrets' },
      });
    });

    it('optimistic concurrency: a stale resourceVersion is a 409 Conflict, a second create a 409 AlreadyExists', async () => {
      const name = uniqueName('contract-conflict');
      const first = await core.createNamespacedSecret({
        namespace,
        body: { metadata: { name }, stringData: { a: '1' } },
      });
      await core.replaceNamespacedSecret({ namespace, name, body: { ...first, stringData: { a: '2' } } });
      const stale = await rejection(
        core.replaceNamespacedSecret({ namespace, name, body: { ...first, stringData: { a: '3' } } }),
      );
      expect(stale.code).toBe(409);
      expect(stale.status.reason).toBe('Conflict');
      const stalePatch = await rejection(
        core.patchNamespacedSecret(
          {
            namespace,
            name,
            body: { metadata: { resourceVersion: first.metadata?.resourceVersion }, stringData: { a: '4' } },
          },
          mergePatch,
        ),
      );
      expect(stalePatch.code).toBe(409);
      const again = await rejection(core.createNamespacedSecret({ namespace, body: { metadata: { name } } }));
      expect(again.code).toBe(409);
      expect(again.status.reason).toBe('AlreadyExists');
      expect(Buffer.from((await core.readNamespacedSecret({ namespace, name })).data!.a!, 'base64').toString()).toBe(
        '2',
      );
      await core.deleteNamespacedSecret({ namespace, name });
    });

    it('custom resource: generation counts spec changes only; the status subresource writes status only', async () => {
      const name = uniqueName('contract-gen');
      const created = (await custom.createNamespacedCustomObject({
        ...widgets(),
        body: {
          apiVersion: `${WIDGET.group}/${WIDGET.version}`,
          kind: WIDGET.kind,
          metadata: { name },
          spec: { url: 'https://example.test/g' },
          status: { phase: 'ignored' },
        },
      })) as Widget;
      expect(created.metadata?.generation).toBe(1);
      expect(created.status).toBeUndefined();
      expect(created.spec?.size).toBe(3);

      const statused = (await custom.patchNamespacedCustomObjectStatus(
        {
          ...widgets(),
          name,
          body: { status: { phase: 'Ready', observedGeneration: 1 }, spec: { url: 'https://ignored.test' } },
        },
        mergePatch,
      )) as Widget;
      expect(statused.metadata?.generation).toBe(1);
      expect(statused.status).toEqual({ phase: 'Ready', observedGeneration: 1 });
      expect(statused.spec?.url).toBe('https://example.test/g');
      expect(statused.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);

      // The same status again changes nothing: no new resourceVersion (controllers rely on this).
      const same = (await custom.patchNamespacedCustomObjectStatus(
        { ...widgets(), name, body: { status: { phase: 'Ready' } } },
        mergePatch,
      )) as Widget;
      expect(same.metadata?.resourceVersion).toBe(statused.metadata?.resourceVersion);

      const mainStatus = (await custom.patchNamespacedCustomObject(
        { ...widgets(), name, body: { status: { phase: 'Broken' } } },
        mergePatch,
      )) as Widget;
      expect(mainStatus.status?.phase).toBe('Ready');
      expect(mainStatus.metadata?.generation).toBe(1);

      const labelled = (await custom.patchNamespacedCustomObject(
        { ...widgets(), name, body: { metadata: { labels: { a: 'b' } } } },
        mergePatch,
      )) as Widget;
      expect(labelled.metadata?.generation).toBe(1);

      const respecced = (await custom.patchNamespacedCustomObject(
        { ...widgets(), name, body: { spec: { color: 'blue' } } },
        mergePatch,
      )) as Widget;
      expect(respecced.metadata?.generation).toBe(2);
      expect(respecced.status?.phase).toBe('Ready');

      const replaced = (await custom.replaceNamespacedCustomObjectStatus({
        ...widgets(),
        name,
        body: { ...respecced, status: { phase: 'Replaced', observedGeneration: 2 } },
      })) as Widget;
      expect(replaced.status).toEqual({ phase: 'Replaced', observedGeneration: 2 });
      expect(replaced.metadata?.generation).toBe(2);
      await custom.deleteNamespacedCustomObject({ ...widgets(), name });
    });

    it('patch content types: merge and JSON patch apply; strategic merge on a custom resource is a 415, an object sent as JSON patch a 400', async () => {
      const name = uniqueName('contract-patch');
      await createWidget(name, { url: 'https://example.test/p', color: 'red' });
      const patched = (await custom.patchNamespacedCustomObject(
        {
          ...widgets(),
          name,
          body: [
            { op: 'test', path: '/spec/color', value: 'red' },
            { op: 'replace', path: '/spec/color', value: 'green' },
            { op: 'add', path: '/spec/labels', value: { tier: 'x' } },
          ],
        },
        jsonPatch,
      )) as Widget;
      expect(patched.spec).toMatchObject({ color: 'green', labels: { tier: 'x' } });
      const failedTest = await rejection(
        custom.patchNamespacedCustomObject(
          {
            ...widgets(),
            name,
            body: [
              { op: 'test', path: '/spec/color', value: 'red' },
              { op: 'replace', path: '/spec/color', value: 'blue' },
            ],
          },
          jsonPatch,
        ),
      );
      expect(failedTest.code).toBe(422);
      expect((await readWidget(name)).spec?.color).toBe('green');

      // client-node's own defaults, as the operator would hit them without an explicit content type.
      const strategic = await rejection(
        target.kubeconfig.makeApiClient(KubernetesObjectApi).patch({
          apiVersion: `${WIDGET.group}/${WIDGET.version}`,
          kind: WIDGET.kind,
          metadata: { name, namespace },
          spec: { color: 'blue' },
        } as KubernetesObject),
      );
      expect(strategic.code).toBe(415);
      expect(strategic.status.reason).toBe('UnsupportedMediaType');
      const defaultContentType = await rejection(
        custom.patchNamespacedCustomObjectStatus({ ...widgets(), name, body: { status: { phase: 'x' } } }),
      );
      expect(defaultContentType.code).toBe(400);
      await custom.deleteNamespacedCustomObject({ ...widgets(), name });
    });

    it('CRD schema: required fields and enums are 422 with causes, defaults apply, unknown fields are pruned (Strict refuses them)', async () => {
      const name = uniqueName('contract-schema');
      const missing = await rejection(createWidget(name, { color: 'purple' }));
      expect(missing.code).toBe(422);
      expect(missing.status.reason).toBe('Invalid');
      expect(missing.status.details?.causes?.map((cause) => cause.field)).toEqual(
        expect.arrayContaining(['spec.url', 'spec.color']),
      );
      const range = await rejection(createWidget(name, { url: 'https://example.test', size: 11 }));
      expect(range.code).toBe(422);

      const pruned = await createWidget(name, { url: 'https://example.test/s', bogus: true, labels: { a: 'b' } });
      expect(pruned.spec).toEqual({ url: 'https://example.test/s', size: 3, labels: { a: 'b' } });
      const strict = await rejection(
        custom.createNamespacedCustomObject({
          ...widgets(),
          fieldValidation: 'Strict',
          body: {
            apiVersion: `${WIDGET.group}/${WIDGET.version}`,
            kind: WIDGET.kind,
            metadata: { name: `${name}-strict` },
            spec: { url: 'https://example.test', bogus: 1 },
          },
        }),
      );
      expect(strict.code).toBe(400);
      expect(strict.status.message).toContain('unknown field "spec.bogus"');

      const badStatus = await rejection(
        custom.patchNamespacedCustomObjectStatus(
          { ...widgets(), name, body: { status: { conditions: [{ type: 'Ready', status: 'Maybe' }] } } },
          mergePatch,
        ),
      );
      expect(badStatus.code).toBe(422);
      await custom.deleteNamespacedCustomObject({ ...widgets(), name });
    });

    it('CRD CEL rules: a conditional requirement and an immutable field (transition rule, checked on update only)', async () => {
      const name = uniqueName('contract-cel');
      for (const auth of [{ mode: 'Secret' }, { mode: 'Generated', secretRef: { name: 'x' } }]) {
        const refused = await rejection(createWidget(name, { url: 'https://example.test/c', auth }));
        expect(refused.code).toBe(422);
        expect(refused.status.message).toContain('secretRef is required exactly when mode is Secret');
        expect(refused.status.details?.causes?.[0]).toMatchObject({
          field: 'spec.auth.secretRef',
          reason: 'FieldValueRequired',
        });
      }
      await createWidget(name, {
        url: 'https://example.test/c',
        auth: { mode: 'Secret', secretRef: { name: 'tokens' } },
      });
      const moved = await rejection(
        custom.patchNamespacedCustomObject(
          { ...widgets(), name, body: { spec: { url: 'https://elsewhere.test' } } },
          mergePatch,
        ),
      );
      expect(moved.code).toBe(422);
      expect(moved.status.message).toContain('url is immutable');
      const generated = (await custom.patchNamespacedCustomObject(
        { ...widgets(), name, body: { spec: { auth: { mode: 'Generated', secretRef: null } } } },
        mergePatch,
      )) as Widget;
      expect(generated.spec?.auth).toEqual({ mode: 'Generated' });
      await custom.deleteNamespacedCustomObject({ ...widgets(), name });
    });

    it('watch: ADDED, MODIFIED, DELETED in order from a list resourceVersion; a resumed watch continues without gaps or repeats', async () => {
      const label = uniqueName('contract-watch');
      const list = await core.listNamespacedSecret({ namespace, labelSelector: `svc.dev/contract=${label}` });
      const watch = await collectWatch(target.kubeconfig, `/api/v1/namespaces/${namespace}/secrets`, {
        labelSelector: `svc.dev/contract=${label}`,
        resourceVersion: list.metadata!.resourceVersion!,
        allowWatchBookmarks: true,
      });
      const name = `${label}-a`;
      await core.createNamespacedSecret({
        namespace,
        body: { metadata: { name, labels: { 'svc.dev/contract': label } }, stringData: { v: '1' } },
      });
      await core.patchNamespacedSecret({ namespace, name, body: { stringData: { v: '2' } } }, mergePatch);
      await core.deleteNamespacedSecret({ namespace, name });
      await watch.next((event) => event.type === 'DELETED', 'the DELETED event');
      const changes = watch.events.filter((event) => event.type !== 'BOOKMARK');
      expect(changes.map((event) => `${event.type} ${event.object.metadata?.name}`)).toEqual([
        `ADDED ${name}`,
        `MODIFIED ${name}`,
        `DELETED ${name}`,
      ]);
      const versions = changes.map((event) => Number(event.object.metadata?.resourceVersion));
      expect(versions).toEqual([...versions].sort((a, b) => a - b));
      watch.stop();
      await watch.ended;

      const lastSeen = changes[changes.length - 1]!.object.metadata!.resourceVersion!;
      const later = `${label}-b`;
      await core.createNamespacedSecret({
        namespace,
        body: { metadata: { name: later, labels: { 'svc.dev/contract': label } } },
      });
      const resumed = await collectWatch(target.kubeconfig, `/api/v1/namespaces/${namespace}/secrets`, {
        labelSelector: `svc.dev/contract=${label}`,
        resourceVersion: lastSeen,
      });
      await resumed.next(
        (event) => event.type === 'ADDED' && event.object.metadata?.name === later,
        'the object created while no watch was open',
      );
      await core.deleteNamespacedSecret({ namespace, name: later });
      await resumed.next((event) => event.type === 'DELETED', 'the DELETED event on the resumed watch');
      expect(resumed.events.map((event) => `${event.type} ${event.object.metadata?.name}`)).toEqual([
        `ADDED ${later}`,
        `DELETED ${later}`,
      ]);
      resumed.stop();
    });

    it('watch: a label selector turns objects entering and leaving it into ADDED and DELETED', async () => {
      const label = uniqueName('contract-sel');
      const name = `${label}-x`;
      const watch = await collectWatch(target.kubeconfig, `/api/v1/namespaces/${namespace}/secrets`, {
        labelSelector: `svc.dev/contract=${label}`,
        resourceVersion: (await core.listNamespacedSecret({ namespace, limit: 1 })).metadata!.resourceVersion!,
      });
      await core.createNamespacedSecret({ namespace, body: { metadata: { name } } });
      await core.patchNamespacedSecret(
        { namespace, name, body: { metadata: { labels: { 'svc.dev/contract': label } } } },
        mergePatch,
      );
      await core.patchNamespacedSecret(
        { namespace, name, body: { metadata: { labels: { 'svc.dev/contract': null } } } },
        mergePatch,
      );
      await watch.next((event) => event.type === 'DELETED', 'the object leaving the selector');
      expect(watch.events.filter((event) => event.type !== 'BOOKMARK').map((event) => event.type)).toEqual([
        'ADDED',
        'DELETED',
      ]);
      watch.stop();
      await core.deleteNamespacedSecret({ namespace, name });
    });

    it('watch bookmarks carry a resourceVersion to resume from (on demand on the fake; a cluster sends them about once a minute, not awaited)', async () => {
      const label = uniqueName('contract-bm');
      const list = await core.listNamespacedSecret({ namespace, labelSelector: `svc.dev/contract=${label}` });
      const watch = await collectWatch(target.kubeconfig, `/api/v1/namespaces/${namespace}/secrets`, {
        labelSelector: `svc.dev/contract=${label}`,
        resourceVersion: list.metadata!.resourceVersion!,
        allowWatchBookmarks: true,
      });
      const unrelated = uniqueName('contract-unrelated');
      await core.createNamespacedSecret({ namespace, body: { metadata: { name: unrelated } } });
      if (!target.fake) {
        watch.stop();
        await core.deleteNamespacedSecret({ namespace, name: unrelated });
        return;
      }
      target.fake.sendBookmarks();
      const bookmark = await watch.next((event) => event.type === 'BOOKMARK', 'a bookmark');
      expect(Number(bookmark.object.metadata?.resourceVersion)).toBeGreaterThan(Number(list.metadata!.resourceVersion));
      expect(bookmark.object).toMatchObject({ kind: 'Secret', apiVersion: 'v1' });
      watch.stop();
      // Resuming from the bookmark skips everything before it.
      const resumed = await collectWatch(target.kubeconfig, `/api/v1/namespaces/${namespace}/secrets`, {
        resourceVersion: bookmark.object.metadata!.resourceVersion!,
      });
      await core.deleteNamespacedSecret({ namespace, name: unrelated });
      await resumed.next((event) => event.type === 'DELETED', 'the deletion after the bookmark');
      expect(resumed.events.map((event) => event.type)).toEqual(['DELETED']);
      resumed.stop();
    });

    it('watch from a resourceVersion history no longer holds answers 410 Expired (HTTP status or in-stream ERROR event)', async () => {
      if (target.fake) {
        await core.createNamespacedSecret({ namespace, body: { metadata: { name: uniqueName('contract-old') } } });
        target.fake.compact();
      }
      // "1" is older than any cluster's watch cache window; on the fake, compaction just made it so.
      const watch = await collectWatch(target.kubeconfig, `/api/v1/namespaces/${namespace}/secrets`, {
        resourceVersion: '1',
        allowWatchBookmarks: true,
      });
      // Either form ends the stream: an HTTP error reaches `done` as the error, an ERROR event comes first.
      const error = await watch.ended;
      const event = watch.events.find((candidate) => candidate.type === 'ERROR');
      if (event) {
        expect(event.object).toMatchObject({ kind: 'Status', code: 410 });
        expect(['Expired', 'Gone']).toContain(event.object.reason);
      } else {
        expect((error as { statusCode?: number }).statusCode).toBe(410);
      }
    });

    it('finalizers: delete only marks the object; no finalizer can be added then; it goes when the last is removed', async () => {
      const name = uniqueName('contract-fin');
      const created = await createWidget(name, { url: 'https://example.test/f' }, { finalizers: ['svc.dev/contract'] });
      const watch = await collectWatch(target.kubeconfig, widgetPath(), {
        fieldSelector: `metadata.name=${name}`,
        resourceVersion: created.metadata!.resourceVersion!,
      });
      await custom.deleteNamespacedCustomObject({ ...widgets(), name });
      const marked = await readWidget(name);
      expect(marked.metadata?.deletionTimestamp).toBeDefined();
      expect(marked.metadata?.finalizers).toEqual(['svc.dev/contract']);
      await watch.next((event) => event.type === 'MODIFIED', 'the deletionTimestamp update');
      // Deleting again changes nothing.
      await custom.deleteNamespacedCustomObject({ ...widgets(), name });
      const added = await rejection(
        custom.patchNamespacedCustomObject(
          { ...widgets(), name, body: { metadata: { finalizers: ['svc.dev/contract', 'svc.dev/other'] } } },
          mergePatch,
        ),
      );
      expect(added.code).toBe(422);
      await custom.patchNamespacedCustomObject(
        { ...widgets(), name, body: { metadata: { finalizers: null } } },
        mergePatch,
      );
      await watch.next((event) => event.type === 'DELETED', 'the DELETED event');
      expect(await gone(readWidget(name))).toBe(true);
      watch.stop();
    });

    it('owner references: background deletion collects dependents; Orphan keeps them and drops the reference; Foreground deletes them first', async () => {
      const ownedSecret = async (owner: Widget, name: string) =>
        core.createNamespacedSecret({
          namespace,
          body: {
            metadata: {
              name,
              ownerReferences: [
                {
                  apiVersion: `${WIDGET.group}/${WIDGET.version}`,
                  kind: WIDGET.kind,
                  name: owner.metadata!.name!,
                  uid: owner.metadata!.uid!,
                  controller: true,
                  blockOwnerDeletion: true,
                },
              ],
            },
            stringData: { a: 'b' },
          },
        });

      const background = await createWidget(uniqueName('contract-owner'));
      const dependent = uniqueName('contract-dep');
      await ownedSecret(background, dependent);
      await custom.deleteNamespacedCustomObject({ ...widgets(), name: background.metadata!.name! });
      await until(
        () => gone(core.readNamespacedSecret({ namespace, name: dependent })),
        'the garbage collector to delete the dependent',
        30_000,
        100,
      );

      const orphaning = await createWidget(uniqueName('contract-orphan'));
      const orphan = uniqueName('contract-orphaned');
      await ownedSecret(orphaning, orphan);
      await custom.deleteNamespacedCustomObject({
        ...widgets(),
        name: orphaning.metadata!.name!,
        propagationPolicy: 'Orphan',
      });
      await until(() => gone(readWidget(orphaning.metadata!.name!)), 'the orphaning owner to go', 30_000, 100);
      await until(
        async () =>
          ((await core.readNamespacedSecret({ namespace, name: orphan })).metadata?.ownerReferences ?? []).length === 0,
        'the owner reference to be removed',
        30_000,
        100,
      );
      await core.deleteNamespacedSecret({ namespace, name: orphan });

      const foreground = await createWidget(uniqueName('contract-fg'));
      const held = uniqueName('contract-held');
      await ownedSecret(foreground, held);
      await custom.deleteNamespacedCustomObject({
        ...widgets(),
        name: foreground.metadata!.name!,
        propagationPolicy: 'Foreground',
      });
      await until(
        () => gone(core.readNamespacedSecret({ namespace, name: held })),
        'the foreground dependent to go',
        30_000,
        100,
      );
      await until(
        () => gone(readWidget(foreground.metadata!.name!)),
        'the foreground owner to go after its dependents',
        30_000,
        100,
      );
    });

    it('Table output for kubectl get: the CRD printer columns, with the condition filter column', async () => {
      const name = uniqueName('contract-table');
      await createWidget(name, { url: 'https://example.test/t', color: 'blue' });
      await custom.patchNamespacedCustomObjectStatus(
        {
          ...widgets(),
          name,
          body: {
            status: {
              conditions: [
                { type: 'Other', status: 'False' },
                { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z' },
              ],
            },
          },
        },
        mergePatch,
      );
      const table = await rawGet(
        target.kubeconfig,
        `${widgetPath()}?fieldSelector=metadata.name%3D${name}`,
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
      );
      expect(table.status).toBe(200);
      expect(table.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
      expect((table.body.columnDefinitions as Array<{ name: string }>).map((column) => column.name)).toEqual([
        'Name',
        'Color',
        'Size',
        'Ready',
        'Age',
      ]);
      const rows = table.body.rows as Array<{ cells: unknown[]; object: { kind: string; metadata: { name: string } } }>;
      expect(rows).toHaveLength(1);
      expect(rows[0]!.cells.slice(0, 4)).toEqual([name, 'blue', 3, 'True']);
      expect(rows[0]!.cells[4]).toMatch(/^\d+s$/);
      expect(rows[0]!.object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name } });
      await custom.deleteNamespacedCustomObject({ ...widgets(), name });
    });

    it('subresources that do not exist are 404: secrets have no /status', async () => {
      const name = uniqueName('contract-nostatus');
      await core.createNamespacedSecret({ namespace, body: { metadata: { name } } });
      expect(
        (await rawGet(target.kubeconfig, `/api/v1/namespaces/${namespace}/secrets/${name}/status`, 'application/json'))
          .status,
      ).toBe(404);
      await core.deleteNamespacedSecret({ namespace, name });
    });

    it('Leases: MicroTime fields need six fractional digits (V1MicroTime); a stale update loses with 409 (leader election)', async () => {
      const leases = target.kubeconfig.makeApiClient(CoordinationV1Api);
      const name = uniqueName('contract-lease');
      const plainDate = await rejection(
        leases.createNamespacedLease({
          namespace,
          body: { metadata: { name }, spec: { holderIdentity: 'a', renewTime: new Date() } },
        }),
      );
      expect(plainDate.code).toBe(400);
      const lease = await leases.createNamespacedLease({
        namespace,
        body: {
          metadata: { name },
          spec: {
            holderIdentity: 'a',
            leaseDurationSeconds: 15,
            acquireTime: new V1MicroTime(),
            renewTime: new V1MicroTime(),
            leaseTransitions: 0,
          },
        },
      });
      expect(lease.spec?.holderIdentity).toBe('a');
      const renewed = await leases.replaceNamespacedLease({
        namespace,
        name,
        body: { ...lease, spec: { ...lease.spec, renewTime: new V1MicroTime() } },
      });
      const usurper = await rejection(
        leases.replaceNamespacedLease({
          namespace,
          name,
          body: { ...lease, spec: { ...lease.spec, holderIdentity: 'b', renewTime: new V1MicroTime() } },
        }),
      );
      expect(usurper.code).toBe(409);
      expect((await leases.readNamespacedLease({ namespace, name })).metadata?.resourceVersion).toBe(
        renewed.metadata?.resourceVersion,
      );
      await leases.deleteNamespacedLease({ namespace, name });
    });

    it('DaemonSets and Pods: generation follows the spec, /status writes status; pods select by spec.nodeName; Events list by involvedObject', async () => {
      const apps = target.kubeconfig.makeApiClient(AppsV1Api);
      const name = uniqueName('contract-ds');
      const labels = { app: name };
      // A node selector nothing matches, so a real cluster never runs these pods.
      const template = {
        metadata: { labels },
        spec: {
          nodeSelector: { 'svc.dev/contract': 'nowhere' },
          containers: [{ name: 'ship', image: 'registry.invalid/ship:1' }],
        },
      };
      const daemonSet = await apps.createNamespacedDaemonSet({
        namespace,
        body: { metadata: { name }, spec: { selector: { matchLabels: labels }, template } },
      });
      expect(daemonSet.metadata?.generation).toBe(1);
      // A merge patch (no resourceVersion): on a cluster the DaemonSet controller writes status too.
      const status = await apps.patchNamespacedDaemonSetStatus(
        {
          namespace,
          name,
          body: {
            status: {
              currentNumberScheduled: 0,
              desiredNumberScheduled: 0,
              numberMisscheduled: 0,
              numberReady: 0,
              observedGeneration: 1,
            },
          },
        },
        mergePatch,
      );
      expect(status.metadata?.generation).toBe(1);
      const changed = await apps.patchNamespacedDaemonSet(
        { namespace, name, body: { spec: { template: { metadata: { labels: { ...labels, rev: '2' } } } } } },
        mergePatch,
      );
      expect(changed.metadata?.generation).toBe(2);
      await apps.deleteNamespacedDaemonSet({ namespace, name });

      const pod = uniqueName('contract-pod');
      const node = uniqueName('contract-node');
      // spec.nodeName of a node that does not exist: a cluster keeps the pod Pending and runs nothing.
      await core.createNamespacedPod({
        namespace,
        body: {
          metadata: { name: pod, labels },
          spec: { nodeName: node, containers: [{ name: 'ship', image: 'registry.invalid/ship:1' }] },
        },
      });
      const onNode = await core.listNamespacedPod({ namespace, fieldSelector: `spec.nodeName=${node}` });
      expect(onNode.items.map((item) => item.metadata?.name)).toEqual([pod]);
      const unsupported = await rejection(core.listNamespacedPod({ namespace, fieldSelector: 'spec.noSuchField=x' }));
      expect(unsupported.code).toBe(400);

      const event = uniqueName('contract-event');
      await core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name: event },
          involvedObject: { kind: 'Pod', name: pod, namespace },
          reason: 'Contract',
          message: 'hello',
          type: 'Normal',
          source: { component: 'svc-contract' },
        },
      });
      const events = await core.listNamespacedEvent({
        namespace,
        fieldSelector: `involvedObject.name=${pod},reason=Contract`,
      });
      expect(events.items.map((item) => item.message)).toEqual(['hello']);
      await core.deleteNamespacedEvent({ namespace, name: event });
      await core.deleteNamespacedPod({ namespace, name: pod, gracePeriodSeconds: 0 });
    });
  });
}
