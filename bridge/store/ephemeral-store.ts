// The ephemeral-workspace records (spec "EphemeralWorkspace", the `ephemeral_workspaces` table), with the
// intent rows of docs/security.md H23: a create writes its row as `pending` before it calls the ship and
// turns it into `watching` after the ship confirmed the clone, so a bridge killed in between finds the row
// at start and reconciles it with the ship's own view instead of losing the workspace to nobody's sweep.
import type { PullRequestRef } from '../../protocol/index.js';
import type { Queryable } from './database.js';

export type CleanupState = 'pending' | 'watching' | 'blocked';

export interface EphemeralRecord {
  repoName: string;
  name: string;
  ship: string;
  issueNumber: number;
  branch: string;
  cleanup: CleanupState;
  blockedReason: string | null;
  /** ISO 8601, or null. */
  blockedAt: string | null;
  pullRequest: PullRequestRef | null;
  /** When the row was written (epoch ms): how long a pending create may still be running. */
  createdAt: number;
}

interface Row {
  repo_name: string;
  name: string;
  ship: string;
  issue_number: number;
  branch: string;
  cleanup: CleanupState;
  blocked_reason: string | null;
  blocked_at: Date | string | null;
  pull_request: PullRequestRef | string | null;
  created_at: Date | string;
}

const COLUMNS =
  'repo_name, name, ship, issue_number, branch, cleanup, blocked_reason, blocked_at, pull_request, created_at';

function recordOf(row: Row): EphemeralRecord {
  const blockedAt = row.blocked_at === null ? null : new Date(row.blocked_at).toISOString();
  const pullRequest =
    typeof row.pull_request === 'string' ? (JSON.parse(row.pull_request) as PullRequestRef) : row.pull_request;
  return {
    repoName: row.repo_name,
    name: row.name,
    ship: row.ship,
    issueNumber: row.issue_number,
    branch: row.branch,
    cleanup: row.cleanup,
    blockedReason: row.blocked_reason,
    blockedAt,
    pullRequest,
    createdAt: new Date(row.created_at).getTime(),
  };
}

export class EphemeralStore {
  constructor(private readonly db: Queryable) {}

  async list(): Promise<EphemeralRecord[]> {
    return (await this.db.query<Row>(`SELECT ${COLUMNS} FROM ephemeral_workspaces ORDER BY repo_name, name`)).rows.map(
      recordOf,
    );
  }

  /**
   * The intent row of a create about to call the ship. A row left for the same key (a create that failed
   * without an answer, then a restart) is replaced: the caller holds the key's reservation.
   */
  async insertPending(
    record: Pick<EphemeralRecord, 'repoName' | 'name' | 'ship' | 'issueNumber' | 'branch'>,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO ephemeral_workspaces (repo_name, name, ship, issue_number, branch, cleanup) VALUES ($1, $2, $3, $4, $5, 'pending')
       ON CONFLICT (repo_name, name) DO UPDATE SET ship = EXCLUDED.ship, issue_number = EXCLUDED.issue_number, branch = EXCLUDED.branch,
         cleanup = 'pending', blocked_reason = NULL, blocked_at = NULL, pull_request = NULL, created_at = now()`,
      [record.repoName, record.name, record.ship, record.issueNumber, record.branch],
    );
  }

  /** Writes the record's mutable fields (cleanup state, refusal, pull request). */
  async update(record: EphemeralRecord): Promise<void> {
    await this.db.query(
      `UPDATE ephemeral_workspaces SET cleanup = $3, blocked_reason = $4, blocked_at = $5, pull_request = $6
       WHERE repo_name = $1 AND name = $2`,
      [
        record.repoName,
        record.name,
        record.cleanup,
        record.blockedReason,
        record.blockedAt,
        record.pullRequest === null ? null : JSON.stringify(record.pullRequest),
      ],
    );
  }

  async remove(repoName: string, name: string): Promise<void> {
    await this.db.query('DELETE FROM ephemeral_workspaces WHERE repo_name = $1 AND name = $2', [repoName, name]);
  }

  async removeRepo(repoName: string): Promise<void> {
    await this.db.query('DELETE FROM ephemeral_workspaces WHERE repo_name = $1', [repoName]);
  }

  async removeShip(ship: string): Promise<void> {
    await this.db.query('DELETE FROM ephemeral_workspaces WHERE ship = $1', [ship]);
  }
}
