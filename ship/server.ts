// Starts a ship: holds its port first, starts the spawn helper, opens the parts below HTTP on the fleet
// directory (ship/services.ts: tmux, sessions, the workspace service), builds the HTTP app (ship/app.ts),
// listens, and writes the discovery file. A start that fails takes down what it set up. `close()` stops
// serving and leaves workspace sessions running for the next start. Signals belong to the CLI that calls this.
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { identifierProblem, type HttpLimits, type RouteInfo } from '../protocol/index.js';
import type { HarnessChoice } from '../protocol/agent-harnesses.js';
import { createLogger } from '../server/logger.js';
import { listenOnReservation, reservePort, type PortReservation } from '../server/port-reservation.js';
import { startMetricsPort } from '../server/metrics-port.js';
import type { PlainHttpServer } from '../server/plain-http-server.js';
import type { BridgeCredentials } from './agents/bridge-credentials.js';
import type { ArmorySync } from './armory/armory-sync.js';
import { writeDiscoveryFile } from './discovery.js';
import { SHIP_LOGGER } from './logger-options.js';
import type { ShipMetrics } from './metrics/ship-metrics.js';
import { SpawnHelper } from './processes/spawn-helper/spawn-helper.js';
import { DirectSpawner, type Spawner } from './processes/spawner.js';
import type { SessionUser } from './sessions/session-user.js';
import type { Tmux } from './sessions/tmux.js';
import type { TerminalConnection, TerminalOptions } from './terminal/terminal-connection.js';
import type { CloneLimits } from './workspaces/clone.js';
import type { WorkspaceService } from './workspaces/service.js';
import { openShipServices, type ShipServices, type StartUndo } from './services.js';
import { buildShipApp, type ShipApp } from './app.js';

export { tmuxSocketFor } from './sessions/tmux-socket.js';

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

export async function startShip(options: ShipOptions): Promise<Ship> {
  const name = checkedName(options.name ?? os.hostname());
  const logger = options.logger ?? createLogger(SHIP_LOGGER);
  // Before anything with a side effect (the helper process, the fleet directory, tmux): a port in use ends
  // the start here, with one clear line and nothing to undo (issue #15).
  const reservation = await reservePort(options.port, options.host ?? 'localhost');
  // What a failed start must take down again, pushed as each thing is set up (see StartUndo).
  const undo: StartUndo = [];
  const spawner = startSpawner(options, logger);
  try {
    return await assembleShip(options, { name, logger, spawner, reservation, undo });
  } catch (error) {
    // Newest first, and before the helper closes: undoing still runs tmux through it.
    for (const step of undo.reverse())
      await step().catch((problem) => logger.warn({ err: problem }, 'could not undo part of a failed start'));
    spawner.close();
    await reservation.release();
    throw error;
  }
}

function checkedName(name: string): string {
  const problem = identifierProblem(name);
  if (problem) throw new Error(`invalid ship name "${name}": ${problem}`);
  return name;
}

/**
 * First, while the ship is small: every git and tmux command the ship runs from here on is forked by this
 * helper, never on the ship's event loop (processes/spawn-helper/spawn-helper.ts).
 */
function startSpawner(options: ShipOptions, logger: Logger): Spawner {
  const spawner: Spawner =
    options.spawnHelper === false
      ? new DirectSpawner()
      : new SpawnHelper({ onProblem: (message) => logger.warn(message) });
  spawner.start?.();
  return spawner;
}

interface StartContext {
  name: string;
  logger: Logger;
  spawner: Spawner;
  reservation: PortReservation;
  undo: StartUndo;
}

async function assembleShip(options: ShipOptions, context: StartContext): Promise<Ship> {
  const { name, logger, undo } = context;
  const host = options.host ?? 'localhost';
  let shipUrl = '';
  const services = await openShipServices({
    ...options,
    name,
    logger,
    spawner: context.spawner,
    shipUrl: () => options.sessionUrl ?? shipUrl,
    undo,
  });
  const allowedHosts = [...(options.allowedHosts ?? []), os.hostname(), ...(options.host ? [options.host] : [])];
  const built = await buildShipApp({ ...options, services, allowedHosts });
  undo.push(() => built.app.close());
  const port = await listenOnReservation(built.app, context.reservation, host, options.port);
  shipUrl = `http://localhost:${port}`;
  const metricsPort =
    options.metricsPort === undefined
      ? null
      : await startMetricsPort({ port: options.metricsPort, host, allowedHosts, metrics: services.metrics });
  if (metricsPort) undo.push(() => metricsPort.close());
  await writeDiscoveryFile(services.fleetDirectory, port);
  if (!options.bridgeToken && !services.exchanged) {
    logger.warn(
      { host, port },
      'SVC_BRIDGE_TOKEN is not set: every route, terminals included, answers anyone who can reach this port',
    );
  }
  logger.info(
    { name, port, fleetDirectory: services.fleetDirectory, metricsPort: metricsPort?.port ?? null },
    'ship listening',
  );
  return shipHandle({ port, url: shipUrl, services, built, metricsPort, spawner: context.spawner });
}

function shipHandle(started: {
  port: number;
  url: string;
  services: ShipServices;
  built: ShipApp;
  metricsPort: PlainHttpServer | null;
  spawner: Spawner;
}): Ship {
  const { services, built, metricsPort, spawner } = started;
  return {
    name: services.name,
    port: started.port,
    url: started.url,
    fleetDirectory: services.fleetDirectory,
    tmux: services.tmux,
    app: built.app,
    service: services.service,
    terminals: built.terminals,
    bridgeCredentials: services.credentials,
    armory: services.armory,
    routeCatalog: built.routeCatalog,
    metrics: services.metrics,
    metricsPort: metricsPort?.port ?? null,
    async close() {
      try {
        for (const terminal of [...built.terminals]) terminal.close({ code: 1001, reason: 'ship shutting down' });
        await metricsPort?.close();
        await built.app.close();
        await services.close();
      } finally {
        // Last: the shutdown's own tmux commands above still go through the helper.
        spawner.close();
      }
    },
  };
}
