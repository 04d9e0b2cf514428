// A bridge killed with SIGKILL in the middle of a burst of writes leaves the previous state: after restart
// every committed pair of rows is there, no half of a pair is, and the data directory lock is taken over.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../bridge/store/store.js';
import { postgresSchema, storeEngines } from './helpers/databases.js';

const WRITER = resolve(import.meta.dirname, 'fixtures/store-writer.mjs');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-test-crash-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeUntilKilled(dataDirectory: string, databaseUrl: string): Promise<number> {
  const child = spawn(process.execPath, [WRITER, dataDirectory, databaseUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  // Kill once a good number of pairs is committed, in the middle of the next one.
  await new Promise<void>((resolveKill) => {
    const check = setInterval(() => {
      if ((out.match(/committed/g) ?? []).length >= 30) {
        clearInterval(check);
        child.kill('SIGKILL');
        resolveKill();
      }
    }, 5);
  });
  await new Promise((resolveExit) => child.on('exit', resolveExit));
  return (out.match(/committed/g) ?? []).length;
}

describe.each(storeEngines())('a bridge store killed mid-write on $name', (engine) => {
  it('keeps every committed transaction and no half of one', async () => {
    const dataDirectory = join(dir, engine.name);
    const schema = engine.name === 'postgres' ? await postgresSchema() : null;
    try {
      const committed = await writeUntilKilled(dataDirectory, schema?.url ?? '');
      const store = await openStore({ dataDirectory, databaseUrl: schema?.url });
      const ships = (await store.ships.list()).map((s) => s.name);
      const repos = (await store.repos.list()).map((r) => r.name);
      expect(ships.length).toBeGreaterThanOrEqual(committed);
      expect(ships.length).toBeLessThanOrEqual(committed + 1);
      expect(repos.sort()).toEqual(ships.sort());
      await store.close();
    } finally {
      await schema?.drop();
    }
  }, 60_000);
});
