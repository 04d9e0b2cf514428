// GET /ships and GET /repos shared between reconciles, and kept up to date by the operator's own writes.
// Reads are single-flight (protocol/single-flight.ts: a read never answers from a fetch begun before it
// was asked for) and the answer is reused for `maxAgeMs` (default 1 s). A registration or removal the
// operator makes is applied to the kept answer from the bridge's reply (POST answers the ShipInfo or Repo,
// DELETE the name), so registering N Ships one after another costs one roster read, not N; a write whose
// outcome is unknown (the call failed in transit) drops the kept answer instead. 500 Ships refreshing every
// 30 s cost the bridge a few roster reads per 30 s. Age is measured on the monotonic clock, never the
// injected wall clock (a test's frozen clock must not freeze the cache).
import type { Repo, ShipInfo } from '../../protocol/index.js';
import { SingleFlight } from '../../protocol/single-flight.js';
import type { BridgeClient } from '../bridge-client.js';

/** One roster: GET's answer, kept and updated as described above. */
export class Roster<T extends { name: string }> {
  private readonly flight: SingleFlight<T[]>;
  private kept: { at: number; entries: T[] } | null = null;
  /** Counts the writes applied or forgotten: a read that overlapped one is returned, not kept. */
  private writes = 0;

  constructor(
    read: () => Promise<T[]>,
    private readonly maxAgeMs: number,
    private readonly monotonic: () => number,
  ) {
    this.flight = new SingleFlight(read);
  }

  /** The kept answer while it is younger than maxAgeMs (unless `fresh`), else a read of the bridge. */
  async get(options: { fresh?: boolean } = {}): Promise<T[]> {
    if (!options.fresh && this.kept && this.monotonic() - this.kept.at <= this.maxAgeMs) return this.kept.entries;
    const asked = this.monotonic();
    const writes = this.writes;
    const entries = await this.flight.get();
    if (writes === this.writes) this.kept = { at: asked, entries };
    return entries;
  }

  /** The bridge now holds `entry` (its answer to our POST). */
  put(entry: T): void {
    this.writes += 1;
    if (this.kept)
      this.kept = {
        at: this.kept.at,
        entries: [...this.kept.entries.filter((each) => each.name !== entry.name), entry],
      };
  }

  /** The bridge no longer holds `name` (DELETE answered 200 or 404). */
  remove(name: string): void {
    this.writes += 1;
    if (this.kept) this.kept = { at: this.kept.at, entries: this.kept.entries.filter((each) => each.name !== name) };
  }

  /** A write whose outcome is unknown (it failed in transit): the next read asks the bridge. */
  forget(): void {
    this.writes += 1;
    this.kept = null;
  }
}

/** The bridge's ship and repo rosters, shared by every reconciler of one operator. */
export class BridgeRosters {
  readonly ships: Roster<ShipInfo>;
  readonly repos: Roster<Repo>;

  constructor(bridge: BridgeClient, maxAgeMs: number, monotonic: () => number = () => performance.now()) {
    this.ships = new Roster(() => bridge.listShips(), maxAgeMs, monotonic);
    this.repos = new Roster(() => bridge.listRepos(), maxAgeMs, monotonic);
  }
}
