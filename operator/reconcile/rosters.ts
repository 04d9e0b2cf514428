// GET /ships and GET /repos shared between reconciles: one call in flight at a time, its answer reused for
// `maxAgeMs` (default 1 s) and dropped as soon as the operator itself changes the roster. 500 Ships
// refreshing every 30 s then cost the bridge a few roster reads a second instead of one per Ship, and a
// read never predates a write this operator made. Age is measured on the monotonic clock, never the
// injected wall clock (a test's frozen clock must not freeze the cache).
import type { Repo, ShipInfo } from '../../protocol/index.js';
import type { BridgeClient } from '../bridge-client.js';

class SharedRead<T> {
  private value: { at: number; data: T } | null = null;
  private inFlight: { generation: number; promise: Promise<T> } | null = null;
  private generation = 0;

  constructor(private readonly read: () => Promise<T>, private readonly maxAgeMs: number, private readonly monotonic: () => number) {}

  async get(): Promise<T> {
    if (this.value && this.monotonic() - this.value.at <= this.maxAgeMs) return this.value.data;
    if (this.inFlight && this.inFlight.generation === this.generation) return this.inFlight.promise;
    const generation = this.generation;
    const started = this.monotonic();
    const promise = this.read().then((data) => {
      if (generation === this.generation) this.value = { at: started, data };
      return data;
    }).finally(() => {
      if (this.inFlight?.promise === promise) this.inFlight = null;
    });
    this.inFlight = { generation, promise };
    return promise;
  }

  /** Forget the cached answer and ignore one started before now. */
  invalidate(): void {
    this.generation += 1;
    this.value = null;
  }
}

export class BridgeRosters {
  private readonly shipRoster: SharedRead<ShipInfo[]>;
  private readonly repoRoster: SharedRead<Repo[]>;

  constructor(readonly bridge: BridgeClient, maxAgeMs: number, monotonic: () => number = () => performance.now()) {
    this.shipRoster = new SharedRead(() => bridge.listShips(), maxAgeMs, monotonic);
    this.repoRoster = new SharedRead(() => bridge.listRepos(), maxAgeMs, monotonic);
  }

  ships(options: { fresh?: boolean } = {}): Promise<ShipInfo[]> {
    if (options.fresh) this.shipRoster.invalidate();
    return this.shipRoster.get();
  }

  repos(options: { fresh?: boolean } = {}): Promise<Repo[]> {
    if (options.fresh) this.repoRoster.invalidate();
    return this.repoRoster.get();
  }

  shipsChanged(): void {
    this.shipRoster.invalidate();
  }

  reposChanged(): void {
    this.repoRoster.invalidate();
  }
}
