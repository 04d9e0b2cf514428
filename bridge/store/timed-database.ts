// A Database that reports how long each query took (issue #20: store query latency), for the bridge's
// metrics: every statement (`query`, `exec`, and each query inside a transaction), with `ok` or `error`.
// Timing is `performance.now()` around the call: no timer object per query.
import type { Database, Queryable } from './database.js';

export type QueryObserver = (seconds: number, outcome: 'ok' | 'error') => void;

async function timed<T>(observe: QueryObserver, run: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    const result = await run();
    observe((performance.now() - start) / 1000, 'ok');
    return result;
  } catch (error) {
    observe((performance.now() - start) / 1000, 'error');
    throw error;
  }
}

function timedQueryable(inner: Queryable, observe: QueryObserver): Queryable {
  return { query: (text, params) => timed(observe, () => inner.query(text, params)) };
}

export function timedDatabase(inner: Database, observe: QueryObserver): Database {
  return {
    engine: inner.engine,
    ...timedQueryable(inner, observe),
    exec: (sql) => timed(observe, () => inner.exec(sql)),
    transaction: (fn) => inner.transaction((tx) => fn(timedQueryable(tx, observe))),
    close: () => inner.close(),
  };
}
