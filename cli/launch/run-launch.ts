// Runs a launch plan in this process: the bridge, then each local ship (its token pair pinned, or provisioned:
// both halves generated on the first launch, later launches keep the stored bridgeToken and rotate the
// shipToken), registered inside the bridge process (spec "Ship/bridge token pair" rule 2: no admin call
// needed), then the remote ships registered by URL. Everything started is stopped again if a step fails.
import { pino, type Logger } from 'pino';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { startShip, type Ship } from '../../ship/server.js';
import { newToken } from '../../server/tokens.js';
import type { FirstAdminSource } from '../../protocol/first-admin.js';
import type { LaunchPlan, PlannedLocalShip } from './plan.js';
import { messageOf } from '../../protocol/thrown.js';

export interface LaunchedShip {
  name: string;
  url: string;
  fleetDirectory: string;
  tokens: 'pinned' | 'generated' | 'rotated';
  /** The token the ship requires, for the launch's local-ships.json; never printed. */
  bridgeToken: string;
}

export interface RemoteOutcome {
  key: string;
  url: string;
  registered: string | null;
  error: string | null;
}

export interface Launched {
  bridge: Bridge;
  ships: Ship[];
  local: LaunchedShip[];
  remote: RemoteOutcome[];
  close(): Promise<void>;
}

export interface LaunchOptions {
  firstAdmin?: FirstAdminSource;
  logger?: Logger;
  sessionCommand?: string;
  /** Where the insecure banner goes (default stderr). */
  banner?: { write?: (text: string) => void };
}

export async function runLaunch(plan: LaunchPlan, options: LaunchOptions = {}): Promise<Launched> {
  const logger = options.logger ?? pino({ level: process.env.SVC_LOG_LEVEL ?? 'warn' });
  const bridge = await startBridge({
    port: plan.bridge.port,
    name: plan.bridge.name,
    dataDirectory: plan.bridge.dataDirectory,
    databaseUrl: plan.bridge.databaseUrl,
    publicUrl: plan.bridge.publicUrl,
    insecureNoAuth: plan.bridge.insecureNoAuth,
    sweepIntervalMs: plan.bridge.sweepIntervalMs,
    firstAdmin: options.firstAdmin,
    banner: options.banner,
    logger: logger.child({ component: 'bridge' }),
  });
  const ships: Ship[] = [];
  const close = async () => {
    for (const ship of ships.reverse()) await ship.close().catch(() => undefined);
    await bridge.close();
  };
  try {
    const local: LaunchedShip[] = [];
    for (const planned of plan.localShips) {
      const { tokens, kind } = await tokensFor(bridge, planned);
      // The stored entry (old tokens, same URL) goes before the new ship listens: left in place, it would
      // reconnect to the new ship, come online and be pushed to, only to be replaced a moment later.
      // Registering below stores the new pair and URL in one step.
      if (bridge.registry.get(planned.name)) await bridge.registry.remove(planned.name);
      const ship = await startShip({
        port: planned.port,
        name: planned.name,
        fleetDirectory: planned.fleetDirectory,
        bridgeUrl: bridge.publicUrl,
        bridgeToken: tokens.bridgeToken,
        shipToken: tokens.shipToken,
        sessionCommand: options.sessionCommand,
        sessionEnv: planned.sessionEnv,
        logger: logger.child({ component: 'ship', ship: planned.name }),
      });
      ships.push(ship);
      await bridge.registry.register({ url: ship.url, ...tokens });
      local.push({
        name: ship.name,
        url: ship.url,
        fleetDirectory: ship.fleetDirectory,
        tokens: kind,
        bridgeToken: tokens.bridgeToken,
      });
    }
    const remote: RemoteOutcome[] = [];
    for (const planned of plan.remoteShips) {
      const known = bridge.registry.list().find((ship) => ship.url === planned.url.replace(/\/+$/, ''));
      if (known) {
        remote.push({ key: planned.key, url: planned.url, registered: known.name, error: null });
        continue;
      }
      try {
        const info = await bridge.registry.register({ url: planned.url, ...(planned.tokens ?? {}) });
        remote.push({ key: planned.key, url: planned.url, registered: info.name, error: null });
      } catch (error) {
        remote.push({ key: planned.key, url: planned.url, registered: null, error: messageOf(error) });
      }
    }
    return { bridge, ships, local, remote, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function tokensFor(bridge: Bridge, ship: PlannedLocalShip) {
  if (ship.tokens) return { tokens: ship.tokens, kind: 'pinned' as const };
  const stored = await bridge.store.ships.get(ship.name);
  const bridgeToken = stored?.bridgeToken ?? null;
  return {
    tokens: { shipToken: newToken(), bridgeToken: bridgeToken ?? newToken() },
    kind: bridgeToken ? ('rotated' as const) : ('generated' as const),
  };
}
