// `svc operator` put together (cli/operator-command.ts parses the flags and calls this): load the kubeconfig
// (operator/kube/clients.ts), build the pino logger, metrics, the runtime with the reconcilers of
// operator/reconcile/index.ts, and the probe server; return a handle whose close() is the SIGTERM path:
// stop reconciling, release the lease, stop watching, close the probe server, flush the log.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { createLogger } from '../../server/logger.js';
import { bridgeCredentialsFromEnv } from '../bridge-login.js';
import { createReconcilers, operatorBridgeClient } from '../reconcile/index.js';
import { loadKubeConfig, makeKubeClients, type KubeConfigSource } from '../kube/clients.js';
import { OperatorMetrics } from '../health/metrics.js';
import { startHealthServer } from '../health/server.js';
import { Cluster } from '../reconcile/cluster.js';
import { RECONCILE_DEFAULTS } from '../reconcile/names.js';
import { startTokenExchange } from '../tokens/exchange-server.js';
import type { ReconcilerFactory } from './controller.js';
import { OperatorRuntime, type OperatorRuntimeOptions } from './runtime.js';

export interface StartOperatorOptions {
  bridgeUrl: string;
  /** --namespace; undefined = the default namespace (pod's own, else the kubeconfig context's). */
  namespace?: string;
  allNamespaces: boolean;
  healthPort: number;
  healthHost?: string;
  /** Serve the ships' token exchange on this port (operator/tokens/); undefined: not served. */
  tokenExchangePort?: number;
  leaderElect: boolean;
  daemonsetGraceMs: number;
  kubeconfig?: KubeConfigSource;
  logger?: Logger;
  /** Defaults to operator/reconcile/index.ts's createReconcilers. */
  reconcilers?: ReconcilerFactory;
  /** Runtime tuning (tests). */
  tuning?: Pick<OperatorRuntimeOptions, 'watch' | 'queue'> & {
    lease?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  };
}

export interface RunningOperator {
  runtime: OperatorRuntime;
  healthPort: number;
  tokenExchangePort?: number;
  close(): Promise<void>;
}

/**
 * The bridge's logger with component `operator`. Defence in depth: nothing should log a token, but if an
 * object with one slips into a log call, the value is masked (docs/architecture.md §10: tokens never in status, events or logs).
 */
function createOperatorLogger(level = process.env.SVC_LOG_LEVEL ?? 'info'): Logger {
  return createLogger({
    level,
    component: 'operator',
    redact: [
      'token',
      'password',
      'shipToken',
      'bridgeToken',
      '*.token',
      '*.password',
      '*.shipToken',
      '*.bridgeToken',
      'headers.authorization',
      '*.headers.authorization',
    ],
  });
}

export async function startOperator(options: StartOperatorOptions): Promise<RunningOperator> {
  const log = options.logger ?? createOperatorLogger();
  const loaded = loadKubeConfig(options.kubeconfig);
  const watched = options.allNamespaces ? undefined : (options.namespace ?? loaded.namespace);
  const identity = `${process.env.POD_NAME || hostname()}_${randomBytes(4).toString('hex')}`;
  const metrics = new OperatorMetrics();
  const kube = makeKubeClients(loaded.config);
  const runtime = new OperatorRuntime({
    kube,
    reconcilers: options.reconcilers ?? createReconcilers,
    options: {
      bridgeUrl: options.bridgeUrl,
      namespace: watched,
      ownNamespace: loaded.namespace,
      daemonsetGraceMs: options.daemonsetGraceMs,
    },
    log,
    metrics,
    // The lease lives in the operator's own namespace (where the chart grants it Lease access), whatever it watches.
    leaderElection: options.leaderElect
      ? { namespace: loaded.namespace, identity, ...options.tuning?.lease }
      : undefined,
    watch: options.tuning?.watch,
    queue: options.tuning?.queue,
  });
  if (!options.leaderElect) metrics.setLeader(true);
  const health = await startHealthServer({
    port: options.healthPort,
    host: options.healthHost,
    metrics,
    notReady: () => runtime.notReady(),
  });
  // Every replica answers the exchange, leader or not: it reads from the API server, never from the caches.
  // Drain reports arriving there are forwarded to the bridge with the reconcilers' credentials (index.ts).
  const exchangeCluster = new Cluster(kube, log, Date.now);
  const tokenExchange =
    options.tokenExchangePort === undefined
      ? undefined
      : await startTokenExchange({
          port: options.tokenExchangePort,
          host: options.healthHost,
          cluster: exchangeCluster,
          bridge: operatorBridgeClient({
            url: options.bridgeUrl,
            credentials: bridgeCredentialsFromEnv(),
            log,
            cluster: exchangeCluster,
            secretsNamespace: watched ?? loaded.namespace,
          }),
          namespace: watched,
          shipPodSelector: RECONCILE_DEFAULTS.shipDaemonSetSelector,
          log: log.child({ component: 'token-exchange' }),
        });
  log.info(
    {
      kubeconfig: loaded.source,
      cluster: loaded.config.getCurrentCluster()?.server,
      namespace: watched ?? '(all namespaces)',
      bridgeUrl: options.bridgeUrl,
      healthPort: health.port,
      tokenExchangePort: tokenExchange?.port,
      leaderElect: options.leaderElect,
      identity: options.leaderElect ? identity : undefined,
      daemonsetGraceMs: options.daemonsetGraceMs,
    },
    'svc operator starting',
  );
  runtime.start();
  return {
    runtime,
    healthPort: health.port,
    tokenExchangePort: tokenExchange?.port,
    async close() {
      // The log's pending batch first (server/logger.ts): a supervisor's SIGKILL may follow the SIGTERM closely.
      log.flush();
      await runtime.stop({ release: true });
      await health.close();
      await tokenExchange?.close();
      log.info('svc operator stopped');
      log.flush();
    },
  };
}
