// Opens the bridge's store: PostgreSQL when a URL is given, else PGlite in `<dataDirectory>/db`. The data
// directory is created 0700 and locked for this process; migrations run before anything is served. A start
// that fails discards the store, which removes a data directory the same start created.
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pgliteDatabase, postgresDatabase, type Database } from './database.js';
import { lockDataDirectory } from './lock.js';
import { migrate } from './migrations.js';
import { timedDatabase, type QueryObserver } from './timed-database.js';
import { ReposStore } from './repos-store.js';
import { ShipsStore } from './ships-store.js';
import { UsersStore } from './users-store.js';
import { SessionsStore } from './sessions-store.js';
import { AgentTokensStore } from './agent-tokens-store.js';
import { CredentialsStore } from './credentials-store.js';
import { EphemeralStore } from './ephemeral-store.js';

export interface StoreOptions {
  dataDirectory: string;
  /** PostgreSQL connection string; none: PGlite in the data directory. */
  databaseUrl?: string;
  /** Told how long each query after the migrations took (the bridge's metrics). */
  onQuery?: QueryObserver;
}

export interface Store {
  readonly db: Database;
  readonly ships: ShipsStore;
  readonly repos: ReposStore;
  readonly users: UsersStore;
  readonly sessions: SessionsStore;
  readonly agentTokens: AgentTokensStore;
  readonly credentials: CredentialsStore;
  readonly ephemeral: EphemeralStore;
  /** Where the data lives, for the start-up line (credentials redacted). */
  readonly location: string;
  close(): Promise<void>;
  /**
   * Closes like close() after a start that failed, and removes the data directory if this open created it,
   * before the lock is released (so no other bridge can have taken the directory meanwhile).
   */
  discard(): Promise<void>;
}

/**
 * Drops group and other bits from everything under `directory`. PGlite's file system layer creates its
 * files 0666 whatever the process umask; the 0700 data directory already keeps other users out, and this
 * keeps the files themselves private too (docs/security.md H20). Run after opening and at close.
 */
export function tightenModes(directory: string): void {
  const walk = (path: string) => {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (!stats || stats.isSymbolicLink()) return;
    if (stats.mode & 0o077) chmodSync(path, stats.mode & 0o700);
    if (stats.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  try {
    walk(directory);
  } catch {
    // A file removed mid-walk (WAL recycling) is not worth failing start-up or shutdown for.
  }
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const created = !existsSync(options.dataDirectory);
  mkdirSync(options.dataDirectory, { recursive: true, mode: 0o700 });
  chmodSync(options.dataDirectory, 0o700);
  const unlock = await lockDataDirectory(options.dataDirectory);
  // Only while the lock is held: a directory this open created, removed when the start fails.
  const removeIfCreated = () => {
    if (created) rmSync(options.dataDirectory, { recursive: true, force: true });
  };
  let db: Database;
  try {
    if (options.databaseUrl) {
      db = postgresDatabase(options.databaseUrl);
    } else {
      const dir = join(options.dataDirectory, 'db');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      db = await pgliteDatabase(dir);
    }
    await migrate(db);
    tightenModes(options.dataDirectory);
    if (options.onQuery) db = timedDatabase(db, options.onQuery);
  } catch (error) {
    try {
      removeIfCreated();
    } finally {
      unlock();
    }
    throw error;
  }
  const location = options.databaseUrl
    ? options.databaseUrl.replace(/\/\/[^@/]*@/, '//***@')
    : join(options.dataDirectory, 'db');
  return {
    db,
    ships: new ShipsStore(db),
    repos: new ReposStore(db),
    users: new UsersStore(db),
    sessions: new SessionsStore(db),
    agentTokens: new AgentTokensStore(db),
    credentials: new CredentialsStore(db),
    ephemeral: new EphemeralStore(db),
    location,
    async close() {
      try {
        await db.close();
        tightenModes(options.dataDirectory);
      } finally {
        unlock();
      }
    },
    async discard() {
      try {
        await db.close();
        removeIfCreated();
      } finally {
        unlock();
      }
    },
  };
}
