// The world the reconciler tests run in: the fake Kubernetes API server (committed CRDs installed), a REAL
// authenticating bridge on real PostgreSQL (its own schema; restartable on the same port and database),
// real ships started on demand, and the reconcilers built exactly as createReconcilers builds them, with a
// cache that reads the fake directly (always current: what the runtime's cache converges to) and an injected
// clock. Everything the operator and the bridge log is kept, to prove no token ever reaches a log line.
import { join } from 'node:path';
import { KubeConfig, type KubernetesObject, type V1Secret } from '@kubernetes/client-node';
import { pino, type Logger } from 'pino';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { makeKubeClients, type KubeClients } from '../../operator/kube/clients.js';
import type { CacheReader, ReconcilerContext, ResourceRef } from '../../operator/runtime/controller.js';
import {
  ChartSecretsReconciler,
  DaemonSetShipsReconciler,
  MANAGED_BY_OPERATOR,
  reconcileDeps,
  RepoReconciler,
  ShipReconciler,
  type ReconcileDeps,
  type ReconcileOptions,
} from '../../operator/reconcile/index.js';
import type { BridgeCredentials } from '../../operator/bridge-login.js';
import type { Condition, RepoResource, ShipResource } from '../../operator/resources/index.js';
import { startFakeKubeApi, type FakeKubeApi, type KubeObject } from '../fakes/kube-api/index.js';
import { postgresSchema } from '../helpers/databases.js';
import { call, makeTempRoot, removeRoot, startTestShip, type Reply, type TestShip } from '../helpers/ship.js';
import { until } from '../helpers/poll.js';
import { freePort } from '../helpers/ports.js';

export const ADMIN = { username: 'root', email: 'root@example.com', password: 'operator-test-admin-password-1' };
export const NAMESPACE = 'default';
export const hasPostgres = !!process.env.TEST_DATABASE_URL;
if (!hasPostgres) {
  if (process.env.CI === 'true')
    throw new Error('CI=true but TEST_DATABASE_URL is not set: the operator tests need PostgreSQL');
  console.warn(
    'test/operator/reconcile-*: TEST_DATABASE_URL is not set, skipping the operator end-to-end tests (they need PostgreSQL)',
  );
}

function apiVersionOf(resource: ResourceRef): string {
  return resource.group ? `${resource.group}/${resource.version}` : resource.version;
}

/**
 * A CacheReader over the fake's store: the state a caught-up watch cache holds. Like the runtime's, it
 * holds only the Secrets the operator watches (OPERATOR_SECRETS_SELECTOR).
 */
export function directCache(fake: FakeKubeApi): CacheReader {
  const watched = (resource: ResourceRef, object: KubeObject | undefined) =>
    object &&
    (resource.kind !== 'Secret' ||
      Object.entries(MANAGED_BY_OPERATOR).every(([label, value]) => object.metadata.labels?.[label] === value))
      ? object
      : undefined;
  return {
    get: <T extends KubernetesObject>(resource: ResourceRef, key: { namespace: string; name: string }) =>
      watched(
        resource,
        fake.read(apiVersionOf(resource), resource.kind, key.name, key.namespace || undefined),
      ) as unknown as T | undefined,
    list: <T extends KubernetesObject>(resource: ResourceRef, namespace?: string) =>
      fake
        .list(apiVersionOf(resource), resource.kind, namespace)
        .filter((object) => watched(resource, object)) as unknown as T[],
  };
}

export interface Harness {
  root: string;
  fake: FakeKubeApi;
  kube: KubeClients;
  bridge: Bridge;
  bridgeUrl: string;
  /** The operator's injected clock (DaemonSet grace periods, condition times). */
  clock: { now: number };
  deps: ReconcileDeps;
  ships: ShipReconciler;
  repos: RepoReconciler;
  daemonSets: DaemonSetShipsReconciler;
  chartSecrets: ChartSecretsReconciler;
  /** Everything the operator logged (debug and up), and everything the bridge logged. */
  operatorLogs: string[];
  bridgeLogs: string[];
  /** An admin session on the bridge for the test's own calls. */
  adminToken(): Promise<string>;
  asAdmin(method: string, path: string, body?: unknown): Promise<Reply<any>>;
  stopBridge(): Promise<void>;
  startBridgeAgain(): Promise<void>;
  startShip(
    name: string,
    options?: { port?: number; host?: string; shipToken?: string; bridgeToken?: string },
  ): Promise<TestShip>;
  ship(name: string): (ShipResource & KubeObject) | undefined;
  repo(name: string): (RepoResource & KubeObject) | undefined;
  secret(name: string): (V1Secret & KubeObject) | undefined;
  /** The token pair a Secret holds, decoded. */
  tokensIn(name: string): { shipToken: string; bridgeToken: string };
  events(name: string): { reason: string; type: string; message: string }[];
  close(): Promise<void>;
}

export async function startHarness(
  options: { reconcile?: Partial<ReconcileOptions>; credentials?: BridgeCredentials } = {},
): Promise<Harness> {
  const root = await makeTempRoot('svc-test-operator-');
  const schema = await postgresSchema();
  const fake = await startFakeKubeApi();
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(fake.kubeconfigPath);
  const kube = makeKubeClients(kubeconfig);
  const operatorLogs: string[] = [];
  const bridgeLogs: string[] = [];
  const operatorLog: Logger = pino({ level: 'debug' }, { write: (line: string) => void operatorLogs.push(line) });
  const clock = { now: Date.now() };
  let port = 0;
  const ships: TestShip[] = [];
  const launch = async () =>
    startBridge({
      port,
      dataDirectory: join(root, 'bridge'),
      databaseUrl: schema.url,
      logger: pino({ level: 'debug' }, { write: (line: string) => void bridgeLogs.push(line) }),
      firstAdmin: async () => ({ ...ADMIN }),
      heartbeatMs: 1000,
      reconnect: { initialMs: 50, maxMs: 300 },
      registrationProbeMs: 3000,
      sweepIntervalMs: 0,
    });
  let bridge = await launch();
  port = bridge.port;
  const bridgeUrl = `http://127.0.0.1:${port}`;
  const context: ReconcilerContext = {
    cache: directCache(fake),
    kube,
    log: operatorLog,
    clock: () => clock.now,
    options: { bridgeUrl, namespace: NAMESPACE, daemonsetGraceMs: 10 * 60_000 },
    observeBridgeCall: () => {},
  };
  const deps = reconcileDeps(context, {
    credentials: options.credentials ?? { kind: 'login', username: ADMIN.username, password: ADMIN.password },
    options: { refreshMs: 30_000, rosterMaxAgeMs: 0, ...options.reconcile },
  });
  let token: string | null = null;
  const adminToken = async () => {
    if (token) return token;
    const reply = await call(bridgeUrl, 'POST', '/auth/login', { username: ADMIN.username, password: ADMIN.password });
    if (reply.status !== 200) throw new Error(`login: ${reply.status} ${reply.text}`);
    token = reply.body.token as string;
    return token;
  };
  const harness: Harness = {
    root,
    fake,
    kube,
    clock,
    deps,
    operatorLogs,
    bridgeLogs,
    bridgeUrl,
    get bridge() {
      return bridge;
    },
    ships: new ShipReconciler(deps),
    repos: new RepoReconciler(deps),
    daemonSets: new DaemonSetShipsReconciler(deps),
    chartSecrets: new ChartSecretsReconciler(deps, NAMESPACE),
    adminToken,
    async asAdmin(method, path, body) {
      return call(bridgeUrl, method, path, body, { authorization: `Bearer ${await adminToken()}` });
    },
    async stopBridge() {
      await bridge.close();
    },
    async startBridgeAgain() {
      bridge = await launch();
      token = null;
    },
    async startShip(name, shipOptions = {}) {
      const ship = await startTestShip(join(root, `ship-${name}-${ships.length}`), {
        name,
        port: shipOptions.port ?? (await freePort()),
        ...shipOptions,
      });
      ships.push(ship);
      return ship;
    },
    ship: (name) => fake.read('svc.dev/v1alpha1', 'Ship', name, NAMESPACE) as (ShipResource & KubeObject) | undefined,
    repo: (name) => fake.read('svc.dev/v1alpha1', 'Repo', name, NAMESPACE) as (RepoResource & KubeObject) | undefined,
    secret: (name) => fake.read('v1', 'Secret', name, NAMESPACE) as (V1Secret & KubeObject) | undefined,
    tokensIn(name) {
      const data = (fake.read('v1', 'Secret', name, NAMESPACE) as V1Secret | undefined)?.data;
      if (!data?.shipToken || !data.bridgeToken) throw new Error(`Secret ${name} has no token pair`);
      return {
        shipToken: Buffer.from(data.shipToken, 'base64').toString('utf8'),
        bridgeToken: Buffer.from(data.bridgeToken, 'base64').toString('utf8'),
      };
    },
    events: (name) =>
      (
        fake.list('v1', 'Event', NAMESPACE) as unknown as {
          involvedObject: { name: string };
          reason: string;
          type: string;
          message: string;
        }[]
      )
        .filter((event) => event.involvedObject.name === name)
        .map(({ reason, type, message }) => ({ reason, type, message })),
    async close() {
      for (const ship of ships) await ship.stop().catch(() => {});
      await bridge.close().catch(() => {});
      await fake.close();
      await schema.drop();
      await removeRoot(root);
    },
  };
  return harness;
}

/** A Ship object as a user applies it. */
export function shipObject(
  name: string,
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): Record<string, unknown> {
  return { apiVersion: 'svc.dev/v1alpha1', kind: 'Ship', metadata: { name, namespace: NAMESPACE, ...metadata }, spec };
}

export function repoObject(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'svc.dev/v1alpha1', kind: 'Repo', metadata: { name, namespace: NAMESPACE }, spec };
}

export function condition(
  object: { status?: { conditions?: Condition[] } } | undefined,
  type: 'Ready' | 'Registered',
): Condition | undefined {
  return object?.status?.conditions?.find((entry) => entry.type === type);
}

/**
 * Reconciles `name` until `done` holds (as the runtime would, on requeues and watch events), pausing `pauseMs`
 * between reconciles, for at most `timeoutMs`. A reconcile that throws counts as not converged yet; the last
 * error is in the failure.
 */
export async function reconcileUntil(
  reconciler: { reconcile(key: { namespace: string; name: string }): Promise<unknown> },
  name: string,
  done: () => boolean,
  what: string,
  timeoutMs = 15_000,
  pauseMs = 100,
): Promise<void> {
  const converged = async () => {
    await reconciler.reconcile({ namespace: NAMESPACE, name });
    return done();
  };
  await until(converged, `${name} to converge: ${what}`, timeoutMs, pauseMs);
}
