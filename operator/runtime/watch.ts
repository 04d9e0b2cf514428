// A list/watch loop of our own for one resource, with the local cache it keeps (a Map keyed
// 'namespace/name'). client-node 1.4's informer stops for good on any watch error other than 410, so:
// - list (paginated, a consistent read: no resourceVersion), replace the cache, report every listed object
//   (and a deletion for each cached one the list no longer has), then watch from the list's resourceVersion
//   with bookmarks on;
// - every event and bookmark advances the resourceVersion, so a stream that ends (the server's timeout) or
//   is cut (even in the middle of an event line: the half line is dropped) resumes where it was, losing nothing;
// - 410 Gone on resume, as an HTTP status or as an ERROR event in the stream, means the history no longer
//   reaches back: relist at once. Any other HTTP error opening the watch (e.g. 504 "too large resource
//   version" after the API server came back with a rewound history) relists after a backoff;
// - a watchdog aborts a stream that sent nothing (not even a bookmark) for `watchdogMs` and resumes: a
//   half-open TCP connection otherwise looks like a quiet cluster for ever;
// - every `resyncMs` a full resync: stop the watch, relist, report every object (the reconcilers see each key
//   again), watch on; and a failing list or watch restarts after a capped exponential backoff, for ever.
// Reporting is level-style: listeners get 'upsert' or 'delete' with the object; they re-read the cache.
import type { KubernetesObject, KubernetesListObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { collectionPath, KubeHttpError, type KubeHttp } from '../kube/http.js';
import { Backoff, type BackoffPolicy } from '../../protocol/backoff.js';
import { keyOf, keyString, type ResourceRef } from './controller.js';
import { sleep } from './sleep.js';

export type CacheEventType = 'upsert' | 'delete';
export type WatchRestartReason = 'closed' | 'expired' | 'silent' | 'error' | 'resync';

export interface ListWatchOptions {
  http: KubeHttp;
  resource: ResourceRef;
  /** One namespace, or undefined for all. */
  namespace: string | undefined;
  labelSelector?: string;
  fieldSelector?: string;
  log: Logger;
  onEvent(type: CacheEventType, object: KubernetesObject): void;
  /** A watch ended and is being started again (metrics). */
  onRestart?(reason: WatchRestartReason): void;
  /** Restart a stream silent for this long (default 150 s: an API server bookmarks about once a minute). */
  watchdogMs?: number;
  /** Full relist period (default 10 min). */
  resyncMs?: number;
  /** Server-side watch timeout, picked at random in this range per watch (default 300–600 s). */
  watchTimeoutSeconds?: [number, number];
  /** Delays between failed attempts (default 200 ms doubling to 30 s). */
  restart?: BackoffPolicy;
  /** List page size (default 500). */
  pageSize?: number;
}

type WatchEnd = 'closed' | 'expired' | 'silent' | 'resync' | 'stopped';

interface WatchLine {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubernetesObject & { code?: number; reason?: string; message?: string };
}

export class ListWatch {
  readonly cache = new Map<string, KubernetesObject>();
  private resourceVersion = '';
  private stopped = false;
  private readonly stopController = new AbortController();
  private current: AbortController | undefined;
  private resyncDue = false;
  private resyncTimer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | undefined;
  private hasSynced = false;
  private readonly syncWaiters: Array<() => void> = [];
  private readonly backoff: Backoff;
  private readonly apiVersion: string;
  private readonly path: string;

  constructor(private readonly options: ListWatchOptions) {
    this.backoff = new Backoff(options.restart ?? { baseMs: 200, maxMs: 30_000, jitter: 0.2 });
    const { resource } = options;
    this.apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
    this.path = collectionPath(resource, options.namespace);
  }

  /** True once the first list has been applied (stays true across relists, as client-go's HasSynced). */
  get synced(): boolean {
    return this.hasSynced;
  }

  /** The resourceVersion the next watch resumes from. */
  get lastResourceVersion(): string {
    return this.resourceVersion;
  }

  whenSynced(): Promise<void> {
    if (this.hasSynced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  start(): void {
    if (this.loop) return;
    this.scheduleResync();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.resyncTimer);
    this.stopController.abort();
    this.current?.abort();
    await this.loop;
    for (const resolve of this.syncWaiters.splice(0)) resolve();
  }

  /** Relist now (as the periodic resync does). */
  resync(): void {
    this.resyncDue = true;
    this.current?.abort();
  }

  private scheduleResync(): void {
    const every = this.options.resyncMs ?? 600_000;
    if (every <= 0) return;
    this.resyncTimer = setTimeout(() => {
      this.resync();
      this.scheduleResync();
    }, every);
    this.resyncTimer.unref?.();
  }

  private get label(): string {
    return `${this.options.resource.plural}${this.options.namespace ? ` in ${this.options.namespace}` : ''}`;
  }

  private async run(): Promise<void> {
    let needList = true;
    while (!this.stopped) {
      try {
        if (needList || this.resyncDue) {
          this.resyncDue = false;
          await this.list();
          needList = false;
        }
        const end = await this.watchOnce();
        if (end === 'stopped') break;
        this.options.onRestart?.(end);
        if (end === 'expired' || end === 'resync') needList = true;
        if (end === 'expired')
          this.options.log.info({ resource: this.label }, 'watch history expired (410): relisting');
        if (end === 'silent')
          this.options.log.warn(
            { resource: this.label, resourceVersion: this.resourceVersion },
            'watch stream silent: restarting it',
          );
      } catch (error) {
        if (this.stopped) break;
        if (this.resyncDue) {
          needList = true;
          continue;
        }
        if (error instanceof KubeHttpError) {
          // 410 on opening the watch: relist at once. Any other status: our resourceVersion may be one the
          // server cannot serve (504 after a rewound history), so relist too, after the backoff.
          needList = true;
          if (error.status === 410) {
            this.options.onRestart?.('expired');
            this.options.log.info({ resource: this.label }, 'watch history expired (HTTP 410): relisting');
            continue;
          }
        }
        this.options.onRestart?.('error');
        const delay = this.backoff.next();
        this.options.log.warn(
          { resource: this.label, err: errorText(error), retryInMs: delay, attempt: this.backoff.attempts },
          needList ? 'list/watch failed: relisting after a backoff' : 'watch failed: resuming after a backoff',
        );
        await sleep(delay, this.stopController.signal);
      }
    }
  }

  private async list(): Promise<void> {
    const controller = new AbortController();
    this.current = controller;
    const signal = AbortSignal.any([controller.signal, this.stopController.signal]);
    const items: KubernetesObject[] = [];
    let continueToken: string | undefined;
    let resourceVersion = '';
    try {
      do {
        const page = await this.options.http.getJson<KubernetesListObject<KubernetesObject>>(
          this.path,
          {
            limit: this.options.pageSize ?? 500,
            continue: continueToken,
            labelSelector: this.options.labelSelector,
            fieldSelector: this.options.fieldSelector,
          },
          signal,
        );
        items.push(...page.items);
        continueToken = page.metadata?._continue || undefined;
        resourceVersion = page.metadata?.resourceVersion ?? '';
      } while (continueToken);
    } catch (error) {
      if (this.stopped) throw error;
      if (error instanceof KubeHttpError && error.status === 410 && continueToken) {
        // The snapshot a continue token points at was compacted away mid-list: start the list again.
        throw new Error('list continuation expired (410)');
      }
      throw error;
    } finally {
      if (this.current === controller) this.current = undefined;
    }
    this.backoff.reset();
    const seen = new Set<string>();
    for (const item of items) {
      const object = { ...item, apiVersion: this.apiVersion, kind: this.options.resource.kind };
      const key = keyString(keyOf(object));
      seen.add(key);
      this.cache.set(key, object);
    }
    for (const [key, object] of [...this.cache]) {
      if (seen.has(key)) continue;
      this.cache.delete(key);
      this.options.onEvent('delete', object);
    }
    // Every listed object is reported, changed or not: a relist is when level-triggered reconcilers catch up.
    for (const key of seen) this.options.onEvent('upsert', this.cache.get(key)!);
    this.resourceVersion = resourceVersion;
    this.options.log.debug({ resource: this.label, objects: items.length, resourceVersion }, 'listed');
    if (!this.hasSynced) {
      this.hasSynced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
  }

  private watchOnce(): Promise<WatchEnd> {
    const controller = new AbortController();
    this.current = controller;
    const signal = AbortSignal.any([controller.signal, this.stopController.signal]);
    const watchdogMs = this.options.watchdogMs ?? 150_000;
    const [low, high] = this.options.watchTimeoutSeconds ?? [300, 600];
    let silent = false;
    let expired = false;
    let failedEvent: KubeHttpError | undefined;
    let delivered = false;
    let watchdog: NodeJS.Timeout | undefined;
    const feed = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        silent = true;
        controller.abort();
      }, watchdogMs);
      watchdog.unref?.();
    };
    return new Promise<WatchEnd>((resolve, reject) => {
      const settle = (error?: Error) => {
        clearTimeout(watchdog);
        if (this.current === controller) this.current = undefined;
        if (this.stopped) resolve('stopped');
        else if (expired) resolve('expired');
        else if (failedEvent) reject(failedEvent);
        else if (silent) resolve('silent');
        else if (this.resyncDue) resolve('resync');
        else if (error) reject(error);
        else if (!delivered) reject(new Error('watch ended without sending anything'));
        else resolve('closed');
      };
      feed();
      this.options.log.debug({ resource: this.label, resourceVersion: this.resourceVersion }, 'watching');
      this.options.http
        .watch(
          this.path,
          {
            resourceVersion: this.resourceVersion,
            allowWatchBookmarks: true,
            timeoutSeconds: Math.round(low + Math.random() * (high - low)),
            labelSelector: this.options.labelSelector,
            fieldSelector: this.options.fieldSelector,
          },
          signal,
          (line) => {
            if (expired || failedEvent) return;
            feed();
            let event: WatchLine;
            try {
              event = JSON.parse(line) as WatchLine;
            } catch {
              controller.abort();
              return;
            }
            delivered = true;
            this.backoff.reset();
            const applied = this.apply(event);
            if (applied === 'ok') return;
            if (applied === 'expired') expired = true;
            else failedEvent = applied;
            controller.abort();
          },
          settle,
        )
        .catch((error: unknown) => settle(error as Error));
    });
  }

  private apply(event: WatchLine): 'ok' | 'expired' | KubeHttpError {
    const object = event.object;
    if (event.type === 'ERROR') {
      // A Status in the stream ends it. 410 (Expired/Gone): relist at once. Anything else: relist after a
      // backoff (the stream is over, and a relist is the one recovery that cannot miss anything).
      if (object.code === 410) return 'expired';
      return new KubeHttpError(
        object.code ?? 500,
        object.reason,
        `watch ERROR event: ${object.message ?? object.reason ?? 'no message'}`,
      );
    }
    const resourceVersion = object.metadata?.resourceVersion;
    if (event.type !== 'BOOKMARK') {
      const full = {
        ...object,
        apiVersion: object.apiVersion ?? this.apiVersion,
        kind: object.kind ?? this.options.resource.kind,
      };
      const key = keyString(keyOf(full));
      if (event.type === 'DELETED') {
        this.cache.delete(key);
        this.options.onEvent('delete', full);
      } else {
        this.cache.set(key, full);
        this.options.onEvent('upsert', full);
      }
    }
    if (resourceVersion && !isBefore(resourceVersion, this.resourceVersion)) this.resourceVersion = resourceVersion;
    return 'ok';
  }
}

/**
 * Whether resourceVersion `a` is older than `b`. resourceVersions are opaque, but within one watch stream
 * they only grow, with one exception: a watch from "0" (or none) begins with synthetic ADDED events in key
 * order, each carrying its object's own (older) version. Following those would move the resume point
 * backwards and replay — or, after a rewound history, mis-resume. So the resume point never moves back when
 * both versions are integers (etcd revisions, as every API server has them).
 */
function isBefore(a: string, b: string): boolean {
  return /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) < BigInt(b);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
