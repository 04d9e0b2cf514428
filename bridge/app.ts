// The bridge's HTTP app, built from its parts (bridge/services.ts) and settings without listening: fastify with
// the error handler, the upgrade limit, the browser and auth guards (docs/security.md), the request log, the
// WebSocket plugin, OpenAPI, the GUI and every route. The start (bridge/server.ts) listens on it; tests call
// `app.inject` on it, as fastify's testing guide builds an app apart from `listen`. It neither reads the
// process's configuration nor outlives `app.close()`.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import {
  BRIDGE_DEFAULT_PORT,
  HTTP_LIMITS,
  httpServerOptions,
  type HttpLimits,
  type RouteInfo,
} from '../protocol/index.js';
import { singleFlightReadiness } from '../protocol/probes.js';
import { validatorCompiler } from '../server/validator-compiler.js';
import { lazySerializers } from '../server/lazy-serializers.js';
import { installErrorHandler } from '../server/error-handler.js';
import { requestLine, requestSerializers } from '../server/logger.js';
import { probeRoutes } from '../server/probe-routes.js';
import { catalogRoutes } from '../server/route-catalog.js';
import { endAnsweredUpgrade, limitPendingUpgrades, registerWebSockets } from '../server/websocket-hygiene.js';
import { installBrowserGuard } from './http/browser-guard.js';
import { BRIDGE_ERRORS } from './http/error-handler.js';
import { installOpenApi } from './http/openapi.js';
import { defaultWebDirectory, installGui } from './http/gui.js';
import { installAuthGuard } from './auth/guard.js';
import type { BranchProbeLimits } from './repos/branches.js';
import { storeReadiness } from './store/readiness.js';
import { repoRoutes } from './routes/repos.js';
import { forgeRoutes } from './routes/forge.js';
import { shipRoutes } from './routes/ships.js';
import { drainReportRoutes } from './routes/drain-report.js';
import { workspaceRoutes } from './routes/workspaces.js';
import { eventRoutes } from './routes/events.js';
import { terminalRoutes } from './routes/terminal.js';
import { authRoutes } from './routes/auth.js';
import { userRoutes } from './routes/users.js';
import { armoryRoutes } from './routes/armory.js';
import { sweepRoutes } from './routes/sweep.js';
import type { BridgeServices } from './services.js';

export interface BridgeAppDeps {
  services: BridgeServices;
  /** Every request is an admin, decided before any header is read (spec "Disabled authentication"). */
  insecureNoAuth?: boolean;
  /** The origin browsers may send (default http://localhost:<default port>). */
  publicUrl?: string;
  /** Host names an unauthenticated bridge answers besides loopback and IP literals. */
  allowedHosts?: readonly string[];
  /** HTTP timeouts and ceilings (default HTTP_LIMITS). */
  httpLimits?: Partial<HttpLimits>;
  /** WebSocket ping interval (default 30 s). */
  heartbeatMs?: number;
  /** The GUI's static build served at /ui/ (default: dist/web of this checkout or image). */
  webDirectory?: string;
  allowLocalRepos?: boolean;
  /** Branch listing limits. */
  branchProbe?: BranchProbeLimits;
}

export interface BridgeApp {
  readonly app: FastifyInstance;
  /** Every route served with its schemas (HEAD mirrors left out), in registration order. */
  readonly routes: readonly RouteInfo[];
}

export async function buildBridgeApp(deps: BridgeAppDeps): Promise<BridgeApp> {
  const { services } = deps;
  const insecure = deps.insecureNoAuth ?? false;
  const limits = { ...HTTP_LIMITS, ...deps.httpLimits };
  const { app, silent } = createFastify(services, limits);
  try {
    // Before any route: each route gets its request observer as it is registered.
    services.metrics.observeHttp(app);
    app.setValidatorCompiler(validatorCompiler);
    installErrorHandler(app, BRIDGE_ERRORS);
    // First hook: one address may not park more than a few dozen upgrades on the handshake (docs/security.md H16).
    const pendingUpgrades = limitPendingUpgrades(app, limits.pendingUpgradesPerAddress);
    services.foreground.install(app);
    installBrowserGuard(app, {
      allowedOrigins: [new URL(deps.publicUrl ?? `http://localhost:${BRIDGE_DEFAULT_PORT}`).origin],
      allowedHosts: [...(deps.allowedHosts ?? [])],
      authenticated: !insecure,
    });
    const routes = catalogRoutes(app);
    installAuthGuard(app, {
      insecureNoAuth: insecure,
      authenticator: services.authenticator,
      tickets: services.tickets,
    });
    installRequestLog(app, services, silent);
    await registerWebSockets(app, {
      pendingUpgrades,
      heartbeatMs: deps.heartbeatMs,
      maxConnections: limits.maxConnections,
      accepted: (server) => services.metrics.countClientSockets(server),
    });
    await installOpenApi(app);
    await installGui(app, deps.webDirectory ?? defaultWebDirectory());
    await registerRoutes(app, deps, !insecure);
    return { app, routes };
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
}

function createFastify(
  services: BridgeServices,
  limits: HttpLimits,
): { app: FastifyInstance; silent: () => FastifyBaseLogger | undefined } {
  let silent: FastifyBaseLogger | undefined;
  const app = Fastify({
    loggerInstance: services.logger.child({}, { serializers: requestSerializers }) as unknown as FastifyBaseLogger,
    routerOptions: { maxParamLength: 512 },
    ...httpServerOptions(limits),
    forceCloseConnections: true,
    return503OnClosing: true,
    // One shared logger instead of a child per request: the routed path is the bridge's hottest, and the
    // request log line already names method and URL. A route that asks for silence (the probes) gets it.
    childLoggerFactory: (logger, _bindings, options) => {
      if (options.level !== 'silent') return logger;
      silent ??= logger.child({}, { level: 'silent' });
      return silent;
    },
    // Fastify's two lines per request (incoming, completed) become one, written in onResponse (installRequestLog).
    logController: new LogController({ disableRequestLogging: true }),
    // Each response serializer is compiled by its first use, not at start (the idle bridge's memory, issue #26).
    schemaController: lazySerializers(),
  });
  return { app, silent: () => silent };
}

/** One log line per answered request (docs/DECISIONS.md "The bridge's request log, batched"), and upgrades ended. */
function installRequestLog(
  app: FastifyInstance,
  services: BridgeServices,
  silent: () => FastifyBaseLogger | undefined,
): void {
  // Callback-style hooks: no promise per request on the routed path.
  const logRequest = services.logger.isLevelEnabled('info') ? requestLine(services.logger) : null;
  app.addHook('onResponse', (request, reply, done) => {
    if (logRequest && request.log !== silent()) logRequest(request, reply.statusCode, reply.elapsedTime);
    endAnsweredUpgrade(request);
    done();
  });
}

async function registerRoutes(app: FastifyInstance, deps: BridgeAppDeps, authenticated: boolean): Promise<void> {
  const { store, registry, ephemeral, forgeProviders: providers, logger } = deps.services;
  const { accounts, sweeper, hub, sockets, armory, metrics } = deps.services;
  await app.register(authRoutes(accounts, authenticated));
  await app.register(userRoutes(accounts));
  await app.register(
    repoRoutes({
      repos: store.repos,
      allowLocalRepos: deps.allowLocalRepos ?? true,
      probe: deps.branchProbe,
      onRemoved: (name) => ephemeral.dropRepo(name),
    }),
  );
  await app.register(forgeRoutes({ repos: store.repos, providers }));
  await app.register(shipRoutes(registry));
  await app.register(drainReportRoutes(logger));
  await app.register(sweepRoutes(sweeper));
  await app.register(workspaceRoutes({ registry, repos: store.repos, providers, ephemeral }));
  await app.register(eventRoutes(hub, sockets));
  await app.register(terminalRoutes(registry, sockets, deps.heartbeatMs));
  await app.register(armoryRoutes(armory, registry));
  await app.register(probeRoutes({ readiness: singleFlightReadiness(storeReadiness(store.db)), metrics }));
}
