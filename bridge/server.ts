// Starts a bridge: holds its port first, opens the store (PGlite in the data directory, or PostgreSQL) and the
// parts below HTTP (bridge/services.ts), makes sure there is a first admin, builds the HTTP app (bridge/app.ts),
// listens, and logs where it serves from. A start that fails closes what it opened and removes a data directory
// it created. Signals and the process's exit belong to the CLI that calls this.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { BRIDGE_DEFAULT_PORT, identifierProblem, type HttpLimits, type RouteInfo } from '../protocol/index.js';
import type { FirstAdminSource } from '../protocol/first-admin.js';
import type { Clock } from '../protocol/clock.js';
import { createLogger } from '../server/logger.js';
import { listenOnReservation, reservePort } from '../server/port-reservation.js';
import { startMetricsPort } from '../server/metrics-port.js';
import type { PlainHttpServer } from '../server/plain-http-server.js';
import type { ForgeProviders } from './providers/forge-provider.js';
import type { BranchProbeLimits } from './repos/branches.js';
import { openStore, type Store } from './store/store.js';
import { BridgeMetrics } from './metrics/bridge-metrics.js';
import type { ShipRegistry } from './ships/registry.js';
import type { BackoffOptions } from './ships/ship-connection.js';
import type { Accounts } from './auth/accounts.js';
import { ensureFirstAdmin } from './auth/first-admin.js';
import { startInsecureBanner } from './auth/insecure-banner.js';
import type { Sweeper } from './ephemeral/sweeper.js';
import { openBridgeServices, type BridgeServices } from './services.js';
import { buildBridgeApp, type BridgeApp } from './app.js';

export interface BridgeOptions {
  port?: number;
  host?: string;
  name?: string;
  dataDirectory: string;
  databaseUrl?: string;
  publicUrl?: string;
  /** Every request is an admin, decided before any header is read (spec "Disabled authentication"). */
  insecureNoAuth?: boolean;
  /** Who the first admin is, asked only while the bridge has no users (the CLI: environment, else a prompt). */
  firstAdmin?: FirstAdminSource;
  /** Where the insecure-mode banner goes (default stderr), and how often it repeats. */
  banner?: { write?: (text: string) => void; intervalMs?: number };
  /** WebSocket ping interval (default 30 s; tests shorten it). */
  heartbeatMs?: number;
  /** HTTP timeouts and ceilings (default HTTP_LIMITS; tests shorten the timeouts). */
  httpLimits?: Partial<HttpLimits>;
  /** Time for sessions, tickets and login backoff (tests inject one). */
  clock?: Clock;
  allowLocalRepos?: boolean;
  allowedHosts?: string[];
  /** Reconnect backoff to ships (tests shorten it). */
  reconnect?: BackoffOptions;
  /** How long registration waits for a ship's first sync (default 5000 ms). */
  registrationProbeMs?: number;
  /** Branch listing limits (tests shorten them). */
  branchProbe?: BranchProbeLimits;
  logger?: Logger;
  /** Forge providers by repo `provider` (default: github from SVC_GITHUB_TOKEN / SVC_GITHUB_API_URL). */
  forgeProviders?: ForgeProviders;
  /** Milliseconds between ephemeral cleanup passes (default 300000; 0: no timer, POST /workspaces/sweep only). */
  sweepIntervalMs?: number;
  /** A second port serving only GET /metrics, without a credential (--metrics-port; none: not served). */
  metricsPort?: number;
  /** The GUI's static build served at /ui/ (default: dist/web of this checkout or image). */
  webDirectory?: string;
}

export interface Bridge {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly publicUrl: string;
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly registry: ShipRegistry;
  readonly accounts: Accounts;
  readonly sweeper: Sweeper;
  readonly metrics: BridgeMetrics;
  /** The port of --metrics-port as bound, or null when it is not served. */
  readonly metricsPort: number | null;
  /** Every route served, with its schemas (HEAD mirrors left out). */
  readonly routeCatalog: readonly RouteInfo[];
  close(): Promise<void>;
}

export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const name = checkedName(options.name ?? 'bridge');
  const logger = options.logger ?? createLogger({ component: 'bridge' });
  const host = options.host ?? 'localhost';
  const port = options.port ?? BRIDGE_DEFAULT_PORT;
  // Before the data directory, the store and the first admin (seconds on a first start): a port in use ends
  // the start here, with one clear line and nothing created (issue #15).
  const reservation = await reservePort(port, host);
  const metrics = new BridgeMetrics();
  const store = await openStore({
    dataDirectory: options.dataDirectory,
    databaseUrl: options.databaseUrl,
    onQuery: metrics.queried,
  }).catch(async (error: unknown) => {
    await reservation.release();
    throw error;
  });
  // Ships and agents are told this URL; it is the listening one once the port is bound.
  let publicUrl = options.publicUrl ?? `http://localhost:${port}`;
  const allowedHosts = guardedHosts(options);
  let services: BridgeServices | undefined;
  let built: BridgeApp | undefined;
  let metricsPort: PlainHttpServer | null = null;
  let bound = port;
  try {
    services = await openBridgeServices({ ...options, store, metrics, logger, bridgeUrl: () => publicUrl });
    await createFirstAdmin(options, services);
    built = await buildBridgeApp({ ...options, services, publicUrl, allowedHosts });
    await services.registry.load();
    bound = await listenOnReservation(built.app, reservation, host, port);
    if (options.metricsPort !== undefined)
      metricsPort = await startMetricsPort({ port: options.metricsPort, host, allowedHosts, metrics });
  } catch (error) {
    await services?.close(0);
    await built?.app.close().catch(() => undefined);
    try {
      // A data directory this start created goes with it: a failed first start leaves nothing behind.
      await store.discard();
    } finally {
      await reservation.release();
    }
    throw error;
  }
  const url = `http://localhost:${bound}`;
  publicUrl = options.publicUrl ?? url;
  announce(logger, { name, url, publicUrl, store, options, metricsPort });
  const stopBanner = options.insecureNoAuth ? startInsecureBanner(url, options.banner) : () => {};
  services.sweeper.start();
  return bridgeHandle({ name, port: bound, url, publicUrl, built, services, metricsPort, stopBanner });
}

function checkedName(name: string): string {
  const problem = identifierProblem(name);
  if (problem) throw new Error(`invalid bridge name "${name}": ${problem}`);
  return name;
}

/** Host names an unauthenticated bridge answers: the configured ones and the public URL's. */
function guardedHosts(options: BridgeOptions): string[] {
  return [...(options.allowedHosts ?? []), ...(options.publicUrl ? [new URL(options.publicUrl).hostname] : [])];
}

/** With authentication on, a bridge without users gets its first admin before it serves (spec "First admin"). */
async function createFirstAdmin(options: BridgeOptions, services: BridgeServices): Promise<void> {
  if (options.insecureNoAuth) return;
  const created = await ensureFirstAdmin(services.store.users, services.accounts, options.firstAdmin);
  if (created) services.logger.info({ username: created }, 'created the first admin');
}

function announce(
  logger: Logger,
  started: {
    name: string;
    url: string;
    publicUrl: string;
    store: Store;
    options: BridgeOptions;
    metricsPort: PlainHttpServer | null;
  },
): void {
  const { name, url, publicUrl, store, options, metricsPort } = started;
  logger.info(
    {
      name,
      url,
      publicUrl,
      store: store.db.engine,
      location: store.location,
      dataDirectory: options.dataDirectory,
      authRequired: !options.insecureNoAuth,
      metricsPort: metricsPort?.port ?? null,
    },
    `bridge listening on ${url}`,
  );
}

function bridgeHandle(started: {
  name: string;
  port: number;
  url: string;
  publicUrl: string;
  built: BridgeApp;
  services: BridgeServices;
  metricsPort: PlainHttpServer | null;
  stopBanner: () => void;
}): Bridge {
  const { built, services, metricsPort } = started;
  const { app, routes } = built;
  return {
    name: started.name,
    port: started.port,
    url: started.url,
    publicUrl: started.publicUrl,
    app,
    store: services.store,
    registry: services.registry,
    accounts: services.accounts,
    sweeper: services.sweeper,
    metrics: services.metrics,
    metricsPort: metricsPort?.port ?? null,
    routeCatalog: routes,
    async close() {
      // What the log holds goes out before anything else: a supervisor's SIGKILL may follow the SIGTERM closely.
      services.logger.flush();
      started.stopBanner();
      await metricsPort?.close();
      await services.close();
      await app.close();
      await services.store.close();
    },
  };
}
