// Bridge options for suites that test routing, not authentication (the bridge runs as with
// --insecure-no-auth, and its banner is kept out of the test output), and a ship's status as a bridge sees it.
import type { BridgeOptions } from '../../bridge/server.js';
import { call } from './ship.js';

export const insecureBridge: Pick<BridgeOptions, 'insecureNoAuth' | 'banner'> = {
  insecureNoAuth: true,
  banner: { write: () => undefined },
};

/** What the bridge at `bridgeUrl` says of the ship `name`: `online`, `offline`, or undefined when unknown. */
export async function shipStatus(bridgeUrl: string, name: string): Promise<string | undefined> {
  const ships = (await call(bridgeUrl, 'GET', '/ships')).body as Array<{ name: string; status: string }>;
  return ships.find((ship) => ship.name === name)?.status;
}
