// The aggregate kept between builds says what a fresh build says: after every step of a random run of ship
// syncs, events, routed deletes, deregistrations, ships going on and offline and ephemeral records changing,
// the registry's JSON (whole, filtered, and as the compressed segments of a frame) equals JSON.stringify of
// a snapshot built from the index from scratch. Real index, registry and ephemeral records; the stores are
// small in-memory fakes (nothing here is about persistence).
import { constants, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { WorkspaceEvent, WorkspaceSummary } from '../../protocol/index.js';
import { EphemeralRecords } from '../ephemeral/ephemeral-records.js';
import type { EphemeralRecord, EphemeralStore } from '../store/ephemeral-store.js';
import type { ShipsStore } from '../store/ships-store.js';
import { ShipRegistry } from './registry.js';
import { seededRandom } from '../../test/helpers/seeded-random.js';

function memoryEphemeralStore(): EphemeralStore {
  const store = {
    list: async (): Promise<EphemeralRecord[]> => [],
    insertPending: async () => undefined,
    update: async () => undefined,
    remove: async () => undefined,
    removeRepo: async () => undefined,
    removeShip: async () => undefined,
  };
  return store as unknown as EphemeralStore;
}

const SHIPS = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
/** Keys shared between ships, so owners pass keys on; enough of them for runs to split and merge. */
const KEYS = Array.from({ length: 1200 }, (_, i) => ({ repoName: `repo-${i % 13}`, name: `w-${(i * 7919) % 1200}` }));

describe('aggregate JSON kept between builds', () => {
  it('equals a fresh build after every random sync, event, delete, deregistration and ephemeral change', async () => {
    const next = seededRandom(18);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const registry = new ShipRegistry({} as ShipsStore);
    const records = await EphemeralRecords.load(memoryEphemeralStore());
    registry.useEphemeral(records);
    const summary = (key: { repoName: string; name: string }): WorkspaceSummary => {
      const active = next() < 0.4;
      return {
        ...key,
        branch: `b-${Math.floor(next() * 3)}`,
        active,
        agent:
          active && next() < 0.5
            ? {
                state: 'building',
                description: `ünïcode task ${Math.floor(next() * 3)} ✓`,
                model: 'm',
                provider: 'p',
                harness: 'h',
              }
            : null,
      };
    };
    const event = (type: WorkspaceEvent['type'], ship: string, workspace: WorkspaceSummary): WorkspaceEvent => ({
      type,
      ship,
      at: '',
      workspace,
    });

    const check = () => {
      const fresh = registry.snapshot();
      const text = JSON.stringify(fresh);
      expect(registry.snapshotJson()).toBe(text);
      expect(registry.snapshotJson((w) => w.active)).toBe(JSON.stringify(fresh.filter((w) => w.active)));
      const segments = registry.aggregateSegments();
      expect(Buffer.concat(segments.map((s) => s.data)).toString()).toBe(text);
      const deflated = Buffer.concat([...segments.map((s) => s.deflated()), Buffer.from([0, 0, 0xff, 0xff])]);
      // As a permessage-deflate receiver reads it: no final block, the tail's empty stored block put back.
      expect(inflateRawSync(deflated, { finishFlush: constants.Z_SYNC_FLUSH }).toString()).toBe(text);
      ephemeralSeen += fresh.filter((w) => w.ephemeral).length;
      return fresh.length;
    };

    let sizes = 0;
    let ephemeralSeen = 0;
    const begun: Array<{ repoName: string; name: string }> = [];
    for (let step = 0; step < 600; step++) {
      const ship = pick(SHIPS);
      const roll = next();
      if (roll < 0.25) {
        // A sync: most workspaces reported again as they were, some changed, some gone, some new.
        const view = new Map<string, WorkspaceSummary>();
        const start = Math.floor(next() * KEYS.length);
        const count = Math.floor(next() * 400);
        for (let i = 0; i < count; i++) {
          const key = KEYS[(start + i) % KEYS.length]!;
          const known = registry.index.get(`${key.repoName}/${key.name}`);
          view.set(
            `${key.repoName}/${key.name}`,
            known && known.ship === ship && next() < 0.8 ? structuredClone(known.summary) : summary(key),
          );
        }
        registry.index.replaceView(ship, [...view.values()]);
      } else if (roll < 0.55) {
        const type = pick([
          'workspace.created',
          'workspace.branch_changed',
          'workspace.activated',
          'workspace.agent_status_changed',
          'workspace.removed',
        ] as const);
        registry.index.apply(ship, event(type, ship, summary(pick(KEYS))));
      } else if (roll < 0.62) {
        const key = pick(KEYS);
        registry.index.deleted(ship, `${key.repoName}/${key.name}`);
      } else if (roll < 0.66) {
        registry.index.removeShip(ship);
      } else if (roll < 0.72) {
        registry.index.setOnline(ship, next() < 0.5);
      } else {
        // Ephemeral records: begun (pending: no view), confirmed, blocked by a sweep, dropped.
        // Half of them on a record already begun; new ones mostly of a workspace in the aggregate, by its
        // owner, so the view shows.
        const owned = registry.snapshot();
        const key =
          begun.length && next() < 0.5 ? pick(begun) : owned.length && next() < 0.8 ? pick(owned) : pick(KEYS);
        begun.push(key);
        const record = records.get(key.repoName, key.name);
        if (!record)
          await records.begin({
            repoName: key.repoName,
            name: key.name,
            ship: next() < 0.8 ? (registry.index.owner(`${key.repoName}/${key.name}`) ?? ship) : ship,
            issueNumber: step,
            branch: 'issue',
          });
        else if (record.cleanup === 'pending') await records.confirm(key.repoName, key.name);
        else if (next() < 0.85)
          await records.update({
            ...record,
            cleanup: 'blocked',
            blockedReason: `unpushed ${step}`,
            blockedAt: new Date(step * 1000).toISOString(),
          });
        else await records.drop(key.repoName, key.name);
      }
      // Several steps between builds too, as when changes come faster than broadcasts.
      if (next() < 0.7) sizes += check();
    }
    sizes += check();
    // The run went through small and large aggregates (runs split and merged), with many ephemeral entries.
    expect(sizes).toBeGreaterThan(100_000);
    expect(ephemeralSeen).toBeGreaterThan(300);
  });
});
