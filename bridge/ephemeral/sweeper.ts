// The ephemeral cleanup (spec "Ephemeral cleanup", docs/architecture.md §9): one pass at a time, on a timer and on
// POST /workspaces/sweep, a concurrent call getting the running pass's counters. A pass reads each
// involved ship's workspaces live (a record whose workspace is gone from an online ship is forgotten), then
// asks the forge about each record's branch: one pull-request list per (repo, branch), and the issue only
// when the branch has no pull request; a few records at a time over all repos, and at most one step of the
// pass per event-loop iteration, so a pass never holds the bridge's routed calls up for long. A watched or
// blocked workspace is destroyed when its branch has pull requests and none is open, or has none and the
// issue is closed, by the ship's guarded delete (`force=false`): deleted → destroyed, refused → blocked (the
// refusal kept, 200 characters). A PR open again, or an issue reopened, puts a blocked record back to
// watching. A forge failure skips the repo's remaining records for this pass (a 404/410/422 about one issue
// or branch skips only its record); an offline ship skips its records.
import {
  workspaceKey,
  workspacePath,
  type PullRequestRef,
  type Repo,
  type SweepCounters,
  type WorkspaceSummary,
  messageOf,
} from '../../protocol/index.js';
import type { Clock } from '../../protocol/clock.js';
import { ProviderError, providerFor, type ForgeProvider, type ForgeProviders } from '../providers/forge-provider.js';
import type { LiveShip, ShipRegistry } from '../ships/registry.js';
import { parseJson, type ShipReply, ShipUnreachable } from '../ships/ship-client.js';
import { shipErrorMessage } from '../ships/ship-replies.js';
import type { ReposStore } from '../store/repos-store.js';
import type { EphemeralRecord } from '../store/ephemeral-store.js';
import type { EphemeralRecords } from './ephemeral-records.js';

export const DEFAULT_SWEEP_INTERVAL_MS = 300_000;
const BLOCKED_REASON_MAX_CHARS = 200;
/**
 * Records asked about at once over the whole pass, all repos together, so at most this many forge calls are
 * in flight: GitHub's secondary limits dislike bursts, and each answer costs the bridge's one thread, which
 * must stay free for the routed calls while a pass runs.
 */
const FORGE_CONCURRENCY = 8;
/** Guarded deletes in flight on one ship: each runs several git processes there. */
const SHIP_DELETE_CONCURRENCY = 4;
const SHIP_LIST_TIMEOUT_MS = 30_000;
/**
 * The longest a step of a pass waits for the bridge's requests in flight to be answered (Foreground): under
 * a steady stream a pass still moves on, at most a step per worker every this long.
 */
const FOREGROUND_WAIT_MS = 20;
/**
 * While the bridge has answered a request within this window, a pass takes at most one step (a forge
 * call's answer, a delete) per PACED_STEP_MS over all its workers: a pass then takes longer in wall time and
 * leaves the CPU to the routed calls, which unpaced passes back to back shared it with (bench/RESULTS.md).
 */
const FOREGROUND_WINDOW_MS = 250;
const PACED_STEP_MS = 8;
const SHIP_DELETE_TIMEOUT_MS = 5 * 60_000;

export interface SweeperOptions {
  records: EphemeralRecords;
  registry: ShipRegistry;
  repos: ReposStore;
  providers: ForgeProviders;
  /** Milliseconds between the end of one timed pass and the start of the next; 0: no timer. */
  intervalMs: number;
  /** Wall time for `blockedAt`. */
  clock: Clock;
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
  /** Records asked about at once over all repos (default FORGE_CONCURRENCY). */
  forgeConcurrency?: number;
  /** The requests the bridge is answering: each step of a pass waits for them first (bridge/http/foreground.ts). */
  foreground?: { whenIdle(maxWaitMs: number): Promise<void>; activeWithin(windowMs: number): boolean };
}

/**
 * The refusal cut to 200 UTF-16 units, never through a surrogate pair: a lone half would be shown from memory
 * but stored as U+FFFD (branch names in a refusal may hold emoji).
 */
function truncate(text: string): string {
  if (text.length <= BLOCKED_REASON_MAX_CHARS) return text;
  const cut = text.slice(0, BLOCKED_REASON_MAX_CHARS);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
const samePull = (a: PullRequestRef | null, b: PullRequestRef | null) =>
  a?.number === b?.number && a?.state === b?.state && a?.url === b?.url;

/** The open pull request if any, else the highest-numbered (docs/architecture.md §9). */
function shownPull(pulls: readonly PullRequestRef[]): PullRequestRef | null {
  const newestFirst = [...pulls].sort((a, b) => b.number - a.number);
  return newestFirst.find((pull) => pull.state === 'open') ?? newestFirst[0] ?? null;
}

class ForgeFailed extends Error {}
/** Forge answers about one record's issue or branch, not about the forge: they skip that record only. */
const RECORD_LEVEL_STATUSES = new Set([404, 410, 422]);

/**
 * Turns for a pass's steps, one per event-loop iteration: `next()` resolves once the I/O that arrived
 * meanwhile (routed calls, their ships' answers) has had its turn, and never with another step in the same
 * iteration. So a burst of forge answers is taken one at a time, between everything else, instead of as one
 * long stretch that a routed call waits behind.
 */
class Turns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.scheduled) this.schedule();
    });
  }

  private schedule(): void {
    this.scheduled = true;
    // An immediate set from an immediate runs in the next iteration, after that iteration's I/O.
    setImmediate(() => {
      const step = this.waiting.shift();
      if (this.waiting.length > 0) this.schedule();
      else this.scheduled = false;
      step?.();
    });
  }
}

/** Runs tasks at most `limit` at a time, in the order they were given. */
class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot goes straight to the next waiting task, if any.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** One repo's share of a pass: its forge, the answers its records share, and whether the forge failed it. */
class RepoSweep {
  private readonly pulls = new Map<string, Promise<PullRequestRef[]>>();
  private readonly issues = new Map<number, Promise<string>>();
  failed = false;

  constructor(
    readonly repo: Repo,
    private readonly provider: ForgeProvider,
    private readonly log: SweeperOptions['log'],
  ) {}

  /** The branch's pull requests: one list per (repo, branch) in a pass. */
  pullsFor(branch: string): Promise<PullRequestRef[]> {
    return this.ask(this.pulls, branch, () => this.provider.pullsForBranch(this.repo, branch));
  }

  /** The issue's state: one read per (repo, issue) in a pass. */
  issueState(number: number): Promise<string> {
    return this.ask(this.issues, number, async () => (await this.provider.readIssue(this.repo, number)).state);
  }

  private async ask<K, T>(cache: Map<K, Promise<T>>, key: K, call: () => Promise<T>): Promise<T> {
    let answer = cache.get(key);
    if (!answer) {
      answer = call();
      cache.set(key, answer);
    }
    try {
      return await answer;
    } catch (error) {
      // The forge said this one thing is not there (an issue deleted or transferred): only this record
      // waits; anything else (5xx, rate limit, credentials) stops the repo for this pass.
      if (error instanceof ProviderError && RECORD_LEVEL_STATUSES.has(error.status)) {
        this.log.warn(
          { repo: this.repo.name, error: error.message },
          `sweep: skipped a record of repo ${this.repo.name}`,
        );
        throw new ForgeFailed();
      }
      if (!this.failed)
        this.log.warn(
          { repo: this.repo.name, error: messageOf(error) },
          `sweep: the forge failed for repo ${this.repo.name}; its remaining records wait for the next pass`,
        );
      this.failed = true;
      throw new ForgeFailed();
    }
  }
}

/** One pass's state: counters, the repos' shared forge answers, the guarded deletes under way. */
class Pass {
  readonly counters: SweepCounters = { checked: 0, destroyed: 0, blocked: 0, skipped: 0, forgotten: 0 };
  changed = false;
  private readonly turns = new Turns();
  private readonly deletes = new Map<string, Limiter>();
  /** Guarded deletes started by the forge workers, which go on to the next record meanwhile. */
  private readonly destroying: Array<Promise<void>> = [];

  constructor(private readonly options: SweeperOptions) {}

  /** The last paced step's turn: the next one starts PACED_STEP_MS after it. */
  private paced: Promise<void> = Promise.resolve();

  /**
   * Waits for the bridge's requests in flight to be answered (briefly), for a paced slot while requests
   * keep arriving, then for this pass's next turn.
   */
  private async step(): Promise<void> {
    const foreground = this.options.foreground;
    if (foreground) {
      await foreground.whenIdle(FOREGROUND_WAIT_MS);
      if (foreground.activeWithin(FOREGROUND_WINDOW_MS)) {
        const slot = this.paced.then(() => new Promise<void>((resolve) => setTimeout(resolve, PACED_STEP_MS)));
        this.paced = slot;
        await slot;
      }
    }
    await this.turns.next();
  }

  async run(): Promise<SweepCounters> {
    const records = this.options.records.settled();
    const present = await this.shipViews(records);
    const byRepo = new Map<string, EphemeralRecord[]>();
    for (const record of records) {
      const view = present.get(record.ship);
      if (!view) {
        this.counters.skipped++;
        continue;
      }
      if (!view.has(workspaceKey(record.repoName, record.name))) {
        await this.forget(record);
        continue;
      }
      let list = byRepo.get(record.repoName);
      if (!list) {
        list = [];
        byRepo.set(record.repoName, list);
      }
      list.push(record);
    }
    const queue = await this.forgeQueue(byRepo);
    const worker = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        await this.step();
        if (item.repo.failed) this.counters.skipped++;
        else await this.sweepRecord(item.record, item.repo);
      }
    };
    try {
      await Promise.all(
        Array.from({ length: Math.min(this.options.forgeConcurrency ?? FORGE_CONCURRENCY, queue.length) }, worker),
      );
    } finally {
      // Whatever happened to the forge workers, the deletes they started end before the pass does.
      await Promise.allSettled(this.destroying);
    }
    await Promise.all(this.destroying);
    if (this.changed) this.options.registry.publishSync();
    return this.counters;
  }

  /**
   * The records to ask the forge about, the repos taken in turn (one record of each, then the next of each),
   * so one repo's records do not all wait behind another's. A repo that is gone or has no provider is skipped.
   */
  private async forgeQueue(
    byRepo: Map<string, EphemeralRecord[]>,
  ): Promise<Array<{ record: EphemeralRecord; repo: RepoSweep }>> {
    const lists: Array<{ records: EphemeralRecord[]; repo: RepoSweep }> = [];
    for (const [repoName, records] of byRepo) {
      const repo = await this.options.repos.get(repoName);
      const provider = repo ? providerFor(this.options.providers, repo.provider) : undefined;
      if (!repo || !provider) this.counters.skipped += records.length;
      else lists.push({ records, repo: new RepoSweep(repo, provider, this.options.log) });
    }
    const queue: Array<{ record: EphemeralRecord; repo: RepoSweep }> = [];
    for (let i = 0; lists.some((list) => i < list.records.length); i++) {
      for (const list of lists) if (i < list.records.length) queue.push({ record: list.records[i]!, repo: list.repo });
    }
    return queue;
  }

  /** Each involved online ship's workspace keys, read now; a ship missing from the map is skipped. */
  private async shipViews(records: readonly EphemeralRecord[]): Promise<Map<string, Set<string>>> {
    const views = new Map<string, Set<string>>();
    await Promise.all(
      [...new Set(records.map((record) => record.ship))].map(async (name) => {
        const ship = this.options.registry.get(name);
        if (!ship?.connection.isOnline()) return;
        try {
          const reply = await ship.client.call({ method: 'GET', path: '/workspaces', timeoutMs: SHIP_LIST_TIMEOUT_MS });
          const body = parseJson(reply);
          if (reply.status !== 200 || !Array.isArray(body)) return;
          const keys = new Set((body as WorkspaceSummary[]).map((w) => workspaceKey(w.repoName, w.name)));
          views.set(name, keys);
          // The same live view decides intent rows left by creates that got no answer (H23).
          if (await this.options.records.reconcile(name, keys)) this.changed = true;
        } catch (error) {
          if (error instanceof ShipUnreachable) this.options.registry.unreachable(ship, error.message);
          else throw error;
        }
      }),
    );
    return views;
  }

  /** Asks the forge about one record and acts on the answer; a guarded delete goes on without this worker. */
  private async sweepRecord(record: EphemeralRecord, repo: RepoSweep): Promise<void> {
    let pulls: PullRequestRef[];
    let done: boolean;
    try {
      pulls = await repo.pullsFor(record.branch);
      await this.step();
      this.counters.checked++;
      if (pulls.length > 0) done = !pulls.some((pull) => pull.state === 'open');
      else {
        done = (await repo.issueState(record.issueNumber)) === 'closed';
        await this.step();
      }
    } catch (error) {
      if (!(error instanceof ForgeFailed)) throw error;
      this.counters.skipped++;
      return;
    }
    const pullRequest = shownPull(pulls);
    if (!done) {
      await this.save(record, { ...record, cleanup: 'watching', blockedReason: null, blockedAt: null, pullRequest });
      return;
    }
    const ship = this.options.registry.get(record.ship);
    if (!ship?.connection.isOnline()) {
      this.counters.skipped++;
      await this.save(record, { ...record, pullRequest });
      return;
    }
    let limiter = this.deletes.get(ship.name);
    if (!limiter) {
      limiter = new Limiter(SHIP_DELETE_CONCURRENCY);
      this.deletes.set(ship.name, limiter);
    }
    const destroy = limiter.run(async () => {
      await this.step();
      await this.destroy(ship, { ...record, pullRequest });
    });
    // Awaited when the forge workers are done (run), where a failure fails the pass; handled from now on.
    destroy.catch(() => undefined);
    this.destroying.push(destroy);
  }

  /** The guarded delete: deleted → destroyed, refused → blocked, already gone → forgotten. */
  private async destroy(ship: LiveShip, record: EphemeralRecord): Promise<void> {
    const { registry, records } = this.options;
    let reply: ShipReply;
    try {
      reply = await ship.client.call({
        method: 'DELETE',
        path: workspacePath(record.repoName, record.name, '?force=false'),
        timeoutMs: SHIP_DELETE_TIMEOUT_MS,
      });
      await this.step();
    } catch (error) {
      if (!(error instanceof ShipUnreachable)) throw error;
      registry.unreachable(ship, error.message);
      this.counters.skipped++;
      return;
    }
    if (reply.status === 200) {
      registry.deleted(ship.name, workspaceKey(record.repoName, record.name));
      await records.drop(record.repoName, record.name);
      this.counters.destroyed++;
      this.options.log.info(
        { audit: 'sweep.destroyed', ship: ship.name, key: workspaceKey(record.repoName, record.name) },
        `sweep destroyed ${workspaceKey(record.repoName, record.name)}`,
      );
      return;
    }
    if (reply.status === 404) {
      await this.forget(record);
      return;
    }
    const refusal = shipErrorMessage(reply);
    if (reply.status !== 409) {
      this.counters.skipped++;
      this.options.log.warn(
        { ship: ship.name, key: workspaceKey(record.repoName, record.name), status: reply.status },
        `sweep: ship refused to delete: ${refusal}`,
      );
      return;
    }
    this.counters.blocked++;
    const blockedAt =
      record.cleanup === 'blocked' && record.blockedAt
        ? record.blockedAt
        : new Date(this.options.clock()).toISOString();
    await this.save(record, { ...record, cleanup: 'blocked', blockedReason: truncate(refusal), blockedAt });
  }

  private async forget(record: EphemeralRecord): Promise<void> {
    await this.options.records.drop(record.repoName, record.name);
    this.counters.forgotten++;
    this.changed = true;
  }

  /** Writes a record only when a field its view shows changed (so the view changed: subscribers get a sync). */
  private async save(before: EphemeralRecord, after: EphemeralRecord): Promise<void> {
    const same =
      before.cleanup === after.cleanup &&
      before.blockedReason === after.blockedReason &&
      before.blockedAt === after.blockedAt &&
      samePull(before.pullRequest, after.pullRequest);
    if (same) return;
    await this.options.records.update(after);
    this.changed = true;
  }
}

export class Sweeper {
  private running: Promise<SweepCounters> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: SweeperOptions) {}

  /** No pass running, and the next timed one scheduled (or no timer): what a pass leaves once it has ended. */
  get idle(): boolean {
    return this.running === null && (this.timer !== null || this.stopped || this.options.intervalMs <= 0);
  }

  /** Runs a pass now, or answers the running pass's counters. */
  sweep(): Promise<SweepCounters> {
    if (this.running) return this.running;
    const pass = new Pass(this.options).run().finally(() => {
      this.running = null;
    });
    this.running = pass;
    return pass;
  }

  /** Starts the timer (no-op when the interval is 0): each pass starts an interval after the last ended. */
  start(): void {
    if (this.options.intervalMs <= 0 || this.stopped) return;
    this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.sweep()
        .catch((error: unknown) => this.options.log.warn({ error: messageOf(error) }, 'sweep pass failed'))
        .finally(() => {
          if (!this.stopped) this.schedule();
        });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits (at most `graceMs`) for a running pass. */
  async stop(graceMs = 2_000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const running = this.running;
    if (!running) return;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      running.catch(() => undefined),
      new Promise<void>((resolve) => (timeout = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timeout);
  }
}
