// How the CLI shows a workspace's ephemeral record (spec "EphemeralWorkspace"): the ISSUE, PR and CLEANUP
// cells of `ls --wide`. The record's `pullRequest` lags the forge by up to one sweep: it is shown, as the
// spec says, never reasoned about here.
import type { EphemeralWorkspace } from '../../protocol/index.js';

const REASON_CHARS = 48;
// A refusal is the ship's guarded-delete 409, which names the workspace the row already shows; what
// follows that prefix (the findings) is the reason worth the column's width.
const REFUSAL_PREFIX = /^workspace \S+ holds work that is not on a remote: /;

/** A blocked record's reason, short enough for a table cell. */
export function shortReason(reason: string | null): string {
  const text = (reason ?? '').replace(REFUSAL_PREFIX, '').replace(/\s+/g, ' ').trim();
  if (text === '') return 'no reason given';
  return text.length > REASON_CHARS ? `${text.slice(0, REASON_CHARS - 1)}…` : text;
}

/** ISSUE, PR and CLEANUP cells: `#12`, `#34 open`, `watching` / `blocked: <reason>`, or `-` each. */
export function ephemeralCells(record: EphemeralWorkspace | null | undefined): [string, string, string] {
  if (!record) return ['-', '-', '-'];
  const pull = record.pullRequest ? `#${record.pullRequest.number} ${record.pullRequest.state}` : '-';
  const cleanup = record.cleanup === 'blocked' ? `blocked: ${shortReason(record.blockedReason)}` : record.cleanup;
  return [`#${record.issueNumber}`, pull, cleanup];
}
