// Which ship owns which workspace, built from the ships' event streams (spec "Ship connection" and
// "Events"). Each ship's reported view is kept; a key is owned by exactly one ship. A key a ship stops
// reporting (removed, or gone from its sync, or the ship deregistered) passes to another ship that reports
// it, online ships first, then by name; otherwise it leaves the index. Pure: no sockets, no clocks.
// At fleet scale (100 ships × 100 workspaces, bench/fleet.ts) every listing re-reads every ship and every
// ship sync republishes the whole index, so two things are kept between calls: the owned keys in order
// (re-sorted only when a key joins or leaves), and a ship's summary object when it reports it again
// unchanged, so what is built from a summary (the registry's JSON of it) can be reused; and whoever keeps
// something built from the listing is told which keys' entries may have changed (onEntryChange), so a ship's
// sync costs the work of its own workspaces, not the fleet's.
import { workspaceKey, type WorkspaceEvent, type WorkspaceSummary } from '../../protocol/index.js';

export interface OwnedWorkspace {
  ship: string;
  summary: WorkspaceSummary;
}

/** Told of every change of a key's owner (null: none), for the audit log (docs/security.md H9). */
export type OwnerChange = (key: string, from: string | null, to: string | null) => void;

export class OwnershipIndex {
  constructor(private readonly onOwnerChange: OwnerChange = () => undefined) {}

  /** What each ship last reported, by key. */
  private readonly views = new Map<string, Map<string, WorkspaceSummary>>();
  private readonly owners = new Map<string, string>();
  private readonly online = new Set<string>();
  /** The owned keys sorted, until a key joins or leaves the index. */
  private sorted: string[] | null = null;
  /** Counts every change to each ship's view (see viewVersion). */
  private readonly versions = new Map<string, number>();
  private changes = 0;
  private readonly entryListeners: Array<(key: string) => void> = [];

  /**
   * Calls `listener` with every key whose entry in `list()` may have changed: its owner, or the summary its
   * owner reports (a summary reported again unchanged keeps its object and is not told).
   */
  onEntryChange(listener: (key: string) => void): void {
    this.entryListeners.push(listener);
  }

  private entryChanged(key: string): void {
    for (const listener of this.entryListeners) listener(key);
  }

  /**
   * A number that changes whenever `ship`'s view may have changed (sync, event, delete): a listing of the
   * ship that reads the same as the one applied at this version changes nothing when applied again.
   */
  viewVersion(ship: string): number {
    return this.versions.get(ship) ?? 0;
  }

  private touched(ship: string): void {
    this.versions.set(ship, ++this.changes);
  }

  setOnline(ship: string, online: boolean): void {
    if (online) this.online.add(ship);
    else this.online.delete(ship);
  }

  isOnline(ship: string): boolean {
    return this.online.has(ship);
  }

  owner(key: string): string | null {
    return this.owners.get(key) ?? null;
  }

  get(key: string): OwnedWorkspace | null {
    const ship = this.owners.get(key);
    const summary = ship ? this.views.get(ship)?.get(key) : undefined;
    return ship && summary ? { ship, summary } : null;
  }

  /** Every owned workspace, sorted by key. */
  list(): OwnedWorkspace[] {
    this.sorted ??= [...this.owners.keys()].sort();
    const entries: OwnedWorkspace[] = [];
    for (const key of this.sorted) {
      const entry = this.get(key);
      if (entry) entries.push(entry);
    }
    return entries;
  }

  /** Keys of `summaries` owned by a ship other than `ship` (a registration must not take them). */
  conflicts(ship: string, summaries: WorkspaceSummary[]): string[] {
    return summaries
      .map((summary) => workspaceKey(summary.repoName, summary.name))
      .filter((key) => {
        const owner = this.owners.get(key);
        return owner !== undefined && owner !== ship;
      })
      .sort();
  }

  /** A ship's full view (its `sync`): replaces what it reported before and claims what nobody owns. */
  replaceView(ship: string, summaries: WorkspaceSummary[]): void {
    const before = this.views.get(ship) ?? new Map<string, WorkspaceSummary>();
    const view = new Map<string, WorkspaceSummary>();
    for (const summary of summaries) {
      const key = workspaceKey(summary.repoName, summary.name);
      const previous = before.get(key);
      view.set(key, previous !== undefined && sameJson(previous, summary) ? previous : summary);
    }
    this.views.set(ship, view);
    this.touched(ship);
    for (const key of view.keys()) if (!this.owners.has(key)) this.assign(key, ship);
    for (const key of before.keys()) if (!view.has(key) && this.owners.get(key) === ship) this.release(key);
    for (const [key, summary] of view)
      if (before.get(key) !== summary && this.owners.get(key) === ship) this.entryChanged(key);
  }

  /**
   * Applies one event of `ship`; returns the summary to republish, or null when the event is dropped (a
   * key the ship does not own).
   */
  apply(ship: string, event: WorkspaceEvent): WorkspaceSummary | null {
    const key = workspaceKey(event.workspace.repoName, event.workspace.name);
    const view = this.views.get(ship) ?? new Map<string, WorkspaceSummary>();
    this.views.set(ship, view);
    this.touched(ship);
    if (event.type === 'workspace.removed') return this.deleted(ship, key) ? event.workspace : null;
    view.set(key, event.workspace);
    const owner = this.owners.get(key);
    if (owner === undefined) this.assign(key, ship);
    else if (owner !== ship) return null;
    else this.entryChanged(key);
    return event.workspace;
  }

  /**
   * `ship` no longer has the key (its `workspace.removed`, or a routed delete it answered): the key leaves
   * its view, and passes on or leaves the index. False when the ship did not own it (dropped, or already
   * applied the other way).
   */
  deleted(ship: string, key: string): boolean {
    this.views.get(ship)?.delete(key);
    this.touched(ship);
    if (this.owners.get(key) !== ship) return false;
    this.release(key);
    return true;
  }

  /** Forgets a ship: its view goes, its keys pass to others or leave the index. */
  removeShip(ship: string): void {
    const view = this.views.get(ship);
    this.views.delete(ship);
    this.touched(ship);
    this.online.delete(ship);
    for (const key of view?.keys() ?? []) if (this.owners.get(key) === ship) this.release(key);
  }

  private release(key: string): void {
    const from = this.owners.get(key) ?? null;
    this.owners.delete(key);
    const candidates = [...this.views.entries()]
      .filter(([, view]) => view.has(key))
      .map(([ship]) => ship)
      .sort((a, b) => Number(this.online.has(b)) - Number(this.online.has(a)) || (a < b ? -1 : a > b ? 1 : 0));
    if (candidates[0]) this.owners.set(key, candidates[0]);
    else this.sorted = null;
    this.entryChanged(key);
    this.onOwnerChange(key, from, candidates[0] ?? null);
  }

  private assign(key: string, ship: string): void {
    this.owners.set(key, ship);
    this.sorted = null;
    this.entryChanged(key);
    this.onOwnerChange(key, null, ship);
  }
}

/**
 * Whether two values parsed from JSON serialize to the same text: same types, same keys in the same order,
 * same values (what lets an unchanged summary keep its object, and anything cached from it).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i]!;
    if (key !== keysB[i] || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
      return false;
  }
  return true;
}
