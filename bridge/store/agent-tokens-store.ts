// One ship-agent token per ship, as its sha256 (spec "Storage requirements for secrets"). Replacing it
// revokes the previous one; removing the ship removes it (foreign key, ON DELETE CASCADE).
import type { Queryable } from './database.js';

export class AgentTokensStore {
  constructor(private readonly db: Queryable) {}

  /** Stores the new token's hash for `ship`; false when the ship is no longer registered. */
  async replace(ship: string, tokenHash: string, issuedAt: number): Promise<boolean> {
    const result = await this.db.query(
      `INSERT INTO agent_tokens (ship, token_hash, issued_at) SELECT name, $2, $3 FROM ships WHERE name = $1
       ON CONFLICT (ship) DO UPDATE SET token_hash = EXCLUDED.token_hash, issued_at = EXCLUDED.issued_at`,
      [ship, tokenHash, issuedAt],
    );
    return result.rowCount === 1;
  }
}
