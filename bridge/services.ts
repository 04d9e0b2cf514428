// The bridge below HTTP, built on an open store: the ship roster and its event hub, the ephemeral records and
// their sweeper, accounts and the credentials they mint, the armory and the forge providers, and the wiring
// between them (docs/architecture.md §1, §3, §9). Nothing here listens or touches the process: the start
// (bridge/server.ts) and the in-process tests both build the HTTP app (bridge/app.ts) on these parts.
// `close()` stops what runs (timers, ship connections, subscribers) and leaves the store to its opener.
import type { Logger } from 'pino';
import { workspaceKey } from '../protocol/index.js';
import { forwardOnly, monotonicClock, systemClock, type Clock } from '../protocol/clock.js';
import type { Store } from './store/store.js';
import type { BridgeMetrics } from './metrics/bridge-metrics.js';
import { ShipRegistry } from './ships/registry.js';
import type { BackoffOptions } from './ships/ship-connection.js';
import { EventHub } from './events/event-hub.js';
import { Authenticator } from './auth/authenticator.js';
import { TicketBook } from './auth/tickets.js';
import { UserSockets } from './auth/user-sockets.js';
import { Accounts } from './auth/accounts.js';
import { AgentCredentials } from './auth/agent-credentials.js';
import { GitHubProvider } from './providers/github.js';
import type { ForgeProviders } from './providers/forge-provider.js';
import { Armory } from './armory/armory.js';
import { ArmoryPush } from './armory/armory-push.js';
import { EphemeralRecords } from './ephemeral/ephemeral-records.js';
import { DEFAULT_SWEEP_INTERVAL_MS, Sweeper } from './ephemeral/sweeper.js';
import { Foreground } from './http/foreground.js';
import { join } from 'node:path';

export interface BridgeServiceOptions {
  store: Store;
  metrics: BridgeMetrics;
  logger: Logger;
  /** Holds the armory (`<dataDirectory>/armory`). */
  dataDirectory: string;
  /** The URL ships and agents reach this bridge at; read each time, since it is known only once listening. */
  bridgeUrl: () => string;
  /** Time for sessions, tickets and login backoff (default: the system clock). */
  clock?: Clock;
  /** Reconnect backoff to ships. */
  reconnect?: BackoffOptions;
  /** WebSocket ping interval towards ships. */
  heartbeatMs?: number;
  /** How long registration waits for a ship's first sync. */
  registrationProbeMs?: number;
  /** Forge providers by repo `provider` (default: github from SVC_GITHUB_TOKEN / SVC_GITHUB_API_URL). */
  forgeProviders?: ForgeProviders;
  /** Milliseconds between ephemeral cleanup passes (default 300000; 0: no timer). */
  sweepIntervalMs?: number;
}

export interface BridgeServices {
  readonly store: Store;
  readonly metrics: BridgeMetrics;
  readonly logger: Logger;
  readonly registry: ShipRegistry;
  readonly hub: EventHub;
  readonly ephemeral: EphemeralRecords;
  readonly authenticator: Authenticator;
  readonly tickets: TicketBook;
  readonly sockets: UserSockets;
  readonly accounts: Accounts;
  readonly forgeProviders: ForgeProviders;
  readonly foreground: Foreground;
  readonly sweeper: Sweeper;
  readonly armory: Armory;
  /** Stops the sweeper (waiting up to `sweepWaitMs` for a pass), the armory, subscribers and ship connections. */
  close(sweepWaitMs?: number): Promise<void>;
}

export async function openBridgeServices(options: BridgeServiceOptions): Promise<BridgeServices> {
  const { store, metrics, logger } = options;
  const clock = forwardOnly(options.clock ?? systemClock);
  // What lives only in memory runs on the monotonic clock; an injected clock (tests) drives both.
  const memoryClock = options.clock ? clock : monotonicClock;
  const { registry, hub } = openShipRoster(options);
  const ephemeral = await EphemeralRecords.load(store.ephemeral);
  followShipsWithEphemeral(registry, ephemeral, logger);
  const { authenticator, tickets, sockets, accounts } = openAccounts(options, clock, memoryClock);
  metrics.watchFleet({ ships: () => registry.list(), workspaces: () => registry.snapshot() });
  pushAgentCredentials(options, registry, authenticator, clock);
  const forgeProviders = options.forgeProviders ?? githubFromEnvironment(logger);
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
  const armory = openArmory(options, registry);
  return {
    store,
    metrics,
    logger,
    registry,
    hub,
    ephemeral,
    authenticator,
    tickets,
    sockets,
    accounts,
    forgeProviders,
    foreground,
    sweeper,
    armory,
    async close(sweepWaitMs) {
      await sweeper.stop(sweepWaitMs);
      armory.close();
      hub.closeAll();
      registry.close();
    },
  };
}

/** The ship roster and the event hub over it, whose events the metrics count. */
function openShipRoster(options: BridgeServiceOptions): { registry: ShipRegistry; hub: EventHub } {
  const { store, metrics, logger } = options;
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
  return { registry, hub };
}

/** Accounts and what they mint: the authenticator, WebSocket tickets and the sockets of each user. */
function openAccounts(options: BridgeServiceOptions, clock: Clock, memoryClock: Clock) {
  const { store, metrics } = options;
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
  return { authenticator, tickets, sockets, accounts };
}

/** Agents' credentials pushed to each ship that comes online; a removed ship's credentials forgotten. */
function pushAgentCredentials(
  options: BridgeServiceOptions,
  registry: ShipRegistry,
  authenticator: Authenticator,
  clock: Clock,
): void {
  const agentCredentials = new AgentCredentials({
    store: options.store.agentTokens,
    authenticator,
    clock,
    bridgeUrl: options.bridgeUrl,
    logger: options.logger,
  });
  registry.onShipOnline((ship) => void agentCredentials.push(ship.name, ship.client));
  registry.onShipRemoved((name) => authenticator.forgetShip(name));
}

/** The armory in the data directory, pushed to the ships. */
function openArmory(options: BridgeServiceOptions, registry: ShipRegistry): Armory {
  const { logger, bridgeUrl } = options;
  const armory = new Armory(join(options.dataDirectory, 'armory'), logger);
  new ArmoryPush({ armory, registry, bridgeUrl, logger }).start();
  return armory;
}

/**
 * Keeps the ephemeral records in step with the ships (docs/security.md H23): intent rows left by a create that
 * got no answer (or a bridge killed mid-create) are decided by the ship's own view at every sync, and adopted
 * when the ship reports the workspace created.
 */
function followShipsWithEphemeral(registry: ShipRegistry, ephemeral: EphemeralRecords, logger: Logger): void {
  registry.useEphemeral(ephemeral);
  registry.onShipSync((ship, workspaces) => {
    void ephemeral
      .reconcile(ship, new Set(workspaces.map((w) => workspaceKey(w.repoName, w.name))))
      .then((changed) => changed && registry.publishSync())
      .catch((error: Error) =>
        logger.warn({ ship, error: error.message }, 'could not reconcile ephemeral records with the ship'),
      );
  });
  registry.onWorkspaceCreated((ship, workspace) => {
    void ephemeral
      .adopt(ship, workspace.repoName, workspace.name)
      .then((adopted) => adopted && registry.publishSync())
      .catch((error: Error) => logger.warn({ ship, error: error.message }, 'could not adopt an ephemeral record'));
  });
  registry.onShipRemoved((name) => ephemeral.dropShip(name));
}

function githubFromEnvironment(logger: Logger): ForgeProviders {
  return {
    github: new GitHubProvider({
      token: process.env.SVC_GITHUB_TOKEN,
      baseUrl: process.env.SVC_GITHUB_API_URL,
      log: (message, fields) => logger.warn(fields, message),
    }),
  };
}
