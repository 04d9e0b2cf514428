// Bridge options for suites that test routing, not authentication (the bridge runs as with
// --insecure-no-auth, and its banner is kept out of the test output), a ship's status as a bridge sees it, and
// such a bridge started with one ship and one repo registered.
import { join } from 'node:path';
import { pino } from 'pino';
import { startBridge, type Bridge, type BridgeOptions } from '../../bridge/server.js';
import type { ShipOptions } from '../../ship/server.js';
import { makeRemote, type RemoteFixture } from './git-fixtures.js';
import { call, startTestShip, type TestShip } from './ship.js';

export const insecureBridge: Pick<BridgeOptions, 'insecureNoAuth' | 'banner'> = {
  insecureNoAuth: true,
  banner: { write: () => undefined },
};

/** What the bridge at `bridgeUrl` says of the ship `name`: `online`, `offline`, or undefined when unknown. */
export async function shipStatus(bridgeUrl: string, name: string): Promise<string | undefined> {
  const ships = (await call(bridgeUrl, 'GET', '/ships')).body as Array<{ name: string; status: string }>;
  return ships.find((ship) => ship.name === name)?.status;
}

export interface RoutedFleet {
  remote: RemoteFixture;
  ship: TestShip;
  bridge: Bridge;
  /** Closes the bridge and the ship. */
  close(): Promise<void>;
}

/**
 * An in-process bridge (routing, no authentication) with one test ship registered and one repo (`repoName`,
 * a local bare remote under `root`) registered: the usual start of a routing suite.
 */
export async function startRoutedFleet(
  root: string,
  repoName: string,
  shipOptions: Partial<ShipOptions> = {},
): Promise<RoutedFleet> {
  const remote = makeRemote(root);
  const ship = await startTestShip(root, shipOptions);
  const bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
  });
  const registered = await call(bridge.url, 'POST', '/ships', { url: ship.url });
  const repo = await call(bridge.url, 'POST', '/repos', { name: repoName, url: remote.url });
  if (registered.status !== 201 || repo.status !== 201)
    throw new Error(`fleet set-up failed: POST /ships ${registered.status}, POST /repos ${repo.status}`);
  return {
    remote,
    ship,
    bridge,
    async close() {
      await bridge.close();
      await ship.stop();
    },
  };
}
