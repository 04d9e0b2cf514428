// Assembles a bridge: holds its port first, opens the store (PGlite in the data directory, or PostgreSQL),
// wires the routes behind the browser guard (authentication plugs in as the next hook), listens, and logs
// where it serves from. A start that fails closes what it opened and removes a data directory it created.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { validatorCompiler } from '../server/validator-compiler.js';
import type { Logger } from 'pino';
import {
  BRIDGE_DEFAULT_PORT,
  HTTP_LIMITS,
  httpServerOptions,
  identifierProblem,
  workspaceKey,
  type HttpLimits,
  type RouteInfo,
} from '../protocol/index.js';
import { installBrowserGuard } from './http/browser-guard.js';
import { BRIDGE_ERRORS } from './http/error-handler.js';
import { installErrorHandler } from '../server/error-handler.js';
import { installOpenApi } from './http/openapi.js';
import { createLogger, requestLine, requestSerializers } from '../server/logger.js';
import { repoRoutes } from './routes/repos.js';
import { forgeRoutes } from './routes/forge.js';
import { GitHubProvider } from './providers/github.js';
import type { ForgeProviders } from './providers/forge-provider.js';
import type { BranchProbeLimits } from './repos/branches.js';
import { openStore, type Store } from './store/store.js';
import { listenFailure, reservePort } from '../server/port-reservation.js';
import { startMetricsPort } from '../server/metrics-port.js';
import type { PlainHttpServer } from '../server/plain-http-server.js';
import { probeRoutes } from '../server/probe-routes.js';
import { singleFlightReadiness } from '../protocol/probes.js';
import { BridgeMetrics } from './metrics/bridge-metrics.js';
import { storeReadiness } from './store/readiness.js';
import { ShipRegistry } from './ships/registry.js';
import type { BackoffOptions } from './ships/ship-connection.js';
import { EventHub } from './events/event-hub.js';
import { shipRoutes } from './routes/ships.js';
import { drainReportRoutes } from './routes/drain-report.js';
import { workspaceRoutes } from './routes/workspaces.js';
import { eventRoutes } from './routes/events.js';
import { terminalRoutes } from './routes/terminal.js';
import { authRoutes } from './routes/auth.js';
import { userRoutes } from './routes/users.js';
import { installAuthGuard } from './auth/guard.js';
import { Authenticator } from './auth/authenticator.js';
import { TicketBook } from './auth/tickets.js';
import { UserSockets } from './auth/user-sockets.js';
import { Accounts } from './auth/accounts.js';
import { AgentCredentials } from './auth/agent-credentials.js';
import { ensureFirstAdmin } from './auth/first-admin.js';
import type { FirstAdminSource } from '../protocol/first-admin.js';
import { forwardOnly, monotonicClock, systemClock, type Clock } from '../protocol/clock.js';
import { startInsecureBanner } from './auth/insecure-banner.js';
import { Armory } from './armory/armory.js';
import { ArmoryPush } from './armory/armory-push.js';
import { armoryRoutes } from './routes/armory.js';
import { sweepRoutes } from './routes/sweep.js';
import { EphemeralRecords } from './ephemeral/ephemeral-records.js';
import { DEFAULT_SWEEP_INTERVAL_MS, Sweeper } from './ephemeral/sweeper.js';
import { Foreground } from './http/foreground.js';
import { defaultWebDirectory, installGui } from './http/gui.js';
import { join } from 'node:path';
import { endAnsweredUpgrade, limitPendingUpgrades, registerWebSockets } from '../server/websocket-hygiene.js';

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
  /** Every route served, as `METHOD /pattern` (the authorization matrix test checks each has a row). */
  readonly routes: readonly string[];
  /** The same routes with their schemas. */
  readonly routeCatalog: readonly RouteInfo[];
  close(): Promise<void>;
}

export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const name = options.name ?? 'bridge';
  const problem = identifierProblem(name);
  if (problem) throw new Error(`invalid bridge name "${name}": ${problem}`);
  const logger = options.logger ?? createLogger({ component: 'bridge' });
  const insecure = options.insecureNoAuth ?? false;
  const clock = forwardOnly(options.clock ?? systemClock);
  // What lives only in memory runs on the monotonic clock; an injected clock (tests) drives both.
  const memoryClock = options.clock ? clock : monotonicClock;
  // Before the data directory, the store and the first admin (seconds on a first start): a port in use ends
  // the start here, with one clear line and nothing created (issue #15).
  const reservation = await reservePort(options.port ?? BRIDGE_DEFAULT_PORT, options.host ?? 'localhost');
  const metrics = new BridgeMetrics();
  let store: Store;
  try {
    store = await openStore({
      dataDirectory: options.dataDirectory,
      databaseUrl: options.databaseUrl,
      onQuery: metrics.queried,
    });
  } catch (error) {
    await reservation.release();
    throw error;
  }
  const registry = new ShipRegistry(store.ships, {
    backoff: options.reconnect,
    heartbeatMs: options.heartbeatMs,
    probeMs: options.registrationProbeMs,
    // Audit (docs/security.md H9): who holds a workspace decides where its keystrokes go.
    onOwnerChange: (key, from, to) =>
      logger.info({ audit: 'ownership', key, from, to }, `workspace ${key} owner ${from ?? '-'} → ${to ?? '-'}`),
  });
  const hub = new EventHub(() => registry.aggregateSegments());
  registry.useEvents(hub);
  hub.observe(metrics.events);
  let ephemeral: EphemeralRecords;
  try {
    ephemeral = await EphemeralRecords.load(store.ephemeral);
  } catch (error) {
    await store.discard();
    await reservation.release();
    throw error;
  }
  registry.useEphemeral(ephemeral);
  // Intent rows left by a create that got no answer (or a bridge killed mid-create) are decided by the
  // ship's own view, at every sync (docs/security.md H23).
  registry.onShipSync((ship, workspaces) => {
    void ephemeral
      .reconcile(ship, new Set(workspaces.map((w) => workspaceKey(w.repoName, w.name))))
      .then((changed) => changed && registry.publishSync())
      .catch((error: Error) =>
        logger.warn({ ship, error: error.message }, 'could not reconcile ephemeral records with the ship'),
      );
  });
  // A create that got no answer (or whose bridge was killed) ends with the ship's `workspace.created`.
  registry.onWorkspaceCreated((ship, workspace) => {
    void ephemeral
      .adopt(ship, workspace.repoName, workspace.name)
      .then((adopted) => adopted && registry.publishSync())
      .catch((error: Error) => logger.warn({ ship, error: error.message }, 'could not adopt an ephemeral record'));
  });
  registry.onShipRemoved((name) => ephemeral.dropShip(name));
  const authenticator = new Authenticator(store.credentials, clock);
  const tickets = new TicketBook(memoryClock);
  const sockets = new UserSockets();
  const accounts = new Accounts({
    store,
    authenticator,
    tickets,
    sockets,
    clock,
    memoryClock,
    onLoginFailed: metrics.loginFailed,
  });
  metrics.watchFleet({ ships: () => registry.list(), workspaces: () => registry.snapshot() });
  let publicUrlNow = options.publicUrl ?? `http://localhost:${options.port ?? BRIDGE_DEFAULT_PORT}`;
  const agentCredentials = new AgentCredentials({
    store: store.agentTokens,
    authenticator,
    clock,
    bridgeUrl: () => publicUrlNow,
    logger,
  });
  registry.onShipOnline((ship) => void agentCredentials.push(ship.name, ship.client));
  registry.onShipRemoved((name) => authenticator.forgetShip(name));
  const forgeProviders = options.forgeProviders ?? {
    github: new GitHubProvider({
      token: process.env.SVC_GITHUB_TOKEN,
      baseUrl: process.env.SVC_GITHUB_API_URL,
      log: (message, fields) => logger.warn(fields, message),
    }),
  };
  const foreground = new Foreground();
  const sweeper = new Sweeper({
    records: ephemeral,
    foreground,
    registry,
    repos: store.repos,
    providers: forgeProviders,
    intervalMs: options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
    clock,
    log: logger,
  });
  const armory = new Armory(join(options.dataDirectory, 'armory'), logger);
  new ArmoryPush({ armory, registry, bridgeUrl: () => publicUrlNow, logger }).start();
  let stopBanner = () => {};
  let routes: RouteInfo[] = [];
  let silent: FastifyBaseLogger | undefined;
  let metricsPort: PlainHttpServer | null = null;
  const limits = { ...HTTP_LIMITS, ...options.httpLimits };
  const guardHosts = [
    ...(options.allowedHosts ?? []),
    ...(options.publicUrl ? [new URL(options.publicUrl).hostname] : []),
  ];
  const app = Fastify({
    loggerInstance: logger.child({}, { serializers: requestSerializers }) as unknown as FastifyBaseLogger,
    routerOptions: { maxParamLength: 512 },
    ...httpServerOptions(limits),
    forceCloseConnections: true,
    return503OnClosing: true,
    // One shared logger instead of a child per request: the routed path is the bridge's hottest, and the
    // request log line already names method and URL. A route that asks for silence (the probes) gets it.
    childLoggerFactory: (logger, _bindings, options) =>
      options.level === 'silent' ? (silent ??= logger.child({}, { level: 'silent' })) : logger,
    // Fastify's two lines per request (incoming, completed) become one, written in onResponse below.
    logController: new LogController({ disableRequestLogging: true }),
  });
  try {
    // Before any route: each route gets its request observer as it is registered.
    metrics.observeHttp(app);
    app.setValidatorCompiler(validatorCompiler);
    installErrorHandler(app, BRIDGE_ERRORS);
    // First hook: one address may not park more than a few dozen upgrades on the handshake (docs/security.md H16).
    const pendingUpgrades = limitPendingUpgrades(app, limits.pendingUpgradesPerAddress);
    const port = options.port ?? BRIDGE_DEFAULT_PORT;
    const provisionalPublic = options.publicUrl ?? `http://localhost:${port}`;
    foreground.install(app);
    installBrowserGuard(app, {
      allowedOrigins: [new URL(provisionalPublic).origin],
      allowedHosts: guardHosts,
      authenticated: !insecure,
    });
    routes = installAuthGuard(app, { insecureNoAuth: insecure, authenticator, tickets });
    if (!insecure) {
      const created = await ensureFirstAdmin(store.users, accounts, options.firstAdmin);
      if (created) logger.info({ username: created }, 'created the first admin');
    }
    // Callback-style hooks: no promise per request on the routed path.
    const logRequest = logger.isLevelEnabled('info') ? requestLine(logger) : null;
    app.addHook('onResponse', (request, reply, done) => {
      if (logRequest && request.log !== silent) logRequest(request, reply.statusCode, reply.elapsedTime);
      endAnsweredUpgrade(request);
      done();
    });
    await registerWebSockets(app, {
      pendingUpgrades,
      heartbeatMs: options.heartbeatMs,
      maxConnections: limits.maxConnections,
      accepted: (server) => metrics.countClientSockets(server),
    });
    await installOpenApi(app);
    await installGui(app, options.webDirectory ?? defaultWebDirectory());
    await app.register(authRoutes(accounts, !insecure));
    await app.register(userRoutes(accounts));
    await app.register(
      repoRoutes({
        repos: store.repos,
        allowLocalRepos: options.allowLocalRepos ?? true,
        probe: options.branchProbe,
        onRemoved: (name) => ephemeral.dropRepo(name),
      }),
    );
    await app.register(forgeRoutes({ repos: store.repos, providers: forgeProviders }));
    await app.register(shipRoutes(registry));
    await app.register(drainReportRoutes(logger));
    await app.register(sweepRoutes(sweeper));
    await app.register(workspaceRoutes({ registry, repos: store.repos, providers: forgeProviders, ephemeral }));
    await app.register(eventRoutes(hub, sockets));
    await app.register(terminalRoutes(registry, sockets, options.heartbeatMs));
    await app.register(armoryRoutes(armory, registry));
    await app.register(probeRoutes({ readiness: singleFlightReadiness(storeReadiness(store.db)), metrics }));
    await registry.load();
    // Every route is registered: the port passes from the reservation to fastify within a few turns.
    await app.ready();
    await reservation.release();
    try {
      await app.listen({ port, host: options.host ?? 'localhost' });
    } catch (error) {
      throw listenFailure(error, options.host ?? 'localhost', port);
    }
    if (options.metricsPort !== undefined) {
      metricsPort = await startMetricsPort({
        port: options.metricsPort,
        host: options.host ?? 'localhost',
        allowedHosts: guardHosts,
        metrics,
      });
    }
  } catch (error) {
    await sweeper.stop(0);
    armory.close();
    registry.close();
    await app.close().catch(() => undefined);
    try {
      // A data directory this start created goes with it: a failed first start leaves nothing behind.
      await store.discard();
    } finally {
      await reservation.release();
    }
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? BRIDGE_DEFAULT_PORT);
  const url = `http://localhost:${port}`;
  const publicUrl = options.publicUrl ?? url;
  publicUrlNow = publicUrl;
  logger.info(
    {
      name,
      url,
      publicUrl,
      store: store.db.engine,
      location: store.location,
      dataDirectory: options.dataDirectory,
      authRequired: !insecure,
      metricsPort: metricsPort?.port ?? null,
    },
    `bridge listening on ${url}`,
  );
  if (insecure) stopBanner = startInsecureBanner(url, options.banner);
  sweeper.start();
  return {
    name,
    port,
    url,
    publicUrl,
    app,
    store,
    registry,
    accounts,
    sweeper,
    metrics,
    metricsPort: metricsPort?.port ?? null,
    routes: routes.map((route) => `${route.method} ${route.url}`),
    routeCatalog: routes,
    async close() {
      // What the log holds goes out before anything else: a supervisor's SIGKILL may follow the SIGTERM closely.
      logger.flush();
      stopBanner();
      await metricsPort?.close();
      await sweeper.stop();
      armory.close();
      hub.closeAll();
      registry.close();
      await app.close();
      await store.close();
    },
  };
}
