// The operator's reconcilers (issue #19), assembled for the runtime (operator/runtime/controller.ts):
//   ShipReconciler            Ship → bridge registration, token Secret, status (ship.ts, ship-decide.ts)
//   RepoReconciler            Repo → bridge registration, status (repo.ts, repo-decide.ts)
//   DaemonSetShipsReconciler  ship DaemonSet → one managed Ship per node with a ready ship pod (daemonset*.ts)
//   ChartSecretsReconciler    the chart's Secrets, created when absent (chart-secrets.ts)
// One BridgeClient (credentials from SVC_OPERATOR_USERNAME/SVC_OPERATOR_PASSWORD, else the Secret named by
// SVC_OPERATOR_ADMIN_SECRET in the chart Secrets' namespace, else SVC_TOKEN, else none) and one pair of
// shared rosters serve them all.
import type { Logger } from 'pino';
import { BridgeClient, type BridgeClientOptions } from '../bridge-client.js';
import { type BridgeCredentials, bridgeCredentialsFromEnv, type LoginPair } from '../bridge-login.js';
import type { Reconciler, ReconcilerContext, ReconcilerFactory } from '../runtime/controller.js';
import { ChartSecretsReconciler } from './chart-secrets.js';
import { Cluster } from './cluster.js';
import { reconcileOptions, type ReconcileDeps, type ReconcileOptions } from './context.js';
import { DaemonSetShipsReconciler } from './daemonset.js';
import { RepoReconciler } from './repo.js';
import { BridgeRosters } from './rosters.js';
import { ShipReconciler } from './ship.js';

export { ChartSecretsReconciler, chartSecrets } from './chart-secrets.js';
export { reconcileOptions, type ReconcileDeps, type ReconcileOptions } from './context.js';
export { DaemonSetShipsReconciler } from './daemonset.js';
export * from './names.js';
export { RepoReconciler } from './repo.js';
export { ShipReconciler } from './ship.js';

export interface ReconcilerExtras {
  /** Options beyond the runtime's (secret names, intervals); defaults in names.ts. */
  options?: Partial<ReconcileOptions>;
  /** Default: from the environment (docs/architecture.md §10). */
  credentials?: BridgeCredentials;
  env?: NodeJS.ProcessEnv;
  /** Namespace of the chart's Secrets (default: the watched namespace; with --all-namespaces, the operator's own). */
  secretsNamespace?: string;
}

/** The shared dependencies for a runtime context (exported for tests that drive reconcilers directly). */
export function reconcileDeps(context: ReconcilerContext, extras: ReconcilerExtras = {}): ReconcileDeps {
  const options = reconcileOptions({ ...context.options, ...extras.options });
  const cluster = new Cluster(context.kube, context.log, context.clock);
  const secretsNamespace = chartSecretsNamespace(context, extras);
  const bridge = operatorBridgeClient({
    url: context.options.bridgeUrl,
    credentials: extras.credentials ?? bridgeCredentialsFromEnv(extras.env ?? process.env),
    log: context.log,
    cluster,
    secretsNamespace,
    observe: (call) =>
      context.observeBridgeCall(
        call.method,
        call.route,
        call.status === 0 ? 'error' : call.status,
        call.durationMs / 1000,
      ),
  });
  return {
    cache: context.cache,
    cluster,
    bridge,
    rosters: new BridgeRosters(bridge, options.rosterMaxAgeMs),
    clock: context.clock,
    log: context.log,
    options,
  };
}

export function createReconcilersWith(context: ReconcilerContext, extras: ReconcilerExtras = {}): Reconciler[] {
  const deps = reconcileDeps(context, extras);
  return [
    new ShipReconciler(deps),
    new RepoReconciler(deps),
    new DaemonSetShipsReconciler(deps),
    new ChartSecretsReconciler(deps, chartSecretsNamespace(context, extras)),
  ];
}

/**
 * The operator's client for the bridge: logs as component bridge-client, and at each login reads the pair
 * from the admin Secret in `secretsNamespace` when the credentials name one. The reconcilers' and the token
 * exchange's (runtime/start.ts) are both made here.
 */
export function operatorBridgeClient(options: {
  url: string;
  credentials: BridgeCredentials;
  log: Logger;
  cluster: Pick<Cluster, 'readSecret'>;
  secretsNamespace: string | undefined;
  observe?: BridgeClientOptions['observe'];
}): BridgeClient {
  return new BridgeClient({
    url: options.url,
    credentials: options.credentials,
    logger: options.log.child({ component: 'bridge-client' }),
    observe: options.observe,
    readLoginSecret: loginSecretReader(options.cluster, options.secretsNamespace),
  });
}

/** Reads the operator's login pair from its Secret (keys username, password) in `namespace`, at each login. */
function loginSecretReader(
  cluster: Pick<Cluster, 'readSecret'>,
  namespace: string | undefined,
): (name: string) => Promise<LoginPair | undefined> {
  return async (name) => {
    if (!namespace) return undefined;
    const data = (await cluster.readSecret(namespace, name))?.data;
    const decode = (key: string) => (data?.[key] ? Buffer.from(data[key], 'base64').toString('utf8') : '');
    const pair = { username: decode('username'), password: decode('password') };
    return pair.username && pair.password ? pair : undefined;
  };
}

/** Where the chart's Secrets live: as given, else the watched namespace, else (all namespaces) the operator's own. */
function chartSecretsNamespace(context: ReconcilerContext, extras: ReconcilerExtras): string | undefined {
  return extras.secretsNamespace ?? context.options.namespace ?? context.options.ownNamespace;
}

export const createReconcilers: ReconcilerFactory = (context) => createReconcilersWith(context);
