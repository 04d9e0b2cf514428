// The drain report (issue #30, docs/DECISIONS.md "Drain report"): what a session holder found in its
// node's workspaces before it ended their sessions, sent to the operator (POST /drain-report, which records
// an Event per workspace on the node's Ship) and forwarded to the bridge (POST /ships/:name/drain-report,
// one warn log line per workspace). One schema and one wording for all three, so the Event, the bridge's
// line and the holder's own fallback line say the same thing. It carries counts and branch names only:
// never a remote URL, a file name or a file's content.
import { Type, type Static } from 'typebox';
import { Identifier } from './identifier.js';

/** At most this many workspaces in one report (a node holds far fewer; bounds the body and the events). */
export const DRAIN_REPORT_MAX_WORKSPACES = 500;
/** At most this many branch names per workspace. */
export const DRAIN_REPORT_MAX_BRANCHES = 20;

export const UnpushedBranch = Type.Object({
  branch: Type.String({ minLength: 1, maxLength: 256 }),
  /** Commits on this branch that no remote-tracking branch has. */
  commits: Type.Integer({ minimum: 1 }),
});
export type UnpushedBranch = Static<typeof UnpushedBranch>;

export const WorkspaceDrainFindings = Type.Object({
  repo: Identifier,
  name: Identifier,
  unpushedBranches: Type.Array(UnpushedBranch, { maxItems: DRAIN_REPORT_MAX_BRANCHES }),
  /** Tracked files changed (staged or not), from `git status`. */
  uncommittedFiles: Type.Integer({ minimum: 0 }),
  untrackedFiles: Type.Integer({ minimum: 0 }),
  stashes: Type.Integer({ minimum: 0 }),
  /** Set when the scan of this workspace failed or ran out of time: what it holds is unknown. */
  scanError: Type.Optional(Type.String({ maxLength: 500 })),
});
export type WorkspaceDrainFindings = Static<typeof WorkspaceDrainFindings>;

/** The body of both POST /drain-report (operator) and POST /ships/:name/drain-report (bridge). */
export const DrainReport = Type.Object({
  /** Only the workspaces with something unpushed (or that could not be scanned). */
  workspaces: Type.Array(WorkspaceDrainFindings, { maxItems: DRAIN_REPORT_MAX_WORKSPACES }),
  /** How many workspaces were scanned, clean ones included. */
  scanned: Type.Integer({ minimum: 0 }),
});
export type DrainReport = Static<typeof DrainReport>;

export const DrainReportAccepted = Type.Object({ logged: Type.Integer({ minimum: 0 }) });
export type DrainReportAccepted = Static<typeof DrainReportAccepted>;

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** What was found, in words: `2 unpushed commits on main, 1 uncommitted file, 1 stash`. */
export function describeFindings(found: WorkspaceDrainFindings): string {
  const parts = found.unpushedBranches.map((each) => `${plural(each.commits, 'unpushed commit')} on ${each.branch}`);
  if (found.uncommittedFiles > 0) parts.push(plural(found.uncommittedFiles, 'uncommitted file'));
  if (found.untrackedFiles > 0) parts.push(plural(found.untrackedFiles, 'untracked file'));
  if (found.stashes > 0) parts.push(plural(found.stashes, 'stash', 'stashes'));
  if (found.scanError) parts.push(`not fully scanned: ${found.scanError}`);
  return parts.join(', ');
}

/** Whether a workspace's findings say it holds work that exists nowhere else (or might). */
export function hasUnpushedWork(found: WorkspaceDrainFindings): boolean {
  return (
    found.unpushedBranches.length > 0 ||
    found.uncommittedFiles + found.untrackedFiles + found.stashes > 0 ||
    !!found.scanError
  );
}
