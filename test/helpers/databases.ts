// The two store engines for tests. PGlite always runs (in memory or on a temp directory). PostgreSQL comes
// from TEST_DATABASE_URL (`.ci/run` starts the machine's server and exports it); each test gets its own
// schema, dropped afterwards. Without it, PostgreSQL tests are skipped with a loud notice outside CI and
// fail under CI=true, so CI never passes without them.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pgliteDatabase, postgresDatabase, type Database } from '../../bridge/store/database.js';

export interface TestDatabase {
  db: Database;
  /** For engines reached by URL: the URL of this test's schema (to open more connections to it). */
  url?: string;
  dispose(): Promise<void>;
}

export interface Engine {
  name: 'pglite' | 'postgres';
  open(): Promise<TestDatabase>;
}

const postgresUrl = process.env.TEST_DATABASE_URL;

/** A connection string whose sessions use `schema` first. */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

/** A fresh schema on the test server, and its URL; `drop()` removes it and everything in it. */
export async function postgresSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!postgresUrl) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return {
    url: withSearchPath(postgresUrl, schema),
    async drop() {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

const pglite: Engine = {
  name: 'pglite',
  async open() {
    const db = await pgliteDatabase();
    return { db, dispose: () => db.close() };
  },
};

const postgres: Engine = {
  name: 'postgres',
  async open() {
    const schema = await postgresSchema();
    const db = postgresDatabase(schema.url, { max: 4 });
    return {
      db,
      url: schema.url,
      async dispose() {
        await db.close();
        await schema.drop();
      },
    };
  },
};

let warned = false;

/** The engines to run store tests against. Under CI without PostgreSQL this throws: CI must test both. */
export function storeEngines(): Engine[] {
  if (postgresUrl) return [pglite, postgres];
  if (process.env.CI === 'true') {
    throw new Error('CI=true but TEST_DATABASE_URL is not set: the PostgreSQL store tests cannot be skipped in CI');
  }
  if (!warned) {
    warned = true;
    process.stderr.write(
      '\n*** PostgreSQL store tests SKIPPED: set TEST_DATABASE_URL=postgres://user:pass@127.0.0.1:5432/db ' +
        '(`.ci/run` shows how to start the local server) to run them. ***\n\n',
    );
  }
  return [pglite];
}
