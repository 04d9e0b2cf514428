// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it, so two operator
// replicas never reconcile at once:
// - acquire: create the Lease, or take it when it has no holder or its holder has not renewed it for a lease
//   duration. "Not renewed" is judged by when THIS replica last saw the record change (its own clock), never
//   by comparing the holder's renewTime with our clock, so clock skew between nodes cannot hand the lease to
//   two replicas;
// - renew every retry period; a leader that could not renew for the renew deadline (shorter than the lease
//   duration) stops leading on its own, before anyone else may take over;
// - every write is a replace with the resourceVersion read, so of two replicas racing only one wins (409);
// - release on shutdown: the holder is cleared so the other replica takes over at its next retry instead of
//   after a full lease duration. A replica that is killed releases nothing; the other takes over once the
//   lease duration has passed without a renewal.
// Time fields are V1MicroTime: the API server refuses a Lease time with three fractional digits.
import {
  ApiException,
  V1MicroTime,
  type CoordinationV1Api,
  type V1Lease,
  type V1LeaseSpec,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../../protocol/clock.js';
import { sleep } from './sleep.js';

export interface LeaderElectorOptions {
  leases: CoordinationV1Api;
  namespace: string;
  /** Lease name (default 'svc-operator'). */
  name?: string;
  /** This replica's identity (pod name + random suffix). */
  identity: string;
  clock?: Clock;
  /** How long a lease stays valid without renewal (default 15 s; written rounded up to whole seconds). */
  leaseDurationMs?: number;
  /** A leader that could not renew for this long steps down (default 10 s). */
  renewDeadlineMs?: number;
  /** Between attempts to acquire or renew (default 2 s). */
  retryPeriodMs?: number;
  log: Logger;
  onStartedLeading(): void;
  onStoppedLeading(): void;
}

const DEFAULT_LEASE_NAME = 'svc-operator';

export class LeaderElector {
  private leading = false;
  private stopped = false;
  private readonly stopController = new AbortController();
  private loop: Promise<void> | undefined;
  private observed: { record: string; at: number } | undefined;
  private lastRenew = 0;
  private readonly clock: Clock;
  private readonly name: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;

  constructor(private readonly options: LeaderElectorOptions) {
    this.clock = options.clock ?? systemClock;
    this.name = options.name ?? DEFAULT_LEASE_NAME;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (!(this.renewDeadlineMs < this.leaseDurationMs))
      throw new Error('leader election: the renew deadline must be shorter than the lease duration');
    if (!(this.retryPeriodMs < this.renewDeadlineMs))
      throw new Error('leader election: the retry period must be shorter than the renew deadline');
  }

  get isLeader(): boolean {
    return this.leading;
  }

  get identity(): string {
    return this.options.identity;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /**
   * Stops competing. With `release` (a clean shutdown) a held lease is handed back first; without it (as if
   * the process were killed) the lease is left to expire.
   */
  async stop(options: { release: boolean } = { release: true }): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.stopController.abort();
    await this.loop;
    if (this.leading) {
      this.setLeading(false);
      if (options.release) await this.release();
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let ok = false;
      try {
        ok = await this.withTimeout(
          this.tryAcquireOrRenew(),
          this.leading ? Math.max(1, this.renewDeadlineMs - (this.clock() - this.lastRenew)) : this.retryPeriodMs,
        );
      } catch (error) {
        this.options.log.warn(
          { lease: this.name, err: error instanceof Error ? error.message : String(error) },
          this.leading ? 'lease renewal failed' : 'lease acquisition failed',
        );
      }
      if (this.stopped) break;
      if (ok) {
        this.lastRenew = this.clock();
        if (!this.leading) {
          this.options.log.info(
            { lease: this.name, namespace: this.options.namespace, identity: this.options.identity },
            'acquired the leader lease',
          );
          this.setLeading(true);
        }
      } else if (this.leading && (this.clock() - this.lastRenew >= this.renewDeadlineMs || this.heldByOther())) {
        this.options.log.warn(
          { lease: this.name, identity: this.options.identity },
          'lost the leader lease: stopping reconcilers',
        );
        this.setLeading(false);
      }
      // client-go's jitter on acquisition: 1.0–1.2 retry periods, so candidates do not race in lockstep.
      const wait = this.leading ? this.retryPeriodMs : this.retryPeriodMs * (1 + Math.random() * 0.2);
      await sleep(wait, this.stopController.signal);
    }
  }

  private setLeading(leading: boolean): void {
    if (this.leading === leading) return;
    this.leading = leading;
    try {
      if (leading) this.options.onStartedLeading();
      else this.options.onStoppedLeading();
    } catch (error) {
      this.options.log.error(
        { err: error instanceof Error ? error.message : String(error) },
        'leader election callback failed',
      );
    }
  }

  private heldByOther(): boolean {
    if (!this.observed) return false;
    const holder = (JSON.parse(this.observed.record) as V1LeaseSpec).holderIdentity;
    return Boolean(holder) && holder !== this.options.identity;
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { leases, namespace, identity } = this.options;
    const now = this.clock();
    let lease: V1Lease;
    try {
      lease = await leases.readNamespacedLease({ namespace, name: this.name });
    } catch (error) {
      if (!(error instanceof ApiException) || error.code !== 404) throw error;
      try {
        await leases.createNamespacedLease({
          namespace,
          body: { metadata: { name: this.name, namespace }, spec: this.spec(undefined, now) },
        });
        this.observe(this.spec(undefined, now), now);
        return true;
      } catch (createError) {
        if (createError instanceof ApiException && createError.code === 409) return false;
        throw createError;
      }
    }
    const current = lease.spec ?? {};
    const record = recordOf(current);
    if (!this.observed || this.observed.record !== record) this.observed = { record, at: now };
    const holder = current.holderIdentity;
    if (holder && holder !== identity && this.observed.at + this.leaseDurationMs > now) return false;
    const next = this.spec(current, now);
    try {
      await leases.replaceNamespacedLease({ namespace, name: this.name, body: { ...lease, spec: next } });
    } catch (error) {
      if (error instanceof ApiException && error.code === 409) return false;
      throw error;
    }
    this.observe(next, now);
    if (holder !== identity)
      this.options.log.info(
        { lease: this.name, previousHolder: holder || undefined },
        holder ? 'took over an expired leader lease' : 'took over a released leader lease',
      );
    return true;
  }

  private spec(current: V1LeaseSpec | undefined, now: number): V1LeaseSpec {
    const mine = current?.holderIdentity === this.options.identity;
    return {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.leaseDurationMs / 1000)),
      acquireTime: new V1MicroTime(mine && current?.acquireTime ? new Date(current.acquireTime).getTime() : now),
      renewTime: new V1MicroTime(now),
      leaseTransitions: (current?.leaseTransitions ?? 0) + (current && !mine ? 1 : 0),
    };
  }

  private observe(spec: V1LeaseSpec, now: number): void {
    this.observed = { record: recordOf(spec), at: now };
  }

  /** Hands the lease back: no holder, so the next candidate's attempt succeeds at once. */
  private async release(): Promise<void> {
    const { leases, namespace, identity } = this.options;
    try {
      const lease = await this.withTimeout(
        leases.readNamespacedLease({ namespace, name: this.name }),
        this.retryPeriodMs,
      );
      if (lease.spec?.holderIdentity !== identity) return;
      const now = this.clock();
      await this.withTimeout(
        leases.replaceNamespacedLease({
          namespace,
          name: this.name,
          body: {
            ...lease,
            spec: {
              ...this.spec(lease.spec, now),
              holderIdentity: undefined,
              leaseDurationSeconds: 1,
            },
          },
        }),
        this.retryPeriodMs,
      );
      this.options.log.info({ lease: this.name }, 'released the leader lease');
    } catch (error) {
      this.options.log.warn(
        { lease: this.name, err: error instanceof Error ? error.message : String(error) },
        'could not release the leader lease: it expires by itself',
      );
    }
  }

  private withTimeout<T>(call: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`lease call timed out after ${ms} ms`)), ms);
    });
    return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
  }
}

/** What identifies one state of the lease: a change in any of these is a sign of life from its holder. */
function recordOf(spec: V1LeaseSpec): string {
  const time = (value: Date | string | undefined) => (value === undefined ? null : new Date(value).toISOString());
  return JSON.stringify({
    holderIdentity: spec.holderIdentity ?? null,
    leaseDurationSeconds: spec.leaseDurationSeconds ?? null,
    acquireTime: time(spec.acquireTime),
    renewTime: time(spec.renewTime),
    leaseTransitions: spec.leaseTransitions ?? null,
  });
}
