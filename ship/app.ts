// The ship's HTTP app, built from its parts (ship/services.ts) and settings without listening: fastify with
// the error handler, the upgrade limit, the request guard (docs/security.md), the WebSocket plugin, OpenAPI
// and every route, terminals included. The start (ship/server.ts) listens on it; tests call `app.inject` on
// it, as fastify's testing guide builds an app apart from `listen`. It neither reads the process's
// configuration nor outlives `app.close()`.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { HTTP_LIMITS, httpServerOptions, type HttpLimits, type RouteInfo } from '../protocol/index.js';
import { singleFlightReadiness } from '../protocol/probes.js';
import { validatorCompiler } from '../server/validator-compiler.js';
import { installErrorHandler } from '../server/error-handler.js';
import { requestSerializers } from '../server/logger.js';
import { probeRoutes } from '../server/probe-routes.js';
import { catalogRoutes } from '../server/route-catalog.js';
import { endAnsweredUpgrade, limitPendingUpgrades, registerWebSockets } from '../server/websocket-hygiene.js';
import { badUrlError, SHIP_ERRORS } from './http/error-handler.js';
import { installRequestGuard } from './http/request-guard.js';
import { installOpenApi } from './http/openapi.js';
import { shipReadiness } from './health/readiness.js';
import { agentRoutes } from './routes/agent.js';
import { mcpRoutes } from './agents/mcp/route.js';
import { eventRoutes } from './routes/events.js';
import { systemRoutes } from './routes/system.js';
import { workspaceRoutes } from './routes/workspaces.js';
import { terminalRoutes } from './routes/terminal.js';
import { armoryRoutes } from './routes/armory.js';
import { TerminalGuard } from './terminal/terminal-guard.js';
import type { TerminalConnection, TerminalOptions } from './terminal/terminal-connection.js';
import type { ShipServices } from './services.js';

export interface ShipAppDeps {
  services: ShipServices;
  /** Token inbound callers must present (SVC_BRIDGE_TOKEN); none leaves the ship open. Unused with the exchange. */
  bridgeToken?: string;
  /** Host names an open ship answers besides loopback and IP literals. */
  allowedHosts?: readonly string[];
  /** HTTP timeouts and ceilings (default HTTP_LIMITS). */
  httpLimits?: Partial<HttpLimits>;
  /** WebSocket ping interval (default 30 s). */
  heartbeatMs?: number;
  /** Terminal timing. */
  terminal?: TerminalOptions;
  /** /readyz fails while the fleet's volume is fuller than this fraction (none: no limit). */
  maxDiskFill?: number;
  /** Test seam: awaited before each event-stream snapshot is built. */
  beforeSnapshot?: () => Promise<void>;
}

export interface ShipApp {
  readonly app: FastifyInstance;
  /** Every route served, with its schemas (HEAD mirrors left out). */
  readonly routeCatalog: readonly RouteInfo[];
  /** Open terminal connections (each holds a pty and an emulator). */
  readonly terminals: Set<TerminalConnection>;
}

export async function buildShipApp(deps: ShipAppDeps): Promise<ShipApp> {
  const { services } = deps;
  const limits = { ...HTTP_LIMITS, ...deps.httpLimits };
  const app = createFastify(services, limits);
  try {
    // Before any route: each route gets its request observer as it is registered.
    services.metrics.observeHttp(app);
    app.setValidatorCompiler(validatorCompiler);
    installErrorHandler(app, SHIP_ERRORS);
    // First hook: one address may not park more than a few dozen upgrades on the handshake (docs/security.md H16).
    const pendingUpgrades = limitPendingUpgrades(app, limits.pendingUpgradesPerAddress);
    const routeCatalog = catalogRoutes(app);
    installRequestGuard(app, {
      bridgeToken: services.exchanged ? undefined : deps.bridgeToken,
      tokens: services.tokens,
      allowedHosts: [...(deps.allowedHosts ?? [])],
      exchanged: services.exchanged,
    });
    app.addHook('onResponse', (request, _reply, done) => {
      endAnsweredUpgrade(request);
      done();
    });
    await registerWebSockets(app, {
      pendingUpgrades,
      heartbeatMs: deps.heartbeatMs,
      maxConnections: limits.maxConnections,
      accepted: (server) => services.metrics.countClientSockets(server),
    });
    await installOpenApi(app);
    const terminals = new Set<TerminalConnection>();
    await registerRoutes(app, deps, terminals);
    return { app, routeCatalog, terminals };
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
}

function createFastify(services: ShipServices, limits: HttpLimits): FastifyInstance {
  return Fastify({
    loggerInstance: services.logger.child({}, { serializers: requestSerializers }) as unknown as FastifyBaseLogger,
    routerOptions: { maxParamLength: 512 },
    ...httpServerOptions(limits),
    forceCloseConnections: true,
    return503OnClosing: true,
    frameworkErrors: (error, request, reply) => {
      const failure = error.code === 'FST_ERR_BAD_URL' ? badUrlError(String(request.url)) : null;
      const status = failure?.status ?? error.statusCode ?? 400;
      void (reply as FastifyReply).code(status).send({ error: failure?.message ?? error.message });
    },
  });
}

async function registerRoutes(
  app: FastifyInstance,
  deps: ShipAppDeps,
  terminals: Set<TerminalConnection>,
): Promise<void> {
  const { service, credentials, armory, events, tmux, metrics, logger, pipes } = deps.services;
  await app.register(workspaceRoutes(service));
  await app.register(agentRoutes(service, credentials));
  await app.register(mcpRoutes(service, credentials));
  await app.register(systemRoutes());
  await app.register(
    probeRoutes({
      readiness: singleFlightReadiness(shipReadiness(tmux, deps.services.fleetDirectory, deps.maxDiskFill)),
      metrics,
    }),
  );
  await app.register(armoryRoutes(armory));
  await app.register(eventRoutes(service, events, deps.services.name, deps.beforeSnapshot));
  await app.register(
    terminalRoutes(service, {
      tmux,
      guard: new TerminalGuard(),
      logger,
      options: deps.terminal ?? {},
      connections: terminals,
      pipes,
      metrics: metrics.terminal,
    }),
  );
}
