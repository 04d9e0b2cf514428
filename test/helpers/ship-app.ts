// A ship built without a socket (ship/app.ts, fastify's testing guide): its real parts on a temp fleet
// directory (git through the spawn helper, a private tmux server, the workspace service), and `inject` in place
// of HTTP. For suites about routes and guards; upgrades, timeouts and signals stay with the listening ship.
import { join } from 'node:path';
import { pino } from 'pino';
import { buildShipApp, type ShipApp, type ShipAppDeps } from '../../ship/app.js';
import { openShipServices, type ShipServiceOptions, type ShipServices, type StartUndo } from '../../ship/services.js';
import { SpawnHelper } from '../../ship/processes/spawn-helper/spawn-helper.js';
import { type Inject, injector } from './inject.js';
import { TEST_SESSION_COMMAND } from './ship.js';

export interface TestShipApp extends ShipApp {
  services: ShipServices;
  /** A request through `app.inject`; `body` is sent as JSON. */
  inject: Inject;
  /** Closes the app and the ship's parts, and ends its tmux server. */
  close(): Promise<void>;
}

export type TestShipOptions = Partial<Omit<ShipServiceOptions, 'spawner' | 'undo'>> &
  Partial<Omit<ShipAppDeps, 'services'>>;

export async function buildTestShip(root: string, options: TestShipOptions = {}): Promise<TestShipApp> {
  const spawner = new SpawnHelper();
  spawner.start();
  const undo: StartUndo = [];
  let services: ShipServices;
  try {
    services = await openShipServices({
      name: 'test-ship',
      fleetDirectory: join(root, 'fleet'),
      logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
      shipUrl: () => 'http://localhost:4700',
      sessionCommand: TEST_SESSION_COMMAND,
      ...options,
      spawner,
      undo,
    });
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    spawner.close();
    throw error;
  }
  const built = await buildShipApp({ ...options, services });
  return {
    ...built,
    services,
    inject: injector(built.app),
    async close() {
      try {
        await built.app.close();
        await services.close();
        await services.tmux.killServer();
      } finally {
        spawner.close();
      }
    },
  };
}
