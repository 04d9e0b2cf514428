// The ship below HTTP, on its fleet directory: git through the spawn helper, the repo cache, the private tmux
// server and the session registry, the workspace service with its agents, MCP tokens and events, the armory
// and the token exchange (docs/architecture.md §1, §5). Opening adopts the sessions a previous ship left
// running. Nothing here listens or touches the process: the start (ship/server.ts) and the in-process tests
// both build the HTTP app (ship/app.ts) on these parts. Each step that must be taken back if the start fails
// is pushed onto `undo`; `close()` is the orderly shutdown, which leaves active workspaces' sessions running.
import { existsSync } from 'node:fs';
import { mkdir, readdir, realpath, rm } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import os from 'node:os';
import type { Logger } from 'pino';
import type { HarnessChoice } from '../protocol/agent-harnesses.js';
import { AgentStatusStore } from './agents/agent-status.js';
import { AgentActivityWatcher } from './agents/agent-activity-watcher.js';
import { agentStaleMs } from './agents/agent-staleness.js';
import { BridgeCredentials } from './agents/bridge-credentials.js';
import { McpTokenRegistry } from './agents/mcp-tokens.js';
import { ArmorySync } from './armory/armory-sync.js';
import { EventBus } from './events/event-bus.js';
import { GitRunner } from './git/runner.js';
import { ShipMetrics } from './metrics/ship-metrics.js';
import { controlClientsOf, endProcesses } from './processes/leftover-processes.js';
import type { Spawner } from './processes/spawner.js';
import { agentWiringPrelude } from './sessions/agent-wiring.js';
import { SessionRegistry } from './sessions/session-registry.js';
import { isWorkspaceSessionName } from './sessions/session-names.js';
import { sharedTemporaryDirectory, type SessionUser } from './sessions/session-user.js';
import { Tmux } from './sessions/tmux.js';
import { tmuxSocketFor } from './sessions/tmux-socket.js';
import { PipeDirectory } from './terminal/pane-pipe.js';
import { ExchangedTokens } from './tokens/exchanged-tokens.js';
import type { CloneLimits } from './workspaces/clone.js';
import { Fleet, SHIP_STATE_DIR } from './workspaces/fleet.js';
import { RepoCache } from './workspaces/repo-cache.js';
import { WorkspaceService, type WorkspaceServiceDeps } from './workspaces/service.js';

/** How long a repo cache may go unused before the ship removes it. */
export const REPO_CACHE_MAX_IDLE_MS = 14 * 86_400_000;

/** Steps that take back what a start set up, so a start that fails leaves nothing behind. */
export type StartUndo = Array<() => Promise<void>>;

export interface ShipServiceOptions {
  name: string;
  fleetDirectory: string;
  logger: Logger;
  /** Forks every git and tmux command (processes/spawner.ts); started and closed by the caller. */
  spawner: Spawner;
  /** The URL sessions reach this ship at, read when a session starts (known only once listening). */
  shipUrl: () => string;
  /** Steps to take back if the start fails, pushed as each is set up (newest is undone first). */
  undo: StartUndo;
  allowLocalRepos?: boolean;
  /** The pair comes from the operator's token exchange (`--tokens-from`). */
  tokenExchange?: { url: string; credentialFile: string };
  /** Token presented to the bridge on armory pulls (SVC_SHIP_TOKEN), unless the exchange supplies one. */
  shipToken?: string;
  /** Pinned bridge for armory pushes (none: the first bridge that pushes). */
  bridgeUrl?: string;
  /** The ship user's home (default os.homedir()). */
  homeDirectory?: string;
  sessionCommand?: string;
  sessionEnv?: Record<string, string>;
  sessionHolder?: boolean;
  sessionUser?: SessionUser;
  agentHarness?: HarnessChoice;
  selfCommand?: readonly string[];
  cloneLimits?: CloneLimits;
  /** Default `<fleetDirectory>.repo-cache`; null: no cache. */
  repoCacheDirectory?: string | null;
  repoCacheMaxIdleMs?: number;
  agentStaleMs?: number;
}

export interface ShipServices {
  readonly name: string;
  readonly fleetDirectory: string;
  readonly logger: Logger;
  readonly metrics: ShipMetrics;
  readonly tmux: Tmux;
  readonly service: WorkspaceService;
  readonly events: EventBus;
  readonly tokens: McpTokenRegistry;
  readonly credentials: BridgeCredentials;
  readonly armory: ArmorySync;
  /** The operator's token pair for this node, or none when the tokens come from the environment. */
  readonly exchanged: ExchangedTokens | undefined;
  /** Where terminals' pane pipes (FIFOs) are made. */
  readonly pipes: PipeDirectory;
  /** Stops timers, git and the session registry; ends the tmux server only when no workspace session is left. */
  close(): Promise<void>;
}

export async function resolveFleetDirectory(path: string): Promise<string> {
  const absolute = resolve(path);
  await mkdir(absolute, { recursive: true });
  const real = await realpath(absolute);
  await mkdir(resolve(real, SHIP_STATE_DIR), { recursive: true, mode: 0o700 });
  return real;
}

export async function openShipServices(options: ShipServiceOptions): Promise<ShipServices> {
  const { logger, undo } = options;
  const { fleet, fleetDirectory } = await openFleet(options);
  const metrics = new ShipMetrics();
  const git = openGit(options, fleetDirectory, metrics);
  const repoCaches = await openRepoCache(options, fleetDirectory, git, metrics);
  const tmux = openTmux(options, fleetDirectory);
  const tokens = new McpTokenRegistry();
  const exchanged = await startTokenExchange(options);
  const armory = openArmory(options, fleetDirectory, exchanged);
  const events = new EventBus(options.name);
  const agents = new AgentStatusStore();
  const workspaceParts = { fleet, git, tmux, agents, tokens, events, repoCache: repoCaches.cache };
  const { service, sessions } = openWorkspaceService(options, workspaceParts);
  await fleet.clearLeftovers();
  await adoptSessions(tmux, sessions, service, undo);
  const staleness = watchAgentActivity(options, agents, service, tmux, events);
  metrics.watchWorkspaces(() => service.list());
  const pipes = openPipes(options);
  const credentials = new BridgeCredentials();
  return {
    name: options.name,
    fleetDirectory,
    logger,
    metrics,
    tmux,
    service,
    events,
    tokens,
    credentials,
    armory,
    exchanged,
    pipes,
    async close() {
      repoCaches.stopSweeping();
      exchanged?.stop();
      git.stopAll();
      pipes.dispose();
      await staleness.stop();
      await sessions.close();
      service.close();
      const live = [...(await tmux.listSessions())].filter(isWorkspaceSessionName);
      // Active workspaces keep their sessions for the next start; an idle server is not left behind.
      if (live.length === 0) await tmux.killServer();
    },
  };
}

/** The fleet directory, made when missing (and removed again by `undo` if nothing came into it), prepared. */
async function openFleet(options: ShipServiceOptions): Promise<{ fleet: Fleet; fleetDirectory: string }> {
  const fleetExisted = existsSync(resolve(options.fleetDirectory));
  const fleetDirectory = await resolveFleetDirectory(options.fleetDirectory);
  if (!fleetExisted) options.undo.push(() => removeNewFleetDirectory(fleetDirectory));
  const fleet = new Fleet(fleetDirectory, options.sessionUser !== undefined);
  await fleet.prepare();
  return { fleet, fleetDirectory };
}

/** A fleet directory this start created goes again if nothing but the ship's own state came into it. */
async function removeNewFleetDirectory(fleetDirectory: string): Promise<void> {
  const entries = await readdir(fleetDirectory);
  if (entries.every((entry) => entry === SHIP_STATE_DIR)) await rm(fleetDirectory, { recursive: true, force: true });
}

/** Git through the spawner, timed for the metrics; in a workspace it runs as the session user. */
function openGit(options: ShipServiceOptions, fleetDirectory: string, metrics: ShipMetrics): GitRunner {
  return new GitRunner(
    { allowLocalRepos: options.allowLocalRepos ?? true },
    metrics.timedGit(options.spawner),
    undefined,
    sessionUserFor(fleetDirectory, options.sessionUser),
  );
}

/** Git in a workspace (not in the ship's own state directory, where clones are staged) runs as the session user. */
function sessionUserFor(fleetDirectory: string, sessionUser: SessionUser | undefined) {
  const ownState = join(fleetDirectory, SHIP_STATE_DIR) + sep;
  return (cwd: string) => {
    const path = resolve(cwd) + sep;
    return sessionUser && path.startsWith(fleetDirectory + sep) && !path.startsWith(ownState) ? sessionUser : undefined;
  };
}

/** The repo cache (docs/DECISIONS.md "Fan-out: the repo cache"); caches no create used for the idle time go. */
async function openRepoCache(
  options: ShipServiceOptions,
  fleetDirectory: string,
  git: GitRunner,
  metrics: ShipMetrics,
): Promise<{ cache: RepoCache | undefined; stopSweeping: () => void }> {
  const cache =
    options.repoCacheDirectory === null
      ? undefined
      : new RepoCache(resolve(options.repoCacheDirectory ?? `${fleetDirectory}.repo-cache`), git, metrics.repoCache);
  await cache?.clearLeftovers();
  if (cache) metrics.watchRepoCaches(() => cache.list());
  // At start and every hour (or a quarter of the idle time, when shorter).
  const idleMs = options.repoCacheMaxIdleMs ?? REPO_CACHE_MAX_IDLE_MS;
  const sweep = () => void (idleMs > 0 ? cache?.removeUnused(idleMs).catch(() => undefined) : undefined);
  sweep();
  const sweeper = setInterval(sweep, Math.min(3_600_000, Math.max(1_000, idleMs / 4)));
  sweeper.unref();
  options.undo.push(async () => clearInterval(sweeper));
  return { cache, stopSweeping: () => clearInterval(sweeper) };
}

function openTmux(options: ShipServiceOptions, fleetDirectory: string): Tmux {
  if (options.agentHarness && !options.selfCommand)
    throw new Error('agentHarness needs selfCommand: the argv that starts svc in a session');
  const prelude = options.agentHarness ? agentWiringPrelude(options.agentHarness, options.selfCommand!) : undefined;
  return new Tmux(tmuxSocketFor(fleetDirectory), options.sessionCommand, options.spawner, options.sessionEnv, {
    holder: options.sessionHolder,
    prelude,
    user: options.sessionUser,
  });
}

/** A pair of this node's own from the operator (never open meanwhile): fetched before serving, kept fresh. */
async function startTokenExchange(options: ShipServiceOptions): Promise<ExchangedTokens | undefined> {
  if (!options.tokenExchange) return undefined;
  const exchanged = new ExchangedTokens({ ...options.tokenExchange, logger: options.logger });
  await exchanged.start();
  options.undo.push(async () => exchanged.stop());
  return exchanged;
}

async function adoptSessions(
  tmux: Tmux,
  sessions: SessionRegistry,
  service: WorkspaceService,
  undo: StartUndo,
): Promise<void> {
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
}

function watchAgentActivity(
  options: ShipServiceOptions,
  agents: AgentStatusStore,
  service: WorkspaceService,
  tmux: Tmux,
  events: EventBus,
): AgentActivityWatcher {
  const staleness = new AgentActivityWatcher({
    agents,
    activeWorkspaces: () => service.list(true),
    tmux,
    events,
    staleMs: agentStaleMs(options.agentStaleMs),
    onError: (error) => options.logger.warn({ err: error }, 'agent activity check failed'),
  });
  staleness.start();
  options.undo.push(() => staleness.stop());
  return staleness;
}

/** The armory, its cached files re-applied now, without waiting for the bridge. */
function openArmory(
  options: ShipServiceOptions,
  fleetDirectory: string,
  exchanged: ExchangedTokens | undefined,
): ArmorySync {
  const armory = new ArmorySync({
    home: options.homeDirectory ?? os.homedir(),
    fleetDirectory,
    pinnedBridgeUrl: options.bridgeUrl,
    shipToken: exchanged ? () => exchanged.shipToken : options.shipToken,
    logger: options.logger,
  });
  void armory.reapply();
  return armory;
}

/**
 * The workspace service and the session registry it hears ended sessions from (the registry is made first,
 * so its callback reaches the service through a variable set just after).
 */
function openWorkspaceService(
  options: ShipServiceOptions,
  parts: Pick<WorkspaceServiceDeps, 'fleet' | 'git' | 'tmux' | 'agents' | 'tokens' | 'events' | 'repoCache'>,
): { service: WorkspaceService; sessions: SessionRegistry } {
  let service: WorkspaceService | undefined;
  const sessions = new SessionRegistry(parts.tmux, (session) => {
    void service
      ?.sessionEnded(session)
      .catch((error) => options.logger.warn({ err: error }, 'could not report an ended session'));
  });
  service = new WorkspaceService({
    ...parts,
    shipName: options.name,
    shipUrl: options.shipUrl,
    allowLocalRepos: options.allowLocalRepos ?? true,
    sessions,
    cloneLimits: options.cloneLimits,
    sessionUser: options.sessionUser,
  });
  return { service, sessions };
}

/** Where terminals' FIFOs are made: the session user's tmux writes them, so they go where it can reach them. */
function openPipes(options: ShipServiceOptions): PipeDirectory {
  const pipes = options.sessionUser
    ? new PipeDirectory(sharedTemporaryDirectory(), options.sessionUser)
    : new PipeDirectory();
  options.undo.push(async () => pipes.dispose());
  return pipes;
}
