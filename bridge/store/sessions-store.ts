// Session tokens as the spec stores them: the sha256 of the token, the user, issue and expiry in epoch ms
// (compared against the bridge's clock, never the database's, so an injected clock governs expiry).
import type { Queryable } from './database.js';

export interface SessionRecord {
  tokenHash: string;
  userId: string;
  issuedAt: number;
  expiresAt: number;
}

export class SessionsStore {
  constructor(private readonly db: Queryable) {}

  async add(session: SessionRecord): Promise<void> {
    await this.db.query('INSERT INTO sessions (token_hash, user_id, issued_at, expires_at) VALUES ($1, $2, $3, $4)', [
      session.tokenHash,
      session.userId,
      session.issuedAt,
      session.expiresAt,
    ]);
  }

  /** Deletes one session; its user id when it existed. */
  async remove(tokenHash: string): Promise<string | null> {
    const result = await this.db.query<{ user_id: string }>(
      'DELETE FROM sessions WHERE token_hash = $1 RETURNING user_id',
      [tokenHash],
    );
    return result.rows[0]?.user_id ?? null;
  }

  /** Forgets the expired sessions of a user (run at each of their logins, so the table stays small). */
  async pruneExpired(userId: string, now: number): Promise<void> {
    await this.db.query('DELETE FROM sessions WHERE user_id = $1 AND expires_at <= $2', [userId, now]);
  }
}
