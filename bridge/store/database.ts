// The bridge's SQL store behind one small interface, with two engines that speak the same SQL: PGlite
// (embedded Postgres in the data directory; the default, no server needed) and PostgreSQL through a pg Pool.
// Results are normalised to pg's conventions (int8 as string, bytea as Buffer) so callers never branch on
// the engine. Parameters that go into json/jsonb columns must be passed JSON.stringify'd.
import pg from 'pg';
import { PGlite, types } from '@electric-sql/pglite';

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
      const result = await client.query(text, params as unknown[]);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
  });
  return {
    engine: 'postgres',
    ...on(pool),
    async exec(sql) {
      await pool.query(sql);
    },
    async transaction(fn) {
      const client = await pool.connect();
      // A client whose ROLLBACK failed (timed out, connection lost) is in an unknown state: destroy it.
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await fn(on(client));
        await client.query('COMMIT');
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

/** PGlite on `dataDir` (in memory when omitted). PGlite takes no lock: the caller must (store/lock.ts). */
export async function pgliteDatabase(dataDir?: string): Promise<Database> {
  const db = await PGlite.create(dataDir, {
    parsers: {
      [types.INT8]: (value: string) => value,
      [types.BYTEA]: (value: string) => Buffer.from(value.slice(2), 'hex'),
    },
  });
  const on = (client: Pick<PGlite, 'query'>): Queryable => ({
    async query<Row>(text: string, params?: unknown[]) {
      const result = await client.query<Row>(text, params as never[]);
      // As pg: a statement that returns rows counts them, any other counts the rows it changed.
      const rowCount = result.fields.length > 0 ? result.rows.length : (result.affectedRows ?? 0);
      return { rows: result.rows, rowCount };
    },
  });
  return {
    engine: 'pglite',
    ...on(db),
    async exec(sql) {
      await db.exec(sql);
    },
    transaction: (fn) => db.transaction((tx) => fn(on(tx))),
    close: () => db.close(),
  };
}
