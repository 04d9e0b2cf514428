// Kubernetes access (operator/kube/clients.ts): the kubeconfig is taken in docs/architecture.md §10's order — the pod's
// service account, else KUBECONFIG, else ~/.kube/config — with the namespace defaulting to the pod's own, else
// the context's; and a merge patch sent with MERGE_PATCH applies to a custom resource's status, where
// client-node's default content type is refused; and every call, generated client or raw list, goes over one
// kept-alive connection (client-node alone makes a new agent, so a new TLS handshake, per call).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiException } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { loadKubeConfig, makeKubeClients, MERGE_PATCH, SERVICE_ACCOUNT_DIR } from '../../operator/kube/clients.js';
import { collectionPath, KubeHttp } from '../../operator/kube/http.js';
import { SHIP_API, SHIPS, ship, startFake } from './runtime-fixture.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), 'svc-test-operator-kube-'));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

const KUBECONFIG = (server: string, namespace?: string) => `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "${server}" } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u${namespace ? `, namespace: ${namespace}` : ''} } }]
current-context: x
`;

describe('kubeconfig loading', () => {
  it('in a pod: the service account wins over KUBECONFIG, and its namespace file is the default namespace', () => {
    const root = scratch();
    const saDir = join(root, SERVICE_ACCOUNT_DIR);
    mkdirSync(saDir, { recursive: true });
    writeFileSync(join(saDir, 'token'), 'sa-token');
    writeFileSync(join(saDir, 'ca.crt'), '');
    writeFileSync(join(saDir, 'namespace'), 'svc-system\n');
    const kubeconfig = join(root, 'kubeconfig');
    writeFileSync(kubeconfig, KUBECONFIG('https://elsewhere:6443', 'other'));
    const loaded = loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443', KUBECONFIG: kubeconfig },
      serviceAccountDir: saDir,
    });
    expect(loaded.source).toBe('in-cluster');
    expect(loaded.namespace).toBe('svc-system');
    expect(loaded.config.getCurrentCluster()?.server).toBe('https://10.0.0.1:443');
  });

  it('outside a pod: KUBECONFIG, with the context namespace; else ~/.kube/config; else a clear error', () => {
    const root = scratch();
    const kubeconfig = join(root, 'kubeconfig');
    writeFileSync(kubeconfig, KUBECONFIG('https://from-env:6443', 'team-a'));
    const fromEnv = loadKubeConfig({
      env: { KUBECONFIG: kubeconfig },
      serviceAccountDir: join(root, 'absent', SERVICE_ACCOUNT_DIR),
    });
    expect(fromEnv).toMatchObject({ source: 'KUBECONFIG', namespace: 'team-a' });
    expect(fromEnv.config.getCurrentCluster()?.server).toBe('https://from-env:6443');
    // A list of files: the first to name the current context wins, as with kubectl.
    const second = join(root, 'second');
    writeFileSync(
      second,
      KUBECONFIG('https://second:6443')
        .replace(/name: c\b/, 'name: c2')
        .replace('cluster: c,', 'cluster: c2,')
        .replace(/name: x\b/, 'name: y')
        .replace('current-context: x', 'current-context: y'),
    );
    const merged = loadKubeConfig({
      env: { KUBECONFIG: `${kubeconfig}:${second}` },
      serviceAccountDir: join(root, 'absent', SERVICE_ACCOUNT_DIR),
    });
    expect(merged.config.getCurrentCluster()?.server).toBe('https://from-env:6443');
    expect(merged.config.getContextObject('y')?.cluster).toBe('c2');

    // Service host set but no token mounted (e.g. automountServiceAccountToken: false): not in-cluster.
    const home = join(root, 'home');
    mkdirSync(join(home, '.kube'), { recursive: true });
    writeFileSync(join(home, '.kube', 'config'), KUBECONFIG('https://from-home:6443'));
    const fromHome = loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
      serviceAccountDir: join(root, 'absent', SERVICE_ACCOUNT_DIR),
      home,
    });
    expect(fromHome).toMatchObject({ source: 'home', namespace: 'default' });
    expect(fromHome.config.getCurrentCluster()?.server).toBe('https://from-home:6443');

    expect(() =>
      loadKubeConfig({
        env: {},
        serviceAccountDir: join(root, 'absent', SERVICE_ACCOUNT_DIR),
        home: join(root, 'nobody'),
      }),
    ).toThrow(/no Kubernetes configuration/);
  });
});

describe('patch content types', () => {
  it('MERGE_PATCH merges into a custom resource status and metadata; the generated default is refused', async () => {
    const { fake, config } = await startFake();
    cleanups.push(() => fake.close());
    fake.create(ship('a'));
    const { custom } = makeKubeClients(config);
    const target = { group: 'svc.dev', version: 'v1alpha1', namespace: 'default', plural: 'ships', name: 'a' };
    await custom.patchNamespacedCustomObjectStatus(
      { ...target, body: { status: { bridgeStatus: 'online', conditions: [] } } },
      MERGE_PATCH,
    );
    await custom.patchNamespacedCustomObject(
      { ...target, body: { metadata: { finalizers: ['svc.dev/deregister'] } } },
      MERGE_PATCH,
    );
    const read = fake.read(SHIP_API, 'Ship', 'a', 'default')!;
    expect(read.status).toMatchObject({ bridgeStatus: 'online' });
    expect(read.metadata.finalizers).toEqual(['svc.dev/deregister']);
    const refused = await custom
      .patchNamespacedCustomObjectStatus({ ...target, body: { status: { bridgeStatus: 'offline' } } })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(ApiException);
    expect([400, 415]).toContain((refused as ApiException<unknown>).code);
    expect(fake.requests.filter((request) => request.method === 'PATCH').map((request) => request.contentType)).toEqual(
      ['application/merge-patch+json', 'application/merge-patch+json', 'application/json-patch+json'],
    );
  });
});

describe('connections', () => {
  it('generated clients and raw lists share one kept-alive connection to the API server', async () => {
    const { fake, config } = await startFake();
    cleanups.push(() => fake.close());
    fake.create(ship('a'));
    const kube = makeKubeClients(config);
    const http = new KubeHttp(config, kube.agent);
    cleanups.push(() => kube.agent.destroy());
    const before = fake.connectionsAccepted;
    const target = { group: 'svc.dev', version: 'v1alpha1', namespace: 'default', plural: 'ships', name: 'a' };
    for (let call = 0; call < 10; call++) {
      await kube.custom.getNamespacedCustomObject(target);
      await kube.custom.patchNamespacedCustomObjectStatus(
        { ...target, body: { status: { bridgeStatus: `call-${call}` } } },
        MERGE_PATCH,
      );
      const list = await http.getJson<{ items: unknown[] }>(
        collectionPath(SHIPS, 'default'),
        {},
        AbortSignal.timeout(5000),
      );
      expect(list.items).toHaveLength(1);
    }
    expect(fake.read(SHIP_API, 'Ship', 'a', 'default')!.status).toMatchObject({ bridgeStatus: 'call-9' });
    expect(fake.connectionsAccepted - before).toBe(1);
  });
});
