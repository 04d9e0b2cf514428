// The bridge's schema, as numbered migrations applied in order at start, each in its own transaction and
// recorded in `schema_migrations`. Concurrent starts against one PostgreSQL serialize on an advisory lock.
// Only the PostgreSQL 15 subset of SQL is used: PGlite embeds a newer server.
import type { Database } from './database.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ships, repos and ephemeral workspaces',
    sql: `
      CREATE TABLE ships (
        name text PRIMARY KEY,
        url text NOT NULL,
        ship_token_hash text,
        bridge_token text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((ship_token_hash IS NULL) = (bridge_token IS NULL))
      );
      CREATE TABLE repos (
        name text PRIMARY KEY,
        url text NOT NULL,
        provider text NOT NULL DEFAULT 'custom',
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ephemeral_workspaces (
        repo_name text NOT NULL,
        name text NOT NULL,
        ship text NOT NULL,
        issue_number integer NOT NULL CHECK (issue_number > 0),
        branch text NOT NULL,
        cleanup text NOT NULL DEFAULT 'watching' CHECK (cleanup IN ('watching', 'blocked', 'pending')),
        blocked_reason text CHECK (char_length(blocked_reason) <= 200),
        blocked_at timestamptz,
        pull_request jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (repo_name, name)
      );
    `,
  },
  {
    version: 2,
    name: 'users, sessions and agent tokens',
    sql: `
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        username text NOT NULL,
        email text NOT NULL,
        password_hash text NOT NULL,
        role text NOT NULL CHECK (role IN ('member', 'admin')),
        created_at bigint NOT NULL
      );
      CREATE UNIQUE INDEX users_username_key ON users (lower(username));
      CREATE UNIQUE INDEX users_email_key ON users (lower(email));
      CREATE TABLE sessions (
        token_hash text PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        issued_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX sessions_user_key ON sessions (user_id);
      CREATE TABLE agent_tokens (
        ship text PRIMARY KEY REFERENCES ships (name) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        issued_at bigint NOT NULL
      );
      CREATE INDEX ships_ship_token_key ON ships (ship_token_hash)
    `,
  },
];

/** An arbitrary constant naming the bridge's migration lock in PostgreSQL's advisory-lock space. */
const MIGRATION_LOCK = 4_800_001;

/** Applies the migrations not yet recorded; returns the versions applied now. */
export async function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    const done = await db.transaction(async (tx) => {
      if (db.engine === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const existing = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (existing.rowCount > 0) return false;
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}

/** Splits migration SQL at top-level semicolons (the migrations hold no functions or quoted `;`). */
function splitStatements(sql: string): string[] {
  return sql
    .split(';')
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

/** The migrations of this build not recorded in `db` (readiness: a store restored from an older backup lacks some). */
export async function missingMigrations(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<Migration[]> {
  const recorded = await db.query<{ version: number }>('SELECT version FROM schema_migrations');
  const versions = new Set(recorded.rows.map((row) => Number(row.version)));
  return migrations.filter((migration) => !versions.has(migration.version));
}
