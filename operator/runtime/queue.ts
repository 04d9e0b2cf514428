// The work queue of one reconciler, keyed by 'namespace/name' (the shape of client-go's workqueue):
// - de-duplicated: a key added while it waits is not added twice; a key added while it is being reconciled
//   is held back ("dirty") and queued again once that reconcile ends, so the change is never lost and one key
//   is never reconciled twice at once;
// - rate-limited retries: a failed reconcile is retried after a capped exponential backoff per key, reset by
//   the key's next success;
// - delayed adds (requeueAfter): one timer per key, the earliest wins; a reconcile starting cancels it (that
//   reconcile's own result decides the next requeue).
// Workers run only between start() and stop() (the leader-election gate); adds are accepted at any time,
// so a replica that becomes leader starts from a full, de-duplicated queue. Not here: what a key means.
import { Backoff, type BackoffPolicy } from '../../protocol/backoff.js';
import type { ReconcileResult } from './controller.js';

// biome-ignore lint/suspicious/noConfusingVoidType: void lets an implementation return nothing (no requeue)
export type QueueHandler = (key: string, signal: AbortSignal) => Promise<ReconcileResult | void>;

export type ReconcileOutcome = 'success' | 'error' | 'requeue';

export interface WorkQueueOptions {
  handler: QueueHandler;
  /** Keys reconciled at the same time (different keys only). Default 2. */
  concurrency?: number;
  /** Per-key retry delays. Default 200 ms doubling to 60 s. */
  retry?: BackoffPolicy;
  /** Called after every reconcile (metrics, logs). */
  onDone?: (key: string, outcome: ReconcileOutcome, seconds: number, error?: unknown) => void;
}

const DEFAULT_RETRY: BackoffPolicy = { baseMs: 200, maxMs: 60_000, jitter: 0.2 };

export class WorkQueue {
  private readonly ready: string[] = [];
  /** Keys waiting in `ready` or to be re-queued when their reconcile ends. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly backoffs = new Map<string, Backoff>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly concurrency: number;
  private readonly retry: BackoffPolicy;
  private running = false;
  private closed = false;
  private controller = new AbortController();
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: WorkQueueOptions) {
    this.concurrency = Math.max(1, options.concurrency ?? 2);
    this.retry = options.retry ?? DEFAULT_RETRY;
  }

  /** Keys ready to run (the queue depth metric). */
  get depth(): number {
    return this.ready.length;
  }

  /** Keys waiting for a requeue or retry timer. */
  get waiting(): number {
    return this.delayed.size;
  }

  get active(): number {
    return this.processing.size;
  }

  add(key: string): void {
    if (this.closed || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (!this.processing.has(key)) {
      this.ready.push(key);
      this.pump();
    }
  }

  /** Adds the key after `ms`, unless an earlier delayed add of it is already pending. */
  addAfter(key: string, ms: number): void {
    if (this.closed) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    timer.unref?.();
    this.delayed.set(key, { at, timer });
  }

  /** Retries the key after its next backoff delay. */
  addRateLimited(key: string): number {
    let backoff = this.backoffs.get(key);
    if (!backoff) {
      backoff = new Backoff(this.retry);
      this.backoffs.set(key, backoff);
    }
    const delay = backoff.next();
    this.addAfter(key, delay);
    return delay;
  }

  /** Failures of the key since its last success. */
  retries(key: string): number {
    return this.backoffs.get(key)?.attempts ?? 0;
  }

  /** Lets workers run. */
  start(): void {
    if (this.closed || this.running) return;
    this.running = true;
    this.controller = new AbortController();
    this.pump();
  }

  /**
   * Stops dequeuing and aborts the signal of reconciles in flight; resolves once they have returned. Keys stay
   * queued (and are added to meanwhile); backoff state is kept.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.controller.abort(new Error('work queue stopped'));
    await Promise.allSettled([...this.inFlight]);
  }

  /** stop(), then drops every key and timer; adds are ignored from now on. */
  async shutdown(): Promise<void> {
    this.closed = true;
    await this.stop();
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.ready.length = 0;
    this.dirty.clear();
    this.notifyIdle();
  }

  /** Resolves when nothing is ready or running (delayed keys do not count). For tests and shutdown. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.processing.size === 0 && (this.ready.length === 0 || !this.running);
  }

  private notifyIdle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private pump(): void {
    while (this.running && this.processing.size < this.concurrency && this.ready.length > 0) {
      const key = this.ready.shift()!;
      this.dirty.delete(key);
      this.processing.add(key);
      const pending = this.delayed.get(key);
      if (pending) {
        clearTimeout(pending.timer);
        this.delayed.delete(key);
      }
      const run = this.run(key, this.controller.signal);
      this.inFlight.add(run);
      void run.finally(() => this.inFlight.delete(run));
    }
    this.notifyIdle();
  }

  private async run(key: string, signal: AbortSignal): Promise<void> {
    const started = performance.now();
    let outcome: ReconcileOutcome;
    let failure: unknown;
    try {
      const result = await this.options.handler(key, signal);
      this.backoffs.delete(key);
      const after = result?.requeueAfterMs;
      if (after !== undefined && after >= 0) {
        outcome = 'requeue';
        this.addAfter(key, after);
      } else {
        outcome = 'success';
      }
    } catch (error) {
      outcome = 'error';
      failure = error;
      // A reconcile cut short because this replica stopped leading is not a failure of the key: it is
      // queued again so the next leader term (or this one, restarted) picks it up without delay.
      if (signal.aborted) this.add(key);
      else this.addRateLimited(key);
    }
    this.processing.delete(key);
    if (this.dirty.has(key)) this.ready.push(key);
    try {
      this.options.onDone?.(key, outcome, (performance.now() - started) / 1000, failure);
    } catch {
      // an observer's failure never stalls the queue
    }
    this.pump();
  }
}
