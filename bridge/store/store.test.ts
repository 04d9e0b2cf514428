// The store against both engines: migrations, ship and repo records, the ship token pair constraint,
// transactions, result normalisation; then PGlite on disk: persistence, 0700, the data-directory lock.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeEngines, type TestDatabase } from '../../test/helpers/databases.js';
import { migrate, MIGRATIONS } from './migrations.js';
import { ReposStore } from './repos-store.js';
import { ShipsStore } from './ships-store.js';
import { openStore } from './store.js';
import { DataDirectoryLocked } from './lock.js';

describe.each(storeEngines())('store on $name', (engine) => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await engine.open();
    await migrate(test.db);
  }, 60_000);
  afterAll(async () => {
    await test?.dispose();
  });

  it('applies each migration once', async () => {
    expect(await migrate(test.db)).toEqual([]);
    const rows = (await test.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version'))
      .rows;
    expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('keeps ships: add, conflict, get, list, remove', async () => {
    const ships = new ShipsStore(test.db);
    expect(await ships.add({ name: 'b-ship', url: 'http://b:4700', shipTokenHash: 'h1', bridgeToken: 'bt' })).toBe(
      true,
    );
    expect(await ships.add({ name: 'a-ship', url: 'http://a:4700', shipTokenHash: null, bridgeToken: null })).toBe(
      true,
    );
    expect(await ships.add({ name: 'a-ship', url: 'http://other', shipTokenHash: null, bridgeToken: null })).toBe(
      false,
    );
    expect((await ships.list()).map((s) => s.name)).toEqual(['a-ship', 'b-ship']);
    expect(await ships.get('b-ship')).toEqual({
      name: 'b-ship',
      url: 'http://b:4700',
      shipTokenHash: 'h1',
      bridgeToken: 'bt',
    });
    expect(await ships.remove('b-ship')).toBe(true);
    expect(await ships.remove('b-ship')).toBe(false);
    expect(await ships.get('b-ship')).toBeNull();
  });

  it('refuses half a token pair', async () => {
    const ships = new ShipsStore(test.db);
    await expect(ships.add({ name: 'half', url: 'http://h', shipTokenHash: 'x', bridgeToken: null })).rejects.toThrow();
    expect(await ships.get('half')).toBeNull();
  });

  it('keeps repos with their provider', async () => {
    const repos = new ReposStore(test.db);
    expect(await repos.add({ name: 'app', url: 'https://example.com/app.git', provider: 'custom' })).toBe(true);
    expect(await repos.add({ name: 'app', url: 'x', provider: 'github' })).toBe(false);
    expect(await repos.list()).toEqual([{ name: 'app', url: 'https://example.com/app.git', provider: 'custom' }]);
    expect(await repos.remove('app')).toBe(true);
    expect(await repos.list()).toEqual([]);
  });

  it('rolls a failed transaction back whole', async () => {
    await expect(
      test.db.transaction(async (tx) => {
        await tx.query("INSERT INTO repos (name, url) VALUES ('tx-1', 'u')");
        await tx.query("INSERT INTO repos (name, url) VALUES ('tx-1', 'duplicate')");
      }),
    ).rejects.toThrow();
    expect(await new ReposStore(test.db).get('tx-1')).toBeNull();
    await test.db.transaction(async (tx) => {
      await tx.query("INSERT INTO repos (name, url) VALUES ('tx-2', 'u')");
    });
    expect((await new ReposStore(test.db).get('tx-2'))?.provider).toBe('custom');
  });

  it('returns int8 as a string and jsonb as an object on both engines', async () => {
    const count = await test.db.query<{ n: string }>('SELECT count(*) AS n FROM repos');
    expect(count.rows[0]!.n).toBe('1');
    const json = await test.db.query<{ j: unknown }>('SELECT $1::jsonb AS j', [JSON.stringify({ a: [1, 2] })]);
    expect(json.rows[0]!.j).toEqual({ a: [1, 2] });
  });
});

describe('store on a data directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-test-store-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('persists across reopen, keeps the directory 0700 and locks it against a second bridge', async () => {
    const data = join(dir, 'bridge-data');
    const first = await openStore({ dataDirectory: data });
    expect(first.db.engine).toBe('pglite');
    await first.ships.add({ name: 'kept', url: 'http://k', shipTokenHash: null, bridgeToken: null });
    expect((await stat(data)).mode & 0o777).toBe(0o700);
    await expect(openStore({ dataDirectory: data })).rejects.toBeInstanceOf(DataDirectoryLocked);
    await first.close();
    const second = await openStore({ dataDirectory: data });
    expect((await second.ships.list()).map((s) => s.name)).toEqual(['kept']);
    await second.close();
  }, 60_000);
});
