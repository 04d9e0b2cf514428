// A bridge built without a socket (bridge/app.ts, fastify's testing guide): the real store (PGlite in a temp
// data directory), the bridge's real parts, and `inject` in place of HTTP. For suites about routes and guards;
// what needs the process or a socket (upgrades, timeouts, signals) stays with the listening bridge.
import { join } from 'node:path';
import { pino } from 'pino';
import { buildBridgeApp, type BridgeApp, type BridgeAppDeps } from '../../bridge/app.js';
import { openBridgeServices, type BridgeServiceOptions, type BridgeServices } from '../../bridge/services.js';
import { BridgeMetrics } from '../../bridge/metrics/bridge-metrics.js';
import { ensureFirstAdmin } from '../../bridge/auth/first-admin.js';
import { openStore } from '../../bridge/store/store.js';
import type { FirstAdminSource } from '../../protocol/first-admin.js';
import { type Inject, injector } from './inject.js';

export interface TestBridgeApp extends BridgeApp {
  services: BridgeServices;
  /** A request through `app.inject`; `body` is sent as JSON. */
  inject: Inject;
  close(): Promise<void>;
}

export interface TestBridgeOptions
  extends Partial<Omit<BridgeServiceOptions, 'store' | 'metrics'>>,
    Partial<Omit<BridgeAppDeps, 'services'>> {
  /** Created before the app is built when authentication is on (as the bridge's start does). */
  firstAdmin?: FirstAdminSource;
}

export async function buildTestBridge(root: string, options: TestBridgeOptions = {}): Promise<TestBridgeApp> {
  const dataDirectory = join(root, 'bridge');
  const metrics = new BridgeMetrics();
  const store = await openStore({ dataDirectory, onQuery: metrics.queried });
  const services = await openBridgeServices({
    logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
    dataDirectory,
    bridgeUrl: () => 'http://localhost:4800',
    sweepIntervalMs: 0,
    ...options,
    store,
    metrics,
  });
  if (!options.insecureNoAuth) await ensureFirstAdmin(store.users, services.accounts, options.firstAdmin);
  const built = await buildBridgeApp({ ...options, services });
  await services.registry.load();
  return {
    ...built,
    services,
    inject: injector(built.app),
    async close() {
      await services.close();
      await built.app.close();
      await store.close();
    },
  };
}
