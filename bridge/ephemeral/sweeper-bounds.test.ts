// How much a pass asks for at once (DECISIONS "Sweep pass"): forge calls in flight are bounded over the
// whole pass, all repos together; a guarded delete holds no forge slot while the ship works on it; a ship
// gets a few guarded deletes at a time. A real store; the forge and the ships are small fakes that count
// what is in flight and answer when the test lets them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ForgeProvider } from '../providers/forge-provider.js';
import type { ShipReply } from '../ships/ship-client.js';
import type { ShipRegistry } from '../ships/registry.js';
import { openStore, type Store } from '../store/store.js';
import { EphemeralRecords } from './ephemeral-records.js';
import { Sweeper } from './sweeper.js';

let dir: string;
let store: Store;
let records: EphemeralRecords;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sweeper-bounds-'));
  store = await openStore({ dataDirectory: dir });
  await store.ships.add({ name: 'alpha', url: 'http://127.0.0.1:1', shipTokenHash: null, bridgeToken: null });
  records = await EphemeralRecords.load(store.ephemeral);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Records `<repo>/w<i>` on ship alpha, one issue and branch each; the repos registered. */
async function seed(repos: number, perRepo: number): Promise<void> {
  for (let r = 0; r < repos; r++) {
    await store.repos.add({ name: `r${r}`, url: `https://github.example/acme/r${r}.git`, provider: 'github' });
    for (let i = 0; i < perRepo; i++) {
      await records.begin({
        repoName: `r${r}`,
        name: `w${i}`,
        ship: 'alpha',
        issueNumber: i + 1,
        branch: `${i + 1}-b`,
      });
      await records.confirm(`r${r}`, `w${i}`);
    }
  }
}

/** A gate the test opens: everything waiting on it goes on. */
function gate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { wait: () => opened, open };
}

/** A forge with no pull requests, every issue in `closed` closed; counts the calls in flight. */
function fakeForge(
  closed: Set<string>,
  hold: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve)),
) {
  const forge = { inFlight: 0, most: 0, calls: 0 };
  const call = async <T>(answer: T): Promise<T> => {
    forge.calls++;
    forge.most = Math.max(forge.most, ++forge.inFlight);
    await hold();
    forge.inFlight--;
    return answer;
  };
  const provider = {
    pullsForBranch: () => call([]),
    readIssue: (repo: { name: string }, number: number) =>
      call({ number, title: 't', state: closed.has(`${repo.name}#${number}`) ? 'closed' : 'open' }),
  } as unknown as ForgeProvider;
  return { forge, provider };
}

/** Ship alpha hosting every record's workspace; its guarded deletes answer 200 once `deletes` lets them. */
function fakeShip(deletes: () => Promise<void> = async () => undefined) {
  const ship = { deleting: 0, most: 0, deleted: [] as string[] };
  const reply = (status: number, body: unknown): ShipReply => ({
    status,
    contentType: 'application/json',
    text: JSON.stringify(body),
  });
  const live = {
    name: 'alpha',
    connection: { isOnline: () => true },
    client: {
      call: async ({ method, path }: { method: string; path: string }) => {
        if (method === 'GET')
          return reply(
            200,
            records.settled().map((r) => ({ repoName: r.repoName, name: r.name })),
          );
        ship.most = Math.max(ship.most, ++ship.deleting);
        await deletes();
        ship.deleting--;
        ship.deleted.push(path);
        return reply(200, {});
      },
    },
  };
  const registry = {
    get: (name: string) => (name === 'alpha' ? live : undefined),
    unreachable: () => undefined,
    deleted: () => undefined,
    publishSync: () => undefined,
  } as unknown as ShipRegistry;
  return { ship, registry };
}

/** Event-loop iterations until `done` holds (at most `most` of them). */
async function turns(done: () => boolean, most = 10_000): Promise<void> {
  for (let i = 0; i < most && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
}

const sweeper = (registry: ShipRegistry, provider: ForgeProvider, forgeConcurrency?: number) =>
  new Sweeper({
    records,
    registry,
    repos: store.repos,
    providers: { github: provider },
    intervalMs: 0,
    clock: () => Date.now(),
    log: { info: () => undefined, warn: () => undefined },
    forgeConcurrency,
  });

describe('a pass asks for a bounded amount at once', () => {
  it('at most 8 forge calls in flight over all repos (not 8 per repo)', async () => {
    await seed(10, 4);
    // The forge holds its answers until the pass has started all it may.
    const answers = gate();
    let holding = true;
    const { forge, provider } = fakeForge(new Set(), () =>
      holding ? answers.wait() : new Promise((resolve) => setImmediate(resolve)),
    );
    const { registry } = fakeShip();
    const pass = sweeper(registry, provider).sweep();
    await turns(() => forge.inFlight === 8);
    await turns(() => false, 100);
    expect(forge.inFlight).toBe(8);
    holding = false;
    answers.open();
    expect(await pass).toEqual({ checked: 40, destroyed: 0, blocked: 0, skipped: 0, forgotten: 0 });
    expect(forge.calls).toBe(80);
    expect(forge.most).toBe(8);
  });

  it('a guarded delete holds no forge slot: the forge is done while the ship still works on every delete', async () => {
    await seed(1, 6);
    const ships = gate();
    const { forge, provider } = fakeForge(new Set(['r0#1', 'r0#2', 'r0#3']));
    const { ship, registry } = fakeShip(ships.wait);
    const pass = sweeper(registry, provider, 1).sweep();
    // One forge call at a time, and the three deletes wait for the ship: the other records are asked about all the same.
    await turns(() => forge.calls === 12 && forge.inFlight === 0);
    expect(ship.deleting).toBe(3);
    ships.open();
    expect(await pass).toEqual({ checked: 6, destroyed: 3, blocked: 0, skipped: 0, forgotten: 0 });
    expect(ship.deleted.sort()).toEqual([
      '/workspaces/r0/w0?force=false',
      '/workspaces/r0/w1?force=false',
      '/workspaces/r0/w2?force=false',
    ]);
  });

  it('a ship gets at most 4 guarded deletes at a time', async () => {
    await seed(1, 10);
    const { provider } = fakeForge(new Set(Array.from({ length: 10 }, (_, i) => `r0#${i + 1}`)));
    // A delete that takes a moment, so deletes overlap and the bound is reached.
    const { ship, registry } = fakeShip(() => new Promise((resolve) => setTimeout(resolve, 5)));
    expect(await sweeper(registry, provider).sweep()).toEqual({
      checked: 10,
      destroyed: 10,
      blocked: 0,
      skipped: 0,
      forgotten: 0,
    });
    expect(ship.most).toBe(4);
    expect(records.settled()).toEqual([]);
  });
});
