// Resolves the sha256 of a bearer token to what it belongs to, in one query over the three kinds the
// bridge accepts: a session (with its user), a ship's shipToken, or a ship-agent token.
import type { Queryable } from './database.js';
import type { Role } from '../../protocol/index.js';

export type CredentialRecord =
  | {
      kind: 'session';
      userId: string;
      username: string;
      email: string;
      role: Role;
      createdAt: number;
      expiresAt: number;
    }
  | { kind: 'ship'; ship: string }
  | { kind: 'ship-agent'; ship: string };

interface Row {
  kind: 'session' | 'ship' | 'ship-agent';
  ref: string;
  username: string | null;
  email: string | null;
  role: Role | null;
  created_at: string | null;
  expires_at: string | null;
}

export class CredentialsStore {
  constructor(private readonly db: Queryable) {}

  async lookup(tokenHash: string): Promise<CredentialRecord | null> {
    const result = await this.db.query<Row>(
      `SELECT 'session' AS kind, u.id::text AS ref, u.username, u.email, u.role, u.created_at::text AS created_at, s.expires_at::text AS expires_at
         FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1
       UNION ALL
       SELECT 'ship', name, NULL, NULL, NULL, NULL, NULL FROM ships WHERE ship_token_hash = $1
       UNION ALL
       SELECT 'ship-agent', ship, NULL, NULL, NULL, NULL, NULL FROM agent_tokens WHERE token_hash = $1
       LIMIT 1`,
      [tokenHash],
    );
    const row = result.rows[0];
    if (!row) return null;
    if (row.kind === 'session') {
      return {
        kind: 'session',
        userId: row.ref,
        username: row.username ?? '',
        email: row.email ?? '',
        role: row.role ?? 'member',
        createdAt: Number(row.created_at),
        expiresAt: Number(row.expires_at),
      };
    }
    return { kind: row.kind, ship: row.ref };
  }
}
