// Users: username and email unique case-insensitively (unique indexes on lower()), the argon2id hash with
// its parameters (PHC string), role and creation time in epoch ms. Role changes and removals that could
// leave no admin run in one transaction that locks the admin rows first, so two admins demoting each
// other concurrently cannot both succeed.
import type { Database, Queryable } from './database.js';
import type { Role, User } from '../../protocol/index.js';
import { messageOf } from '../../protocol/index.js';

interface UserRow {
  id: string;
  username: string;
  email: string;
  role: Role;
  created_at: string | number;
  password_hash: string;
}

export interface UserRecord extends User {
  passwordHash: string;
}

const COLUMNS = 'id, username, email, role, created_at, password_hash';
const toRecord = (row: UserRow): UserRecord => ({
  id: row.id,
  username: row.username,
  email: row.email,
  role: row.role,
  createdAt: Number(row.created_at),
  passwordHash: row.password_hash,
});

/** The public view of a user: never the hash. */
export const publicUser = ({ id, username, email, role, createdAt }: UserRecord): User => ({
  id,
  username,
  email,
  role,
  createdAt,
});

export type AddUserOutcome = { ok: true; user: UserRecord } | { ok: false; conflict: 'username' | 'email' };
export type AdminGuardedOutcome<T> = { ok: true; value: T } | { ok: false; reason: 'not-found' | 'last-admin' };

export class UsersStore {
  constructor(private readonly db: Database) {}

  async count(): Promise<number> {
    const result = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM users');
    return Number(result.rows[0]?.n ?? 0);
  }

  async list(): Promise<UserRecord[]> {
    const result = await this.db.query<UserRow>(`SELECT ${COLUMNS} FROM users ORDER BY created_at, lower(username)`);
    return result.rows.map(toRecord);
  }

  async byUsername(username: string, db: Queryable = this.db): Promise<UserRecord | null> {
    const result = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE lower(username) = lower($1)`, [
      username,
    ]);
    return result.rows[0] ? toRecord(result.rows[0]) : null;
  }

  async byId(id: string): Promise<UserRecord | null> {
    const result = await this.db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
    return result.rows[0] ? toRecord(result.rows[0]) : null;
  }

  async add(user: UserRecord): Promise<AddUserOutcome> {
    return this.db.transaction(async (tx) => {
      const clash = await tx.query<{ username_taken: boolean; email_taken: boolean }>(
        `SELECT bool_or(lower(username) = lower($1)) AS username_taken, bool_or(lower(email) = lower($2)) AS email_taken
           FROM users WHERE lower(username) = lower($1) OR lower(email) = lower($2)`,
        [user.username, user.email],
      );
      if (clash.rows[0]?.username_taken) return { ok: false, conflict: 'username' } as const;
      if (clash.rows[0]?.email_taken) return { ok: false, conflict: 'email' } as const;
      // Two concurrent adds of one name both pass the check; the unique index refuses the second.
      try {
        await tx.query(
          'INSERT INTO users (id, username, email, password_hash, role, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [user.id, user.username, user.email, user.passwordHash, user.role, user.createdAt],
        );
      } catch (error) {
        const constraint = (error as { constraint?: string; message?: string }).constraint ?? messageOf(error);
        if (/users_username_key/.test(constraint)) return { ok: false, conflict: 'username' } as const;
        if (/users_email_key/.test(constraint)) return { ok: false, conflict: 'email' } as const;
        throw error;
      }
      return { ok: true, user } as const;
    });
  }

  /** Sets the password hash and drops every session of the user, in one transaction. */
  async setPassword(id: string, passwordHash: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const result = await tx.query('UPDATE users SET password_hash = $2 WHERE id = $1', [id, passwordHash]);
      await tx.query('DELETE FROM sessions WHERE user_id = $1', [id]);
      return result.rowCount === 1;
    });
  }

  /** Sets the email; 'email' when another user has it already. */
  async setEmail(id: string, email: string): Promise<UserRecord | 'email' | null> {
    try {
      const result = await this.db.query<UserRow>(`UPDATE users SET email = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [
        id,
        email,
      ]);
      return result.rows[0] ? toRecord(result.rows[0]) : null;
    } catch (error) {
      const constraint = (error as { constraint?: string }).constraint ?? messageOf(error);
      if (/users_email_key/.test(constraint)) return 'email';
      throw error;
    }
  }

  /** Changes a role; refused when it would demote the last admin. */
  async setRole(username: string, role: Role): Promise<AdminGuardedOutcome<UserRecord>> {
    return this.db.transaction(async (tx) => {
      const admins = await this.lockAdmins(tx);
      const user = await this.byUsername(username, tx);
      if (!user) return { ok: false, reason: 'not-found' } as const;
      if (user.role === 'admin' && role !== 'admin' && admins.length === 1)
        return { ok: false, reason: 'last-admin' } as const;
      await tx.query('UPDATE users SET role = $2 WHERE id = $1', [user.id, role]);
      return { ok: true, value: { ...user, role } } as const;
    });
  }

  /** Removes a user (sessions go with it); refused for the last admin. */
  async remove(username: string): Promise<AdminGuardedOutcome<UserRecord>> {
    return this.db.transaction(async (tx) => {
      const admins = await this.lockAdmins(tx);
      const user = await this.byUsername(username, tx);
      if (!user) return { ok: false, reason: 'not-found' } as const;
      if (user.role === 'admin' && admins.length === 1) return { ok: false, reason: 'last-admin' } as const;
      await tx.query('DELETE FROM users WHERE id = $1', [user.id]);
      return { ok: true, value: user } as const;
    });
  }

  private async lockAdmins(tx: Queryable): Promise<string[]> {
    const result = await tx.query<{ id: string }>("SELECT id FROM users WHERE role = 'admin' ORDER BY id FOR UPDATE");
    return result.rows.map((row) => row.id);
  }
}
