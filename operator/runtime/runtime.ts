// The operator runtime: assembles the reconcilers' watches (one ListWatch per distinct resource and selector,
// feeding a CacheSet), one WorkQueue per reconciler, and the leader-election gate, and reports into
// OperatorMetrics. Event flow: a watch reports an object → the reconciler whose primary resource it is gets
// its key (or the keys its keysOf names), and every reconciler with a secondary watch on it gets the keys
// its map returns → de-duplicated in that reconciler's queue → reconciled by a worker, but only while this
// replica leads.
// Leadership: on acquiring, every cached primary object is enqueued (a new leader trusts nothing it did not
// reconcile itself), with the keys each reconciler's initialKeys() names, and the queues start; on losing,
// the queues stop and abort their reconciles. Shutdown order matters: stop the queues and wait for
// reconciles in flight, then release the lease (so the next leader never overlaps a reconcile of ours),
// then stop the watches.
// Not here: kube config loading (operator/kube/), the HTTP probe server (operator/health/), flags (cli/).
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeClients } from '../kube/clients.js';
import { KubeHttp } from '../kube/http.js';
import type { OperatorMetrics } from '../health/metrics.js';
import type { BackoffPolicy } from '../../protocol/backoff.js';
import { CacheSet, resourceId, watchId, type WatchSpec } from './cache.js';
import { systemClock, type Clock } from '../../protocol/clock.js';
import {
  keyOf,
  keyString,
  type ObjectKey,
  type OperatorOptions,
  type Reconciler,
  type ReconcilerContext,
  type ReconcilerFactory,
} from './controller.js';
import { LeaderElector, type LeaderElectorOptions } from './leader.js';
import { WorkQueue } from './queue.js';
import { ListWatch, type CacheEventType, type ListWatchOptions } from './watch.js';

export interface OperatorRuntimeOptions {
  kube: KubeClients;
  reconcilers: ReconcilerFactory;
  options: OperatorOptions;
  log: Logger;
  metrics: OperatorMetrics;
  clock?: Clock;
  /** Leader election (namespace and identity at least); undefined = this replica always leads. */
  leaderElection?: Omit<LeaderElectorOptions, 'leases' | 'log' | 'clock' | 'onStartedLeading' | 'onStoppedLeading'>;
  /** Tuning of every watch (tests shorten these). */
  watch?: Pick<ListWatchOptions, 'watchdogMs' | 'resyncMs' | 'watchTimeoutSeconds' | 'restart' | 'pageSize'>;
  /** Tuning of every queue. */
  queue?: { concurrency?: number; retry?: BackoffPolicy };
}

type Listener = (type: CacheEventType, object: KubernetesObject) => void;

export class OperatorRuntime {
  readonly cache = new CacheSet();
  readonly reconcilers: Reconciler[];
  private readonly watches = new Map<string, { watch: ListWatch; listeners: Listener[] }>();
  private readonly queues = new Map<Reconciler, WorkQueue>();
  private readonly elector: LeaderElector | undefined;
  private readonly log: Logger;
  private started = false;
  private stopping: Promise<void> | undefined;
  private leading = false;
  private queueStops: Promise<void> = Promise.resolve();

  constructor(private readonly config: OperatorRuntimeOptions) {
    this.log = config.log;
    const clock = config.clock ?? systemClock;
    const context: ReconcilerContext = {
      cache: this.cache,
      kube: config.kube,
      log: config.log,
      clock,
      options: config.options,
      observeBridgeCall: (method, route, status, seconds) =>
        config.metrics.observeBridgeCall(method, route, status, seconds),
    };
    this.reconcilers = config.reconcilers(context);
    const http = new KubeHttp(config.kube.config, config.kube.agent);
    for (const reconciler of this.reconcilers) {
      const queue = new WorkQueue({
        concurrency: config.queue?.concurrency,
        retry: config.queue?.retry,
        handler: (key, signal) => reconciler.reconcile(parseKey(key), signal),
        onDone: (key, outcome, seconds, error) => {
          config.metrics.reconciled(reconciler.kind, outcome, seconds);
          if (outcome === 'error') {
            this.log.warn(
              {
                kind: reconciler.kind,
                key,
                retries: queue.retries(key),
                err: error instanceof Error ? error.message : String(error),
              },
              'reconcile failed: retrying with backoff',
            );
          } else {
            this.log.debug({ kind: reconciler.kind, key, outcome, seconds }, 'reconciled');
          }
        },
      });
      this.queues.set(reconciler, queue);
      config.metrics.trackQueue(reconciler.kind, () => queue.depth);
      this.listen(http, { resource: reconciler.resource, labelSelector: reconciler.labelSelector }, (_type, object) => {
        for (const key of primaryKeys(reconciler, object)) queue.add(keyString(key));
      });
      for (const secondary of reconciler.watches ?? []) {
        this.listen(http, secondary, (_type, object) => {
          let keys: ObjectKey[];
          try {
            keys = secondary.map(object);
          } catch (error) {
            this.log.error(
              {
                kind: reconciler.kind,
                watched: secondary.resource.plural,
                err: error instanceof Error ? error.message : String(error),
              },
              'a watch map function failed',
            );
            return;
          }
          for (const key of keys) queue.add(keyString(key));
        });
      }
    }
    if (config.leaderElection) {
      this.elector = new LeaderElector({
        ...config.leaderElection,
        leases: config.kube.coordination,
        log: config.log,
        clock,
        onStartedLeading: () => this.startLeading(),
        onStoppedLeading: () => this.stopLeading(),
      });
    }
  }

  private listen(http: KubeHttp, spec: WatchSpec, listener: Listener): void {
    const id = watchId(spec);
    let entry = this.watches.get(id);
    if (!entry) {
      const listeners: Listener[] = [];
      const watch = new ListWatch({
        ...this.config.watch,
        http,
        resource: spec.resource,
        namespace: spec.resource.namespaced === false ? undefined : this.config.options.namespace,
        labelSelector: spec.labelSelector,
        fieldSelector: spec.fieldSelector,
        log: this.log,
        onEvent: (type, object) => {
          for (const each of listeners) each(type, object);
        },
        onRestart: (reason) => this.config.metrics.watchRestarted(spec.resource.plural, reason),
      });
      entry = { watch, listeners };
      this.watches.set(id, entry);
      this.cache.add(spec.resource, watch);
    }
    entry.listeners.push(listener);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Every cache has completed its first list. */
  get synced(): boolean {
    return [...this.watches.values()].every(({ watch }) => watch.synced);
  }

  /** Why /readyz answers 503, or undefined when ready. */
  notReady(): string | undefined {
    if (this.stopping) return 'shutting down';
    const pending = [...this.watches.entries()]
      .filter(([, { watch }]) => !watch.synced)
      .map(([id]) => id.split('?')[0]);
    return pending.length ? `caches not synced: ${[...new Set(pending)].join(', ')}` : undefined;
  }

  async whenSynced(): Promise<void> {
    await Promise.all([...this.watches.values()].map(({ watch }) => watch.whenSynced()));
  }

  queueOf(kind: string): WorkQueue | undefined {
    for (const [reconciler, queue] of this.queues) if (reconciler.kind === kind) return queue;
    return undefined;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const { watch } of this.watches.values()) watch.start();
    this.log.info(
      {
        reconcilers: this.reconcilers.map((reconciler) => reconciler.kind),
        watches: [...new Set([...this.watches.keys()].map((id) => id.split('?')[0]))],
        namespace: this.config.options.namespace ?? '(all)',
        leaderElection: Boolean(this.elector),
      },
      'operator runtime started',
    );
    if (this.elector) this.elector.start();
    else this.startLeading();
  }

  private startLeading(): void {
    if (this.leading || this.stopping) return;
    this.leading = true;
    this.config.metrics.setLeader(true);
    // Caches fill in the background; keys they report are queued as they come. What is cached already is
    // queued now, since a new leader must look at everything once.
    void this.queueStops.then(() => {
      if (!this.leading) return;
      for (const [reconciler, queue] of this.queues) {
        for (const object of this.cache.list(reconciler.resource)) {
          for (const key of primaryKeys(reconciler, object)) queue.add(keyString(key));
        }
        for (const key of reconciler.initialKeys?.() ?? []) queue.add(keyString(key));
        queue.start();
      }
    });
  }

  private stopLeading(): void {
    if (!this.leading) return;
    this.leading = false;
    this.config.metrics.setLeader(false);
    this.queueStops = Promise.all([...this.queues.values()].map((queue) => queue.stop())).then(() => undefined);
  }

  /** Stops reconciling, then (with `release`, the default) hands back the lease, then stops watching. */
  stop(options: { release?: boolean } = {}): Promise<void> {
    this.stopping ??= (async () => {
      const release = options.release ?? true;
      this.stopLeading();
      await this.queueStops;
      await Promise.all([...this.queues.values()].map((queue) => queue.shutdown()));
      await this.elector?.stop({ release });
      await Promise.all([...this.watches.values()].map(({ watch }) => watch.stop()));
      this.log.info({ released: Boolean(this.elector) && release }, 'operator runtime stopped');
    })();
    return this.stopping;
  }
}

function primaryKeys(reconciler: Reconciler, object: KubernetesObject): ObjectKey[] {
  return reconciler.keysOf ? reconciler.keysOf(object) : [keyOf(object)];
}

function parseKey(key: string): ObjectKey {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export { resourceId };
