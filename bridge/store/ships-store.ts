// The ship roster: name, URL and the ship's token pair (sha256 of the shipToken, the bridgeToken in clear
// because the bridge presents it on every call: spec "Storage requirements for secrets").
import type { Queryable } from './database.js';

export interface ShipRecord {
  name: string;
  url: string;
  shipTokenHash: string | null;
  bridgeToken: string | null;
}

interface ShipRow {
  name: string;
  url: string;
  ship_token_hash: string | null;
  bridge_token: string | null;
}

const toRecord = (row: ShipRow): ShipRecord => ({
  name: row.name,
  url: row.url,
  shipTokenHash: row.ship_token_hash,
  bridgeToken: row.bridge_token,
});

export class ShipsStore {
  constructor(private readonly db: Queryable) {}

  async list(): Promise<ShipRecord[]> {
    const result = await this.db.query<ShipRow>(
      'SELECT name, url, ship_token_hash, bridge_token FROM ships ORDER BY name',
    );
    return result.rows.map(toRecord);
  }

  async get(name: string): Promise<ShipRecord | null> {
    const result = await this.db.query<ShipRow>(
      'SELECT name, url, ship_token_hash, bridge_token FROM ships WHERE name = $1',
      [name],
    );
    return result.rows[0] ? toRecord(result.rows[0]) : null;
  }

  /** Adds a ship; false when one of that name exists already. */
  async add(ship: ShipRecord): Promise<boolean> {
    const result = await this.db.query(
      'INSERT INTO ships (name, url, ship_token_hash, bridge_token) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING',
      [ship.name, ship.url, ship.shipTokenHash, ship.bridgeToken],
    );
    return result.rowCount === 1;
  }

  async remove(name: string): Promise<boolean> {
    const result = await this.db.query('DELETE FROM ships WHERE name = $1', [name]);
    return result.rowCount === 1;
  }
}
