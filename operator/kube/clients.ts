// Kubernetes access for the operator: which kubeconfig to load (docs/architecture.md §10: the pod's service account, else
// $KUBECONFIG, else ~/.kube/config — client-node's loadFromDefault() tries them in the opposite order, so a
// stray KUBECONFIG in a pod would win there), the namespace to default to, and the typed API clients.
// PATCH content type: client-node 1.4's generated patch methods send `application/json-patch+json` unless told
// otherwise (an object body is then a 400), and KubernetesObjectApi.patch sends strategic merge, which the API
// server refuses for custom resources with 415. Every merge patch (status, finalizers, labels) passes
// `MERGE_PATCH` as the call's options: `api.patchNamespacedCustomObjectStatus(params, MERGE_PATCH)`
// (test/kube/contract.test.ts measures both defaults).
// Not here: list/watch (operator/kube/http.ts and operator/runtime/watch.ts do raw requests, because the
// generated clients cannot stream, and client-node's Watch returns its abort handle only after the response
// headers arrive, so a request that never answers could not be cancelled).
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import {
  AppsV1Api,
  AuthenticationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { makeApiClient, SharedAgent } from './shared-agent.js';

/** Options for a JSON merge patch (RFC 7386): pass as the last argument of any generated patch method. */
export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Where the service-account mount lives in a pod (the path client-node's loadFromCluster reads). */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface KubeConfigSource {
  env?: NodeJS.ProcessEnv;
  /** Root of the service-account mount (tests point it at a temp directory). */
  serviceAccountDir?: string;
  home?: string;
}

export interface LoadedKubeConfig {
  config: KubeConfig;
  /** Which source won: shown in the operator's start-up log line. */
  source: 'in-cluster' | 'KUBECONFIG' | 'home';
  /** The namespace the operator defaults to: the pod's own, else the context's, else 'default'. */
  namespace: string;
}

export function loadKubeConfig(source: KubeConfigSource = {}): LoadedKubeConfig {
  const env = source.env ?? process.env;
  const saDir = source.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const config = new KubeConfig();
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT && existsSync(join(saDir, 'token'))) {
    // loadFromCluster reads the token through a file authenticator that re-reads it, so projected
    // (rotating) service-account tokens keep working. It takes a prefix for the fixed mount path.
    if (!saDir.endsWith(SERVICE_ACCOUNT_DIR))
      throw new Error(`service account directory must end with ${SERVICE_ACCOUNT_DIR}: ${saDir}`);
    const prefix = saDir.slice(0, saDir.length - SERVICE_ACCOUNT_DIR.length);
    config.loadFromCluster(prefix);
    // loadFromCluster reads the service host and port from process.env itself; take them from `env`.
    config.clusters = config.clusters.map((cluster) => ({
      ...cluster,
      server: inClusterServer(env.KUBERNETES_SERVICE_HOST!, env.KUBERNETES_SERVICE_PORT!),
    }));
    return { config, source: 'in-cluster', namespace: serviceAccountNamespace(saDir) ?? contextNamespace(config) };
  }
  const kubeconfig = env.KUBECONFIG;
  if (kubeconfig) {
    // A list of files, merged as kubectl merges them: the first file to define a name (or the current
    // context) wins. (client-node's loadFromDefault reads process.env and lets later files win the context.)
    const [first, ...rest] = kubeconfig.split(delimiter).filter(Boolean);
    config.loadFromFile(first!);
    for (const file of rest) {
      const other = new KubeConfig();
      other.loadFromFile(file);
      for (const cluster of other.clusters) if (!config.getCluster(cluster.name)) config.addCluster(cluster);
      for (const user of other.users) if (!config.getUser(user.name)) config.addUser(user);
      for (const context of other.contexts) if (!config.getContextObject(context.name)) config.addContext(context);
      if (!config.getCurrentContext() && other.getCurrentContext()) config.setCurrentContext(other.getCurrentContext());
    }
    return { config, source: 'KUBECONFIG', namespace: contextNamespace(config) };
  }
  const path = join(source.home ?? homedir(), '.kube', 'config');
  if (!existsSync(path)) {
    throw new Error(
      `no Kubernetes configuration: not in a pod (no service account), KUBECONFIG unset and ${path} absent`,
    );
  }
  config.loadFromFile(path);
  return { config, source: 'home', namespace: contextNamespace(config) };
}

/** The API server's in-cluster URL, as client-node builds it (http on the insecure ports, IPv6 in brackets). */
function inClusterServer(host: string, port: string): string {
  const scheme = ['80', '8080', '8001'].includes(port) ? 'http' : 'https';
  return `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

function serviceAccountNamespace(saDir: string): string | undefined {
  try {
    const value = readFileSync(join(saDir, 'namespace'), 'utf8').trim();
    return value || undefined;
  } catch {
    return undefined;
  }
}

function contextNamespace(config: KubeConfig): string {
  return config.getContextObject(config.getCurrentContext())?.namespace || 'default';
}

/** The typed clients the reconcilers and leader election use; one set per operator process. */
export interface KubeClients {
  config: KubeConfig;
  /** The kept-alive connections every client (and the runtime's list/watch) shares. */
  agent: SharedAgent;
  core: CoreV1Api;
  apps: AppsV1Api;
  custom: CustomObjectsApi;
  coordination: CoordinationV1Api;
  /** TokenReview, for the ships' token exchange (operator/tokens/). */
  authentication: AuthenticationV1Api;
}

export function makeKubeClients(config: KubeConfig): KubeClients {
  const agent = new SharedAgent();
  return {
    config,
    agent,
    core: makeApiClient(config, agent, CoreV1Api),
    apps: makeApiClient(config, agent, AppsV1Api),
    custom: makeApiClient(config, agent, CustomObjectsApi),
    coordination: makeApiClient(config, agent, CoordinationV1Api),
    authentication: makeApiClient(config, agent, AuthenticationV1Api),
  };
}
