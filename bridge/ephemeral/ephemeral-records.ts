// The bridge's ephemeral-workspace records at run time: the store's rows (bridge/store/ephemeral-store.ts)
// mirrored in memory, written through (store first, then memory), so a workspace answer or event decorates
// itself without a query. This process is the only writer of the table (the data-directory lock), so the
// mirror is the store's content, not a cache that could say something else.
// It owns the intent-row life of a create (begin → confirm | abandon | settle) and the reconciliation of
// `pending` rows with a ship's sync (docs/security.md H23).
import { workspaceKey, type EphemeralWorkspace } from '../../protocol/index.js';
import type { EphemeralRecord, EphemeralStore } from '../store/ephemeral-store.js';

export type NewEphemeral = Pick<EphemeralRecord, 'repoName' | 'name' | 'ship' | 'issueNumber' | 'branch'>;

/**
 * How long after its intent row a create may still be running on the ship: the bridge's create timeout
 * (10 minutes) and a margin. A ship clones into a staging directory, so a running clone is in no sync; until
 * then an absent workspace is undecided, not gone.
 */
export const PENDING_CREATE_MS = 15 * 60_000;

/** The spec's EphemeralWorkspace of a record that is not pending. */
export function ephemeralView(record: EphemeralRecord): EphemeralWorkspace | null {
  if (record.cleanup === 'pending') return null;
  return {
    issueNumber: record.issueNumber,
    branch: record.branch,
    cleanup: record.cleanup,
    blockedReason: record.blockedReason,
    blockedAt: record.blockedAt,
    pullRequest: record.pullRequest,
  };
}

export class EphemeralRecords {
  private readonly records = new Map<string, EphemeralRecord>();
  /** Keys whose create runs in this process: their pending rows are not the syncs' to decide. */
  private readonly creating = new Set<string>();

  private constructor(private readonly store: EphemeralStore) {}

  static async load(store: EphemeralStore): Promise<EphemeralRecords> {
    const records = new EphemeralRecords(store);
    for (const record of await store.list()) records.records.set(workspaceKey(record.repoName, record.name), record);
    return records;
  }

  /** The record's view for a workspace answer or event, when `ship` hosts it. */
  view(ship: string, repoName: string, name: string): EphemeralWorkspace | null {
    const record = this.records.get(workspaceKey(repoName, name));
    return record && record.ship === ship ? ephemeralView(record) : null;
  }

  /** Every record a sweep looks at (pending ones are a create's, not the sweeper's). */
  settled(): EphemeralRecord[] {
    return [...this.records.values()].filter((record) => record.cleanup !== 'pending').map((record) => ({ ...record }));
  }

  get(repoName: string, name: string): EphemeralRecord | null {
    const record = this.records.get(workspaceKey(repoName, name));
    return record ? { ...record } : null;
  }

  get size(): number {
    return this.records.size;
  }

  /** Before the ship is asked to clone: the intent row. */
  async begin(fields: NewEphemeral): Promise<void> {
    const key = workspaceKey(fields.repoName, fields.name);
    this.creating.add(key);
    try {
      await this.store.insertPending(fields);
    } catch (error) {
      this.creating.delete(key);
      throw error;
    }
    this.records.set(key, {
      ...fields,
      cleanup: 'pending',
      blockedReason: null,
      blockedAt: null,
      pullRequest: null,
      createdAt: Date.now(),
    });
  }

  /** The ship confirmed the clone: the record starts watching. */
  async confirm(repoName: string, name: string): Promise<EphemeralWorkspace | null> {
    const key = workspaceKey(repoName, name);
    const record = this.records.get(key);
    this.creating.delete(key);
    if (!record) return null;
    const watching: EphemeralRecord = { ...record, cleanup: 'watching' };
    await this.store.update(watching);
    this.records.set(key, watching);
    return ephemeralView(watching);
  }

  /** The ship refused the create: no record. */
  async abandon(repoName: string, name: string): Promise<void> {
    const key = workspaceKey(repoName, name);
    this.creating.delete(key);
    if (this.records.get(key)?.cleanup !== 'pending') return;
    await this.store.remove(repoName, name);
    this.records.delete(key);
  }

  /** The create ended without an answer: the row stays pending, for the ship's next sync to decide. */
  settle(repoName: string, name: string): void {
    this.creating.delete(workspaceKey(repoName, name));
  }

  /**
   * A ship's own view (its sync, or a sweep's live listing): each of its pending rows whose create is not
   * running here is decided: there → watching; absent → gone, but only once the create can no longer be
   * running on the ship (PENDING_CREATE_MS after the row was written). Answers whether any record changed.
   */
  async reconcile(ship: string, present: ReadonlySet<string>, now = Date.now()): Promise<boolean> {
    let changed = false;
    for (const [key, record] of [...this.records]) {
      if (record.ship !== ship || record.cleanup !== 'pending' || this.creating.has(key)) continue;
      if (present.has(key)) changed = (await this.adopt(ship, record.repoName, record.name)) || changed;
      else if (now - record.createdAt >= PENDING_CREATE_MS) {
        await this.store.remove(record.repoName, record.name);
        if (this.records.get(key) === record) this.records.delete(key);
        changed = true;
      }
    }
    return changed;
  }

  /**
   * The ship reports `<repo>/<name>` exists (its `workspace.created`, or a sync): a pending row of that ship
   * whose create is not running here starts watching. Answers whether it did.
   */
  async adopt(ship: string, repoName: string, name: string): Promise<boolean> {
    const key = workspaceKey(repoName, name);
    const record = this.records.get(key);
    if (!record || record.ship !== ship || record.cleanup !== 'pending' || this.creating.has(key)) return false;
    const watching: EphemeralRecord = { ...record, cleanup: 'watching' };
    await this.store.update(watching);
    if (this.records.get(key) !== record) return false;
    this.records.set(key, watching);
    return true;
  }

  /** A sweep's new state for a record (cleanup, refusal, pull request). */
  async update(record: EphemeralRecord): Promise<void> {
    const key = workspaceKey(record.repoName, record.name);
    if (!this.records.has(key)) return;
    await this.store.update(record);
    if (this.records.has(key)) this.records.set(key, { ...record });
  }

  /** The workspace was deleted (by the bridge or a sweep), or is gone: the record goes. */
  async drop(repoName: string, name: string): Promise<void> {
    const key = workspaceKey(repoName, name);
    if (!this.records.has(key) || this.creating.has(key)) return;
    await this.store.remove(repoName, name);
    this.records.delete(key);
  }

  async dropRepo(repoName: string): Promise<void> {
    await this.store.removeRepo(repoName);
    for (const [key, record] of this.records) if (record.repoName === repoName) this.records.delete(key);
  }

  async dropShip(ship: string): Promise<void> {
    await this.store.removeShip(ship);
    for (const [key, record] of this.records) if (record.ship === ship) this.records.delete(key);
  }
}
