// The contract between the operator's runtime (watches, caches, work queue, leader election) and the
// reconcilers (operator/reconcile/). How a reconciler is called: LEVEL-TRIGGERED — the runtime hands it a key
// (namespace/name), never an event; it reads the latest object from the local cache (`context.cache`; absent
// = deleted, or not yet seen) and drives the world towards it, so a missed or coalesced event costs nothing.
// Keys are de-duplicated while queued and SERIALISED per key: one key is never reconciled twice at once (two
// keys may run concurrently, up to the runtime's worker count). A reconcile that throws (or rejects) is
// RETRIED with exponential backoff per key (200 ms doubling, capped at 60 s, with jitter; reset by the next
// success); one that returns `requeueAfterMs` is reconciled again after that delay (whichever of a requeue
// and a new event comes first wins). A PERIODIC RESYNC (a full relist, default every 10 min) re-enqueues
// every object, as does any relist after a watch failure, so a reconciler converges even if it dropped a
// state change it should have reacted to. Reconcilers run only while this replica holds the leader Lease;
// a new leader first enqueues every cached object and the reconcilers' `initialKeys()`. On losing the lease (or at shutdown) the runtime aborts
// `signal` and stops dequeuing; reconciles in flight should return promptly once it fires (the lease is
// released only after they have). Not here: what a reconciler decides (operator/reconcile/), how objects
// are watched (watch.ts), queued (queue.ts) or elected (leader.ts); runtime.ts assembles them.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Clock } from '../../protocol/clock.js';
import type { KubeClients } from '../kube/clients.js';

/** A namespaced (or cluster-scoped: namespace '') object's identity: the work queue's key. */
export interface ObjectKey {
  namespace: string;
  name: string;
}

/** Which resource a watch lists: group '' is the core API (secrets, pods, events). */
export interface ResourceRef {
  group: string;
  version: string;
  /** The lower-case plural in the API path: 'ships', 'secrets', 'daemonsets'. */
  plural: string;
  kind: string;
  /** Cluster-scoped resources (none yet) ignore the operator's namespace. */
  namespaced?: boolean;
}

/** A secondary resource whose changes enqueue keys of the primary one (as controller-runtime's Owns/Watches). */
export interface SecondaryWatch {
  resource: ResourceRef;
  /** Narrows the list/watch (e.g. 'svc.dev/managed-by=daemonset'); also narrows what the cache holds. */
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * The primary keys to reconcile when this object is added, changed or deleted (for a deletion, the last
   * state seen). `ownedBy(kind)` below covers the usual case of following ownerReferences.
   */
  map(object: KubernetesObject): ObjectKey[];
}

/** Read access to what the runtime watches: the latest state the watch has seen, never a stale event payload. */
export interface CacheReader {
  /** The object, or undefined when it does not exist (or has not been seen yet). Treat it as read-only. */
  get<T extends KubernetesObject = KubernetesObject>(resource: ResourceRef, key: ObjectKey): T | undefined;
  /** Every cached object of the resource, optionally in one namespace. */
  list<T extends KubernetesObject = KubernetesObject>(resource: ResourceRef, namespace?: string): T[];
}

export interface ReconcileResult {
  /** Reconcile this key again after this many milliseconds (e.g. the 30 s status refresh). */
  requeueAfterMs?: number;
}

export interface Reconciler {
  /** The primary kind, for logs and metrics labels ('Ship', 'Repo', 'DaemonSet'). */
  readonly kind: string;
  /** The primary resource: every object of it (in the watched namespaces) is a key. */
  readonly resource: ResourceRef;
  /** Label selector narrowing the primary resource's watch (optional). */
  readonly labelSelector?: string;
  readonly watches?: readonly SecondaryWatch[];
  /**
   * The keys an event of a primary object enqueues (default: the object's own key). A reconciler that
   * looks after a set of objects as one (the chart's Secrets) maps them all to one fixed key, or to none
   * for objects it does not care about.
   */
  keysOf?(object: KubernetesObject): ObjectKey[];
  /**
   * Keys enqueued whenever this replica starts leading, beside every cached primary object: for objects
   * that must exist but may not yet (an absent object produces no watch event).
   */
  initialKeys?(): ObjectKey[];
  /**
   * Drive the world towards the cached state of `key`. Idempotent. Throw to be retried with backoff.
   * `signal` aborts when this replica stops leading or the operator shuts down.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: void lets an implementation return nothing (no requeue)
  reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | void>;
}

/** What `svc operator` was told (docs/architecture.md §10), as the reconcilers need it. */
export interface OperatorOptions {
  bridgeUrl: string;
  /** The one namespace watched, or undefined with --all-namespaces. */
  namespace: string | undefined;
  /** The namespace the operator runs in (its Lease; the chart's Secrets with --all-namespaces). */
  ownNamespace?: string;
  /** How long a DaemonSet-managed Ship outlives the last ship pod on its node (--daemonset-grace). */
  daemonsetGraceMs: number;
}

/** Everything a reconciler factory gets from the runtime. */
export interface ReconcilerContext {
  cache: CacheReader;
  kube: KubeClients;
  log: Logger;
  /** The runtime's and reconcilers' wall clock (tests inject a fake). */
  clock: Clock;
  options: OperatorOptions;
  /** Record one bridge call's latency for /metrics (`svc_operator_bridge_request_duration_seconds`). */
  observeBridgeCall(method: string, route: string, status: number | 'error', seconds: number): void;
}

/** operator/reconcile/index.ts exports one of these as `createReconcilers`. */
export type ReconcilerFactory = (context: ReconcilerContext) => Reconciler[];

/** The key string the queue and cache use: 'namespace/name' (or 'name' when cluster-scoped). */
export function keyString(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

export function keyOf(object: KubernetesObject): ObjectKey {
  return { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
}

/** A SecondaryWatch map following controller ownerReferences to objects of `kind` (same namespace). */
export function ownedBy(kind: string): (object: KubernetesObject) => ObjectKey[] {
  return (object) =>
    (object.metadata?.ownerReferences ?? [])
      .filter((owner) => owner.kind === kind)
      .map((owner) => ({ namespace: object.metadata?.namespace ?? '', name: owner.name }));
}
