// The bridge's SQL store behind one small interface, with two engines that speak the same SQL: PGlite
// (embedded Postgres in the data directory; the default, no server needed) and PostgreSQL through a pg Pool.
// Results are normalised to pg's conventions (int8 as string, bytea as Buffer) so callers never branch on
// the engine, and so are failures (store-errors.ts: unavailable, or input the store refuses). Parameters
// that go into json/jsonb columns must be passed JSON.stringify'd.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import pg from 'pg';
import { PGlite, types } from '@electric-sql/pglite';
import { classified } from './store-errors.js';

export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

export interface Queryable {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<Row>>;
}

export interface Database extends Queryable {
  readonly engine: 'pglite' | 'postgres';
  /** Runs multi-statement SQL without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Client-side deadlines, so a stalled server (a frozen postmaster, a blackholed link) turns into errors the
 * routes answer with 503 instead of requests that hang forever: connecting, and every query.
 */
export const POSTGRES_CONNECT_TIMEOUT_MS = 5_000;
export const POSTGRES_QUERY_TIMEOUT_MS = 10_000;

export function postgresDatabase(connectionString: string, options: { max?: number } = {}): Database {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
    query_timeout: POSTGRES_QUERY_TIMEOUT_MS,
  });
  // An idle client's error (server restart) must not crash the process; the pool replaces the client.
  pool.on('error', () => undefined);
  const on = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<Row>(text: string, params?: unknown[]) {
      const result = await classified(() => client.query(text, params as unknown[]));
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
  });
  return {
    engine: 'postgres',
    ...on(pool),
    async exec(sql) {
      await classified(() => pool.query(sql));
    },
    async transaction(fn) {
      const client = await classified(() => pool.connect());
      // A client whose ROLLBACK failed (timed out, connection lost) is in an unknown state: destroy it.
      let broken: Error | undefined;
      try {
        await classified(() => client.query('BEGIN'));
        const result = await fn(on(client));
        await classified(() => client.query('COMMIT'));
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

/**
 * The embedded engine's memory (the idle bridge's RSS bar; figures in bench/RESULTS.md, choice in
 * docs/DECISIONS.md). All of PostgreSQL's shared memory is zeroed (so resident) at start. Its default 128 MB
 * of shared buffers is sized for a server: the bridge's tables hold users, ships and repos, a few hundred kB,
 * and the catalogs live in PostgreSQL's own caches, so 4 MB is plenty. Its default 100 connections size the
 * per-connection tables (processes, locks, predicate locks), 4 MB of the 12: PGlite serves one connection,
 * and 4 is that one beside the 3 PostgreSQL keeps for superusers.
 */
const PGLITE_CONF = 'shared_buffers = 4MB\nmax_connections = 4';

/**
 * V8 tiers hot WebAssembly functions up to its optimising compiler; PostgreSQL's start runs enough of the
 * module to tier up most of it at once, on background threads whose compiler memory glibc keeps for life
 * (bench/RESULTS.md). A budget a hundred times V8's default keeps the start on the baseline compiler and still
 * optimises what a long-lived bridge runs hot.
 */
const WASM_TIERING_BUDGET = '--wasm-tiering-budget=1300000000';

/**
 * The data directory bin/build.js made beside the compiled bridge (`<build>/pglite-template`: the schema, no
 * rows); from the sources (vitest), the checkout's current build's. Null where there is none (an image built
 * without bin/build.js): initdb then runs, and the migrations after it.
 */
function pgliteTemplate(): string | null {
  const candidates = [
    resolve(import.meta.dirname, '../../pglite-template'),
    resolve(import.meta.dirname, '../../dist/pglite-template'),
  ];
  return candidates.find((template) => existsSync(join(template, 'PG_VERSION'))) ?? null;
}

/**
 * Fills a new PGlite data directory: a copy of the build's template (a fraction of a second), else PGlite's
 * initdb in a child process. initdb grows the WebAssembly heap far past what serving needs, and a heap never
 * shrinks: done in the bridge itself, an idle bridge kept that for life (bench/RESULTS.md). Either way the
 * directory is filled beside `dataDir` and renamed into place, so a start killed midway leaves no half
 * directory for the next one to open.
 */
async function initialisePglite(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const filling = `${dataDir}.filling-${process.pid}`;
  rmSync(filling, { recursive: true, force: true });
  try {
    const template = pgliteTemplate();
    if (template) {
      // Synchronous on purpose: nothing is served yet, and fs.promises.cp took over twice as long for the
      // template's many small files (bench/RESULTS.md).
      cpSync(template, filling, { recursive: true });
    } else {
      const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
      // A failure is printed whole: Emscripten's ErrnoError has no message, only an errno.
      const script =
        `require(${JSON.stringify(entry)}).PGlite.create(process.argv[1]).then((db) => db.close()).catch((e) => {` +
        `process.stderr.write(String(e && (e.message || (e.errno !== undefined ? 'errno ' + e.errno : e))) + '\\n' + (e && e.stack || '')); process.exit(1); })`;
      await new Promise<void>((resolvePromise, reject) => {
        execFile(process.execPath, ['-e', script, filling], { timeout: 120_000 }, (error, _stdout, stderr) =>
          error
            ? reject(new Error(`could not create the embedded store in ${dataDir}: ${stderr.trim() || error.message}`))
            : resolvePromise(),
        );
      });
    }
    rmSync(dataDir, { recursive: true, force: true });
    renameSync(filling, dataDir);
  } catch (error) {
    rmSync(filling, { recursive: true, force: true });
    throw error;
  }
}

/** PGlite on `dataDir` (in memory when omitted). PGlite takes no lock: the caller must (store/lock.ts). */
export async function pgliteDatabase(dataDir?: string): Promise<Database> {
  if (dataDir) await initialisePglite(dataDir);
  setFlagsFromString(WASM_TIERING_BUDGET);
  const db = await PGlite.create(dataDir, {
    postgresqlconf: PGLITE_CONF,
    parsers: {
      [types.INT8]: (value: string) => value,
      [types.BYTEA]: (value: string) => Buffer.from(value.slice(2), 'hex'),
    },
  });
  const on = (client: Pick<PGlite, 'query'>): Queryable => ({
    async query<Row>(text: string, params?: unknown[]) {
      const result = await classified(() => client.query<Row>(text, params as never[]));
      // As pg: a statement that returns rows counts them, any other counts the rows it changed.
      const rowCount = result.fields.length > 0 ? result.rows.length : (result.affectedRows ?? 0);
      return { rows: result.rows, rowCount };
    },
  });
  return {
    engine: 'pglite',
    ...on(db),
    async exec(sql) {
      await classified(() => db.exec(sql));
    },
    transaction: (fn) => db.transaction((tx) => fn(on(tx))),
    close: () => db.close(),
  };
}
