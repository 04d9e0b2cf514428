// What every reconciler here is built from: the runtime's cache and clock, the Cluster adapter, the bridge
// client and its shared rosters, and the reconcile options (the runtime's OperatorOptions plus the ones only
// the reconcilers read, each with the default recorded in docs/DECISIONS.md).
import type { Logger } from 'pino';
import type { BridgeClient } from '../bridge-client.js';
import { RequestFailed } from '../../server/request-failed.js';
import type { Clock } from '../../protocol/clock.js';
import type { CacheReader, OperatorOptions } from '../runtime/controller.js';
import type { Cluster } from './cluster.js';
import { RECONCILE_DEFAULTS } from './names.js';
import type { BridgeRosters } from './rosters.js';
import type { BridgeTrouble } from './outcomes.js';

export interface ReconcileOptions {
  /** The one namespace watched, or undefined for all. */
  namespace: string | undefined;
  daemonsetGraceMs: number;
  shipDaemonSetSelector: string;
  daemonsetShipPort: number;
  adminSecret: string;
  adminUsername: string;
  adminEmail: string;
  postgresSecret: string;
  refreshMs: number;
  bridgeRetryMs: number;
  shipRetryMs: number;
  rosterMaxAgeMs: number;
  /** How long a NameMismatch stands before the ship is probed (registered and deregistered) again. */
  nameMismatchRetryMs: number;
}

const DAEMONSET_GRACE_DEFAULT_MS = 10 * 60_000;

/** The runtime's options completed with the reconcilers' defaults (any field given wins). */
export function reconcileOptions(options: Partial<OperatorOptions> & Partial<ReconcileOptions> = {}): ReconcileOptions {
  return {
    ...RECONCILE_DEFAULTS,
    ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)),
    namespace: options.namespace,
    daemonsetGraceMs: options.daemonsetGraceMs ?? DAEMONSET_GRACE_DEFAULT_MS,
  } as ReconcileOptions;
}

export interface ReconcileDeps {
  cache: CacheReader;
  cluster: Cluster;
  bridge: BridgeClient;
  rosters: BridgeRosters;
  clock: Clock;
  log: Logger;
  options: ReconcileOptions;
}

/** A bridge failure that says nothing about the object being reconciled, or undefined for any other error. */
export function bridgeTroubleOf(error: unknown): BridgeTrouble | undefined {
  if (!(error instanceof RequestFailed)) return undefined;
  if (error.kind === 'unauthorized') return { kind: 'unauthorized', message: error.message };
  // A refusal of a roster read (GET /ships, GET /repos) is not the object's fault either.
  if (error.kind === 'refused')
    return { kind: 'unavailable', message: `the bridge answered ${error.status}: ${error.detail}` };
  return { kind: 'unavailable', message: error.message };
}
