// Assembles a ship: holds its port first, resolves the fleet directory, starts (or adopts) its private tmux
// server, wires the workspace service to HTTP and WebSocket routes behind the request guard, listens, and
// writes the discovery file. A start that fails takes down what it set up. `close()` stops serving and
// leaves workspace sessions running for the next start.
import { existsSync } from 'node:fs';
import { mkdir, readdir, realpath, rm } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import os from 'node:os';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { validatorCompiler } from '../server/validator-compiler.js';
import type { Logger } from 'pino';
import {
  HTTP_LIMITS,
  httpServerOptions,
  identifierProblem,
  type HttpLimits,
  type RouteInfo,
} from '../protocol/index.js';
import { AgentStatusStore } from './agents/agent-status.js';
import { AgentActivityWatcher } from './agents/agent-activity-watcher.js';
import { agentStaleMs } from './agents/agent-staleness.js';
import { BridgeCredentials } from './agents/bridge-credentials.js';
import { ArmorySync } from './armory/armory-sync.js';
import { armoryRoutes } from './routes/armory.js';
import { McpTokenRegistry } from './agents/mcp-tokens.js';
import { writeDiscoveryFile } from './discovery.js';
import { EventBus } from './events/event-bus.js';
import { GitRunner } from './git/runner.js';
import { controlClientsOf, endProcesses } from './processes/leftover-processes.js';
import { SpawnHelper } from './processes/spawn-helper/spawn-helper.js';
import { DirectSpawner, type Spawner } from './processes/spawner.js';
import { badUrlError, SHIP_ERRORS } from './http/error-handler.js';
import { installErrorHandler } from '../server/error-handler.js';
import { installRequestGuard } from './http/request-guard.js';
import { installOpenApi } from './http/openapi.js';
import { listenFailure, reservePort, type PortReservation } from '../server/port-reservation.js';
import { startMetricsPort } from '../server/metrics-port.js';
import type { PlainHttpServer } from '../server/plain-http-server.js';
import { probeRoutes } from '../server/probe-routes.js';
import { singleFlightReadiness } from '../protocol/probes.js';
import { shipReadiness } from './health/readiness.js';
import { ShipMetrics } from './metrics/ship-metrics.js';
import { createLogger, requestSerializers } from '../server/logger.js';
import { SHIP_LOGGER } from './logger-options.js';
import { agentRoutes } from './routes/agent.js';
import { mcpRoutes } from './agents/mcp/route.js';
import { eventRoutes } from './routes/events.js';
import { systemRoutes } from './routes/system.js';
import { workspaceRoutes } from './routes/workspaces.js';
import { terminalRoutes } from './routes/terminal.js';
import type { TerminalConnection, TerminalOptions } from './terminal/terminal-connection.js';
import { TerminalGuard } from './terminal/terminal-guard.js';
import { PipeDirectory } from './terminal/pane-pipe.js';
import { SessionRegistry } from './sessions/session-registry.js';
import { isWorkspaceSessionName } from './sessions/session-names.js';
import { Tmux } from './sessions/tmux.js';
import { tmuxSocketFor } from './sessions/tmux-socket.js';
import { sharedTemporaryDirectory } from './sessions/session-user.js';
import type { SessionUser } from './sessions/session-user.js';
import { agentWiringPrelude } from './sessions/agent-wiring.js';
import type { HarnessChoice } from '../protocol/agent-harnesses.js';
import { RepoCache } from './workspaces/repo-cache.js';

/** How long a repo cache may go unused before the ship removes it. */
export const REPO_CACHE_MAX_IDLE_MS = 14 * 86_400_000;
import { Fleet, SHIP_STATE_DIR } from './workspaces/fleet.js';
import { WorkspaceService } from './workspaces/service.js';
import type { CloneLimits } from './workspaces/clone.js';
import { ExchangedTokens } from './tokens/exchanged-tokens.js';
import { endAnsweredUpgrade, limitPendingUpgrades, registerWebSockets } from '../server/websocket-hygiene.js';

export interface ShipOptions {
  fleetDirectory: string;
  port: number;
  /** Listen address: `localhost` (loopback, IPv4 and IPv6) unless serving other hosts. */
  host?: string;
  name?: string;
  /** Pinned bridge for armory pushes (none: the first bridge that pushes). */
  bridgeUrl?: string;
  allowLocalRepos?: boolean;
  /** Token inbound callers must present (SVC_BRIDGE_TOKEN); none leaves the ship open. */
  bridgeToken?: string;
  /** Token presented to the bridge on armory pulls (SVC_SHIP_TOKEN). */
  shipToken?: string;
  /** The pair comes from the operator's token exchange instead (`--tokens-from`): bridgeToken and shipToken are ignored. */
  tokenExchange?: { url: string; credentialFile: string };
  /** The ship user's home: armory state under `.config/svc/ship`, installs into provider roots (default os.homedir()). */
  homeDirectory?: string;
  allowedHosts?: string[];
  logger?: Logger;
  /** What a workspace session runs instead of the login shell (SVC_SESSION_COMMAND). */
  sessionCommand?: string;
  /** Variables every session receives (SVC_SESSION_ENV, checked by sessions/session-env.ts). */
  sessionEnv?: Record<string, string>;
  /** The tmux server belongs to `svc session-holder` (sessions/session-holder.ts): wait for it, never end it. */
  sessionHolder?: boolean;
  /** Sessions, and git in their workspaces, run as this user (`--session-user`: docs/security.md H24). */
  sessionUser?: SessionUser;
  /** The URL the agents in sessions reach this ship at (SVC_SHIP_URL; default http://localhost:<port>). */
  sessionUrl?: string;
  /** Each new session first wires this harness to its MCP server (SVC_AGENT_HARNESS: sessions/agent-wiring.ts). */
  agentHarness?: HarnessChoice;
  /** The argv that starts this svc (node and its bin), for what sessions run of it; needed with agentHarness. */
  selfCommand?: readonly string[];
  /** Terminal timing (tests shorten the init and ack timeouts). */
  terminal?: TerminalOptions;
  /** WebSocket ping interval (default 30 s; tests shorten it). */
  heartbeatMs?: number;
  /** HTTP timeouts and ceilings (default HTTP_LIMITS; tests shorten the timeouts). */
  httpLimits?: Partial<HttpLimits>;
  /** Clone deadline and stall limit (default CLONE_LIMITS; tests shorten them). */
  cloneLimits?: CloneLimits;
  /**
   * Where the per-repo object caches live (docs/DECISIONS.md "Fan-out: the repo cache"): default
   * `<fleetDirectory>.repo-cache` beside the fleet (same filesystem, so workspaces hard-link its objects);
   * null switches the cache off (`--no-repo-cache`): every create is a plain clone.
   */
  repoCacheDirectory?: string | null;
  /** A repo cache no create has used this long is removed (default 14 days; 0: never). */
  repoCacheMaxIdleMs?: number;
  /** Test seam: awaited before each event-stream snapshot is built. */
  beforeSnapshot?: () => Promise<void>;
  /** Bench seam: false forks git and tmux on the ship's own thread, as before the spawn helper. */
  spawnHelper?: boolean;
  /** Planning/building/verifying with no pane output this long marks the agent status stale (SVC_AGENT_STALE_MS; default 10 min). */
  agentStaleMs?: number;
  /** A second port serving only GET /metrics, without a credential (--metrics-port; none: not served). */
  metricsPort?: number;
  /** /readyz fails while the fleet's volume is fuller than this fraction (--max-disk-fill; none: no limit). */
  maxDiskFill?: number;
}

export interface Ship {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly fleetDirectory: string;
  readonly tmux: Tmux;
  readonly app: FastifyInstance;
  readonly service: WorkspaceService;
  /** Open terminal connections (each holds a pty and an emulator). */
  readonly terminals: ReadonlySet<TerminalConnection>;
  /** What the bridge last pushed through POST /agent/credentials (memory only). */
  readonly bridgeCredentials: BridgeCredentials;
  readonly armory: ArmorySync;
  /** Every route served, with its schemas. */
  readonly routeCatalog: readonly RouteInfo[];
  readonly metrics: ShipMetrics;
  /** The port of --metrics-port as bound, or null when it is not served. */
  readonly metricsPort: number | null;
  close(): Promise<void>;
}

export { tmuxSocketFor } from './sessions/tmux-socket.js';

export async function resolveFleetDirectory(path: string): Promise<string> {
  const absolute = resolve(path);
  await mkdir(absolute, { recursive: true });
  const real = await realpath(absolute);
  await mkdir(resolve(real, SHIP_STATE_DIR), { recursive: true, mode: 0o700 });
  return real;
}

export async function startShip(options: ShipOptions): Promise<Ship> {
  const name = options.name ?? os.hostname();
  const problem = identifierProblem(name);
  if (problem) throw new Error(`invalid ship name "${name}": ${problem}`);
  const logger = options.logger ?? createLogger(SHIP_LOGGER);
  // Before anything with a side effect (the helper process, the fleet directory, tmux): a port in use ends
  // the start here, with one clear line and nothing to undo (issue #15).
  const reservation = await reservePort(options.port, options.host ?? 'localhost');
  // What a failed start must take down again, pushed as each thing is set up (see StartUndo).
  const undo: StartUndo = [];
  // First, while the ship is small: every git and tmux command the ship runs from here on is forked by this
  // helper, never on the ship's event loop (processes/spawn-helper/spawn-helper.ts).
  const spawner: Spawner =
    options.spawnHelper === false
      ? new DirectSpawner()
      : new SpawnHelper({ onProblem: (message) => logger.warn(message) });
  spawner.start?.();
  try {
    return await assembleShip(options, name, logger, spawner, reservation, undo);
  } catch (error) {
    // Newest first, and before the helper closes: undoing still runs tmux through it.
    for (const step of undo.reverse())
      await step().catch((problem) => logger.warn({ err: problem }, 'could not undo part of a failed start'));
    spawner.close();
    await reservation.release();
    throw error;
  }
}

/** Steps that take back what a start set up, so a start that fails leaves nothing behind. */
type StartUndo = Array<() => Promise<void>>;

/** A fleet directory this start created goes again if nothing but the ship's own state came into it. */
async function removeNewFleetDirectory(fleetDirectory: string): Promise<void> {
  const entries = await readdir(fleetDirectory);
  if (entries.every((entry) => entry === SHIP_STATE_DIR)) await rm(fleetDirectory, { recursive: true, force: true });
}

async function assembleShip(
  options: ShipOptions,
  name: string,
  logger: Logger,
  spawner: Spawner,
  reservation: PortReservation,
  undo: StartUndo,
): Promise<Ship> {
  const fleetExisted = existsSync(resolve(options.fleetDirectory));
  const fleetDirectory = await resolveFleetDirectory(options.fleetDirectory);
  if (!fleetExisted) undo.push(() => removeNewFleetDirectory(fleetDirectory));
  const allowLocalRepos = options.allowLocalRepos ?? true;

  const sessionUser = options.sessionUser;
  const fleet = new Fleet(fleetDirectory, sessionUser !== undefined);
  await fleet.prepare();
  const metrics = new ShipMetrics();
  // Git in a workspace (not in the ship's own state directory, where clones are staged) runs as the session user.
  const ownState = join(fleetDirectory, SHIP_STATE_DIR) + sep;
  const runAs = (cwd: string) => {
    const path = resolve(cwd) + sep;
    return sessionUser && path.startsWith(fleetDirectory + sep) && !path.startsWith(ownState) ? sessionUser : undefined;
  };
  const git = new GitRunner({ allowLocalRepos }, metrics.timedGit(spawner), undefined, runAs);
  const repoCache =
    options.repoCacheDirectory === null
      ? undefined
      : new RepoCache(resolve(options.repoCacheDirectory ?? `${fleetDirectory}.repo-cache`), git, metrics.repoCache);
  await repoCache?.clearLeftovers();
  if (repoCache) metrics.watchRepoCaches(() => repoCache.list());
  // Caches no create has used for the idle time are removed, at start and every hour.
  const cacheIdleMs = options.repoCacheMaxIdleMs ?? REPO_CACHE_MAX_IDLE_MS;
  const sweepCaches = () =>
    void (cacheIdleMs > 0 ? repoCache?.removeUnused(cacheIdleMs).catch(() => undefined) : undefined);
  sweepCaches();
  const cacheSweeper = setInterval(sweepCaches, Math.min(3_600_000, Math.max(1_000, cacheIdleMs / 4)));
  cacheSweeper.unref();
  if (options.agentHarness && !options.selfCommand)
    throw new Error('agentHarness needs selfCommand: the argv that starts svc in a session');
  const prelude = options.agentHarness ? agentWiringPrelude(options.agentHarness, options.selfCommand!) : undefined;
  const tmux = new Tmux(tmuxSocketFor(fleetDirectory), options.sessionCommand, spawner, options.sessionEnv, {
    holder: options.sessionHolder,
    prelude,
    user: sessionUser,
  });
  const agents = new AgentStatusStore();
  const tokens = new McpTokenRegistry();
  const credentials = new BridgeCredentials();
  // A pair of this node's own from the operator (never open meanwhile): fetched before serving, kept fresh.
  const exchanged = options.tokenExchange ? new ExchangedTokens({ ...options.tokenExchange, logger }) : undefined;
  if (exchanged) {
    await exchanged.start();
    undo.push(async () => exchanged.stop());
  }
  const armory = new ArmorySync({
    home: options.homeDirectory ?? os.homedir(),
    fleetDirectory,
    pinnedBridgeUrl: options.bridgeUrl,
    shipToken: exchanged ? () => exchanged.shipToken : options.shipToken,
    logger,
  });
  // Re-apply the cached armory now, without waiting for the bridge.
  void armory.reapply();
  const events = new EventBus(name);
  let shipUrl = '';
  let service: WorkspaceService | undefined;
  const sessions = new SessionRegistry(tmux, (session) => {
    void service
      ?.sessionEnded(session)
      .catch((error) => logger.warn({ err: error }, 'could not report an ended session'));
  });
  service = new WorkspaceService({
    shipName: name,
    shipUrl: () => options.sessionUrl ?? shipUrl,
    allowLocalRepos,
    fleet,
    git,
    tmux,
    sessions,
    agents,
    tokens,
    events,
    cloneLimits: options.cloneLimits,
    repoCache,
    sessionUser,
  });

  await fleet.clearLeftovers();
  // A control client a killed ship left attached would hold the tmux server open after a kill-server.
  await endProcesses(controlClientsOf(tmux.socketName));
  undo.push(async () => {
    await sessions.close();
    // As close() does: a tmux server holding no workspace session is not left running. No tmux to ask
    // (not installed): nothing was started.
    const listed = await tmux.listSessions().catch(() => null);
    if (listed && ![...listed].some(isWorkspaceSessionName)) await tmux.killServer();
  });
  await sessions.start();
  await service.adoptSessions();
  const staleness = new AgentActivityWatcher({
    agents,
    activeWorkspaces: () => service.list(true),
    tmux,
    events,
    staleMs: agentStaleMs(options.agentStaleMs),
    onError: (error) => logger.warn({ err: error }, 'agent activity check failed'),
  });
  staleness.start();
  undo.push(() => staleness.stop());

  const limits = { ...HTTP_LIMITS, ...options.httpLimits };
  const app = Fastify({
    loggerInstance: logger.child({}, { serializers: requestSerializers }) as unknown as FastifyBaseLogger,
    routerOptions: { maxParamLength: 512 },
    ...httpServerOptions(limits),
    forceCloseConnections: true,
    return503OnClosing: true,
    frameworkErrors: (error, _request, reply) => {
      const failure = error.code === 'FST_ERR_BAD_URL' ? badUrlError(String(_request.url)) : null;
      const status = failure?.status ?? error.statusCode ?? 400;
      void (reply as FastifyReply).code(status).send({ error: failure?.message ?? error.message });
    },
  });
  undo.push(() => app.close());
  // Before any route: each route gets its request observer as it is registered.
  metrics.observeHttp(app);
  metrics.watchWorkspaces(() => service.list());
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandler(app, SHIP_ERRORS);
  // First hook: one address may not park more than a few dozen upgrades on the handshake (docs/security.md H16).
  const pendingUpgrades = limitPendingUpgrades(app, limits.pendingUpgradesPerAddress);
  const routeCatalog: RouteInfo[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      if (method !== 'HEAD') routeCatalog.push({ method, url: route.url, schema: route.schema as RouteInfo['schema'] });
  });
  const allowedHosts = [...(options.allowedHosts ?? []), os.hostname(), ...(options.host ? [options.host] : [])];
  installRequestGuard(app, {
    bridgeToken: exchanged ? undefined : options.bridgeToken,
    tokens,
    allowedHosts,
    exchanged,
  });
  app.addHook('onResponse', (request, _reply, done) => {
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
  await app.register(workspaceRoutes(service));
  await app.register(agentRoutes(service, credentials));
  await app.register(mcpRoutes(service, credentials));
  await app.register(systemRoutes());
  await app.register(
    probeRoutes({
      readiness: singleFlightReadiness(shipReadiness(tmux, fleetDirectory, options.maxDiskFill)),
      metrics,
    }),
  );
  await app.register(armoryRoutes(armory));
  await app.register(eventRoutes(service, events, name, options.beforeSnapshot));
  const terminals = new Set<TerminalConnection>();
  const terminalGuard = new TerminalGuard();
  // The session user's tmux writes the FIFOs: they go where it can reach them.
  const pipes = sessionUser ? new PipeDirectory(sharedTemporaryDirectory(), sessionUser) : new PipeDirectory();
  await app.register(
    terminalRoutes(service, {
      tmux,
      guard: terminalGuard,
      logger,
      options: options.terminal ?? {},
      connections: terminals,
      pipes,
      metrics: metrics.terminal,
    }),
  );

  // Every route is registered: the port passes from the reservation to fastify within a few turns.
  await app.ready();
  await reservation.release();
  try {
    await app.listen({ port: options.port, host: options.host ?? 'localhost' });
  } catch (error) {
    throw listenFailure(error, options.host ?? 'localhost', options.port);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  shipUrl = `http://localhost:${port}`;
  let metricsPort: PlainHttpServer | null = null;
  if (options.metricsPort !== undefined) {
    metricsPort = await startMetricsPort({
      port: options.metricsPort,
      host: options.host ?? 'localhost',
      allowedHosts,
      metrics,
    });
    const opened = metricsPort;
    undo.push(() => opened.close());
  }
  await writeDiscoveryFile(fleetDirectory, port);
  if (!options.bridgeToken && !exchanged) {
    logger.warn(
      { host: options.host ?? 'localhost', port },
      'SVC_BRIDGE_TOKEN is not set: every route, terminals included, answers anyone who can reach this port',
    );
  }
  logger.info({ name, port, fleetDirectory, metricsPort: metricsPort?.port ?? null }, 'ship listening');

  return {
    name,
    port,
    url: shipUrl,
    fleetDirectory,
    tmux,
    app,
    service,
    terminals,
    bridgeCredentials: credentials,
    armory,
    routeCatalog,
    metrics,
    metricsPort: metricsPort?.port ?? null,
    async close() {
      try {
        clearInterval(cacheSweeper);
        exchanged?.stop();
        for (const terminal of [...terminals]) terminal.close({ code: 1001, reason: 'ship shutting down' });
        await metricsPort?.close();
        await app.close();
        git.stopAll();
        pipes.dispose();
        await staleness.stop();
        await sessions.close();
        const live = [...(await tmux.listSessions())].filter(isWorkspaceSessionName);
        // Active workspaces keep their sessions for the next start; an idle server is not left behind.
        if (live.length === 0) await tmux.killServer();
      } finally {
        // Last: the shutdown's own tmux commands above still go through the helper.
        spawner.close();
      }
    },
  };
}
