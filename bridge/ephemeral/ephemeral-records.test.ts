// Intent rows (docs/security.md H23) against a real store: a pending row is decided by the ship's view: there
// → watching; absent → kept while the create could still be running on the ship (a running clone is in no
// sync), gone after PENDING_CREATE_MS; a `workspace.created` adopts it; a create running here is never decided.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/store.js';
import { EphemeralRecords, PENDING_CREATE_MS } from './ephemeral-records.js';

let dir: string;
let store: Store;
let records: EphemeralRecords;
const row = (name: string) => ({ repoName: 'app', name, ship: 'alpha', issueNumber: 7, branch: '7-fix' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-ephemeral-records-'));
  store = await openStore({ dataDirectory: dir });
  await store.ships.add({ name: 'alpha', url: 'http://127.0.0.1:1', shipTokenHash: null, bridgeToken: null });
  // Rows left by a bridge killed mid-create: pending, no create running in this process.
  for (const name of ['landed', 'cloning', 'event']) await store.ephemeral.insertPending(row(name));
  records = await EphemeralRecords.load(store.ephemeral);
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('pending rows after a restart', () => {
  it('a sync listing the workspace makes it watching; an absent one stays pending while its clone may run', async () => {
    const created = records.get('app', 'cloning')!.createdAt;
    expect(await records.reconcile('alpha', new Set(['app/landed']), created + 60_000)).toBe(true);
    expect(records.get('app', 'landed')!.cleanup).toBe('watching');
    expect(records.view('alpha', 'app', 'landed')).toMatchObject({ cleanup: 'watching', issueNumber: 7 });
    expect(records.get('app', 'cloning')!.cleanup).toBe('pending');
    expect(records.view('alpha', 'app', 'cloning')).toBeNull();
  });

  it("the ship's workspace.created adopts a pending row", async () => {
    expect(await records.adopt('alpha', 'app', 'event')).toBe(true);
    expect(records.get('app', 'event')!.cleanup).toBe('watching');
    expect(await records.adopt('alpha', 'app', 'event')).toBe(false);
  });

  it('an absent workspace is gone once the create can no longer be running', async () => {
    const created = records.get('app', 'cloning')!.createdAt;
    expect(await records.reconcile('alpha', new Set(), created + PENDING_CREATE_MS - 1)).toBe(false);
    expect(records.get('app', 'cloning')).not.toBeNull();
    expect(await records.reconcile('alpha', new Set(), created + PENDING_CREATE_MS)).toBe(true);
    expect(records.get('app', 'cloning')).toBeNull();
    expect((await store.ephemeral.list()).map((r) => `${r.name}:${r.cleanup}`)).toEqual([
      'event:watching',
      'landed:watching',
    ]);
  });

  it('a create running in this process is decided by its own answer, never by a sync', async () => {
    await records.begin(row('running'));
    expect(await records.reconcile('alpha', new Set(['app/running']), Date.now() + PENDING_CREATE_MS)).toBe(false);
    expect(await records.adopt('alpha', 'app', 'running')).toBe(false);
    expect(records.get('app', 'running')!.cleanup).toBe('pending');
    expect(await records.confirm('app', 'running')).toMatchObject({ cleanup: 'watching' });
  });
});
