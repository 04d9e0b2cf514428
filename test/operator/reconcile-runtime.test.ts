// The reconcilers under the real runtime (issue #19): OperatorRuntime's watches, caches and work queues over
// the fake Kubernetes API drive createReconcilers' reconcilers against a real bridge on PostgreSQL and a real
// ship — no reconcile called by hand. A Ship applied becomes Ready once its ship runs with the Generated
// pair; the chart Secrets appear next to a Helm release Secret; a Repo registers; deleting both
// deregisters them; nothing the operator logged holds a token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { OperatorMetrics } from '../../operator/health/metrics.js';
import { OperatorRuntime } from '../../operator/runtime/runtime.js';
import { createReconcilersWith, SECRET_RESOURCE } from '../../operator/reconcile/index.js';
import { MERGE_PATCH } from '../../operator/kube/clients.js';
import { freePort } from '../helpers/ports.js';
import { until } from '../helpers/poll.js';
import {
  ADMIN,
  condition,
  hasPostgres,
  NAMESPACE,
  repoObject,
  shipObject,
  startHarness,
  type Harness,
} from './reconcile-harness.js';

let h: Harness;
let runtime: OperatorRuntime;
const logs: string[] = [];
const secrets: string[] = [];

describe.skipIf(!hasPostgres)('reconcilers under the operator runtime', () => {
  beforeAll(async () => {
    h = await startHarness();
    runtime = new OperatorRuntime({
      kube: h.kube,
      reconcilers: (context) =>
        createReconcilersWith(context, {
          credentials: { kind: 'login', username: ADMIN.username, password: ADMIN.password },
          options: { refreshMs: 500, shipRetryMs: 300, bridgeRetryMs: 300, rosterMaxAgeMs: 100 },
        }),
      options: { bridgeUrl: h.bridgeUrl, namespace: NAMESPACE, daemonsetGraceMs: 600_000 },
      log: pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) }),
      metrics: new OperatorMetrics({ processMetrics: false }),
      watch: { restart: { baseMs: 20, maxMs: 200 } },
    });
    runtime.start();
    await runtime.whenSynced();
  }, 60_000);

  afterAll(async () => {
    await runtime?.stop();
    await h?.close();
  });

  it('a Ship applied with kubectl-style writes becomes Ready by itself once its ship runs with the Generated pair', async () => {
    const port = await freePort();
    await h.kube.custom.createNamespacedCustomObject({
      group: 'svc.dev',
      version: 'v1alpha1',
      plural: 'ships',
      namespace: NAMESPACE,
      body: shipObject('runner', { url: `http://127.0.0.1:${port}` }),
    });
    await until(async () => h.secret('runner-tokens') ?? null, 'the runtime to create runner-tokens', 10_000);
    const pair = h.tokensIn('runner-tokens');
    secrets.push(pair.shipToken, pair.bridgeToken);
    await h.startShip('runner', { port, ...pair });
    await until(
      async () => condition(h.ship('runner'), 'Ready')?.status === 'True',
      'runner Ready through the runtime',
      15_000,
    );
    expect(h.ship('runner')!.status).toMatchObject({
      shipName: 'runner',
      bridgeStatus: 'online',
      tokenSecretName: 'runner-tokens',
    });
    const listed = await h.asAdmin('GET', '/ships');
    expect(listed.body).toEqual([{ name: 'runner', url: `http://127.0.0.1:${port}`, status: 'online' }]);
  });

  it('TokensInvalid from a Secret the operator watches waits for its event, not a timer: a key removed and put back', async () => {
    const patchSecret = (data: Record<string, string | null>) =>
      h.kube.core.patchNamespacedSecret({ namespace: NAMESPACE, name: 'runner-tokens', body: { data } }, MERGE_PATCH);
    const bridgeToken = h.secret('runner-tokens')!.data!.bridgeToken!;
    await patchSecret({ bridgeToken: null });
    await until(
      async () => condition(h.ship('runner'), 'Ready')?.reason === 'TokensInvalid',
      'runner TokensInvalid (bridgeToken removed)',
      10_000,
    );
    // No requeue after TokensInvalid of a watched Secret: the queue of the only Ship goes idle with no
    // timer pending (before, a 30 s one; 500 ms here), so only the Secret's event can bring it back.
    const ships = runtime.queueOf('Ship')!;
    await until(
      async () => ships.waiting === 0 && ships.active === 0 && ships.depth === 0,
      'the Ship queue idle with no requeue pending',
      10_000,
    );
    await patchSecret({ bridgeToken });
    await until(
      async () => condition(h.ship('runner'), 'Ready')?.status === 'True',
      'runner Ready once the key is back',
      10_000,
    );
  });

  it('the chart Secrets are created at start, with no Secret event', async () => {
    await until(async () => (h.secret('svc-admin') && h.secret('svc-postgres')) ?? null, 'the chart Secrets', 10_000);
  });

  it("watches and caches only the Secrets the operator made; a Ship using a user's Secret reads it from the API server, and sees it fixed by the refresh", async () => {
    h.fake.create({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'helm.sh/release.v1',
      metadata: { name: 'sh.helm.release.v1.svc.v1', namespace: NAMESPACE },
      stringData: { release: 'x' },
    });
    const userSecret = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: { name: 'userland-creds', namespace: NAMESPACE },
      stringData: data,
    });
    const pair = { shipToken: 'userland-ship-token-0123456789', bridgeToken: 'userland-bridge-token-0123456789' };
    secrets.push(pair.shipToken, pair.bridgeToken);
    h.fake.create(userSecret({ shipToken: pair.shipToken }));
    const port = await freePort();
    await h.startShip('userland', { port, ...pair });
    h.fake.create(
      shipObject('userland', {
        url: `http://127.0.0.1:${port}`,
        auth: { mode: 'Secret', secretRef: { name: 'userland-creds' } },
      }),
    );
    await until(
      async () => condition(h.ship('userland'), 'Ready')?.reason === 'TokensInvalid',
      'userland TokensInvalid (one key)',
      10_000,
    );
    // The user's Secret changes: no event reaches the operator (it does not watch that Secret); the Ship's
    // refresh (500 ms here) reads it again.
    h.fake.remove('v1', 'Secret', 'userland-creds');
    h.fake.create(userSecret(pair));
    await until(
      async () => condition(h.ship('userland'), 'Ready')?.status === 'True',
      'userland Ready once its Secret holds both keys',
      10_000,
    );

    const cached = runtime.cache
      .list(SECRET_RESOURCE, NAMESPACE)
      .map((secret) => secret.metadata?.name)
      .sort();
    expect(cached).toEqual(['runner-tokens', 'svc-admin', 'svc-postgres'].filter((name) => h.secret(name)));
    const secretLists = h.fake.requests.filter(
      (request) => request.method === 'GET' && request.path.endsWith('/secrets'),
    );
    expect(secretLists.length).toBeGreaterThan(0);
    for (const request of secretLists)
      expect(new URLSearchParams(request.query).get('labelSelector')).toBe('app.kubernetes.io/managed-by=svc-operator');
    // Read by name instead.
    expect(
      h.fake.requests.some((request) => request.method === 'GET' && request.path.endsWith('/secrets/userland-creds')),
    ).toBe(true);
    await h.kube.custom.deleteNamespacedCustomObject({
      group: 'svc.dev',
      version: 'v1alpha1',
      plural: 'ships',
      namespace: NAMESPACE,
      name: 'userland',
    });
    await until(async () => !h.ship('userland') || null, 'userland gone', 10_000);
  });

  it('a Repo registers, and deleting the Repo and the Ship deregisters both', async () => {
    await h.kube.custom.createNamespacedCustomObject({
      group: 'svc.dev',
      version: 'v1alpha1',
      plural: 'repos',
      namespace: NAMESPACE,
      body: repoObject('web', { url: 'https://example.com/web.git' }),
    });
    await until(async () => condition(h.repo('web'), 'Ready')?.status === 'True', 'web Ready', 10_000);
    await h.kube.custom.patchNamespacedCustomObject(
      {
        group: 'svc.dev',
        version: 'v1alpha1',
        plural: 'repos',
        namespace: NAMESPACE,
        name: 'web',
        body: { spec: { provider: 'github' } },
      },
      MERGE_PATCH,
    );
    await until(
      async () => h.repo('web')?.status?.provider === 'github',
      'web re-registered with provider github',
      10_000,
    );
    expect((await h.asAdmin('GET', '/repos')).body).toEqual([
      { name: 'web', url: 'https://example.com/web.git', provider: 'github' },
    ]);
    await h.kube.custom.deleteNamespacedCustomObject({
      group: 'svc.dev',
      version: 'v1alpha1',
      plural: 'repos',
      namespace: NAMESPACE,
      name: 'web',
    });
    await h.kube.custom.deleteNamespacedCustomObject({
      group: 'svc.dev',
      version: 'v1alpha1',
      plural: 'ships',
      namespace: NAMESPACE,
      name: 'runner',
    });
    await until(async () => (!h.repo('web') && !h.ship('runner')) || null, 'Repo and Ship gone', 10_000);
    expect((await h.asAdmin('GET', '/repos')).body).toEqual([]);
    expect((await h.asAdmin('GET', '/ships')).body).toEqual([]);
  });

  it('logged nothing secret', () => {
    const text = logs.join('');
    expect(text).toContain('registered with the bridge');
    for (const secret of secrets) expect(text).not.toContain(secret);
    for (const name of ['svc-admin', 'svc-postgres']) {
      for (const [key, value] of Object.entries(h.secret(name)?.data ?? {})) {
        if (key !== 'username' && key !== 'email')
          expect(text).not.toContain(Buffer.from(value, 'base64').toString('utf8'));
      }
    }
    expect(text).not.toContain(ADMIN.password);
  });
});
