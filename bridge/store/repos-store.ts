// The repo registry: name (an identifier, also the ship-side directory), clone URL and provider.
import type { Queryable } from './database.js';

export interface RepoRecord {
  name: string;
  url: string;
  provider: string;
}

export class ReposStore {
  constructor(private readonly db: Queryable) {}

  async list(): Promise<RepoRecord[]> {
    return (await this.db.query<RepoRecord>('SELECT name, url, provider FROM repos ORDER BY name')).rows;
  }

  async get(name: string): Promise<RepoRecord | null> {
    return (
      (await this.db.query<RepoRecord>('SELECT name, url, provider FROM repos WHERE name = $1', [name])).rows[0] ?? null
    );
  }

  /** Adds a repo; false when one of that name exists already. */
  async add(repo: RepoRecord): Promise<boolean> {
    const result = await this.db.query(
      'INSERT INTO repos (name, url, provider) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [repo.name, repo.url, repo.provider],
    );
    return result.rowCount === 1;
  }

  async remove(name: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM repos WHERE name = $1', [name])).rowCount === 1;
  }
}
