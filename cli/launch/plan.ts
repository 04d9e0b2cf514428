// What `svc launch` will run, with every default filled in: from a configuration file, or the zero-config
// plan (a bridge in ./.svc/bridge and one local ship in ./.svc/fleet named after the host). Paths in a file
// are relative to the file's directory.
import os from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { BRIDGE_DEFAULT_PORT, SHIP_DEFAULT_PORT } from '../../protocol/ports.js';
import type { LaunchConfig } from '../../protocol/index.js';

export interface PlannedBridge {
  dataDirectory: string;
  port: number;
  name: string;
  publicUrl?: string;
  databaseUrl?: string;
  insecureNoAuth: boolean;
  sweepIntervalMs: number;
}

export interface PlannedLocalShip {
  key: string;
  name: string;
  fleetDirectory: string;
  port: number;
  /** Both given in the file (pinned), or none (the launch provisions a pair). */
  tokens: { shipToken: string; bridgeToken: string } | null;
  /** What every session of the ship receives (the entry's `sessionEnv`). */
  sessionEnv: Record<string, string>;
}

export interface PlannedRemoteShip {
  key: string;
  url: string;
  tokens: { shipToken: string; bridgeToken: string } | null;
}

export interface LaunchPlan {
  bridge: PlannedBridge;
  localShips: PlannedLocalShip[];
  remoteShips: PlannedRemoteShip[];
}

const DEFAULT_SWEEP_MS = 300_000;

export function planFromConfig(config: LaunchConfig, directory: string): LaunchPlan {
  const at = (path: string) => (isAbsolute(path) ? path : resolve(directory, path));
  const bridge = config.bridge ?? {};
  const usedPorts = new Set<number>([bridge.port ?? BRIDGE_DEFAULT_PORT]);
  for (const ship of Object.values(config.ships ?? {})) if (ship.port) usedPorts.add(ship.port);
  let nextPort = SHIP_DEFAULT_PORT;
  const freePort = () => {
    while (usedPorts.has(nextPort)) nextPort++;
    usedPorts.add(nextPort);
    return nextPort;
  };
  const pair = (ship: { shipToken?: string; bridgeToken?: string }) =>
    ship.shipToken && ship.bridgeToken ? { shipToken: ship.shipToken, bridgeToken: ship.bridgeToken } : null;
  const entries = Object.entries(config.ships ?? {});
  return {
    bridge: {
      dataDirectory: at(bridge.dataDirectory ?? '.svc/bridge'),
      port: bridge.port ?? BRIDGE_DEFAULT_PORT,
      name: bridge.name ?? 'bridge',
      publicUrl: bridge.publicUrl,
      databaseUrl: bridge.databaseUrl,
      insecureNoAuth: bridge.insecureNoAuth ?? false,
      sweepIntervalMs: bridge.sweepIntervalMs ?? DEFAULT_SWEEP_MS,
    },
    localShips: entries
      .filter(([, ship]) => ship.source === 'local')
      .map(([key, ship]) => ({
        key,
        name: ship.name ?? key,
        fleetDirectory: at(ship.fleetDirectory ?? `.svc/fleet-${key}`),
        port: ship.port ?? freePort(),
        tokens: pair(ship),
        sessionEnv: ship.sessionEnv ?? {},
      })),
    remoteShips: entries
      .filter(([, ship]) => ship.source === 'remote')
      .map(([key, ship]) => ({ key, url: ship.url!, tokens: pair(ship) })),
  };
}

/** No configuration file: one bridge and one ship named after this host, under ./.svc. */
export function defaultPlan(directory: string): LaunchPlan {
  return {
    bridge: {
      dataDirectory: resolve(directory, '.svc/bridge'),
      port: BRIDGE_DEFAULT_PORT,
      name: 'bridge',
      insecureNoAuth: false,
      sweepIntervalMs: DEFAULT_SWEEP_MS,
    },
    localShips: [
      {
        key: 'local',
        name: os.hostname(),
        fleetDirectory: resolve(directory, '.svc/fleet'),
        port: SHIP_DEFAULT_PORT,
        tokens: null,
        sessionEnv: {},
      },
    ],
    remoteShips: [],
  };
}
