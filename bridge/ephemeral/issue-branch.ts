// The branch of an issue-linked create (spec "POST /workspaces (bridge)", docs/architecture.md §9): the canonical name
// (protocol/issue-branch.ts), created on the forge and linked to the issue as its
// development branch; when the forge will not create it, the same name found among the issue's linked
// branches and then as a plain ref. A branch linked under another name is never used instead (409).
import { BridgeError } from '../errors.js';
import type { ForgeProvider } from '../providers/forge-provider.js';
import type { Repo } from '../../protocol/index.js';
import { issueBranchName } from '../../protocol/issue-branch.js';

// The naming rule is shared with the GUI's preview; re-exported for the bridge's callers.
export { ISSUE_BRANCH_MAX_LENGTH, issueBranchName, slugOf } from '../../protocol/issue-branch.js';

export interface IssueBranch {
  branch: string;
  /** Whether this create made the branch on the forge (false: an existing one was found and used). */
  created: boolean;
}

/**
 * Reads the issue, then creates-and-links its canonical branch or finds it. Provider errors propagate as
 * they are (the route maps their status); the 409 for a differently named linked branch is decided here.
 */
export async function resolveIssueBranch(
  provider: ForgeProvider,
  repo: Repo,
  issueNumber: number,
): Promise<IssueBranch> {
  const issue = await provider.readIssue(repo, issueNumber);
  const wanted = issueBranchName(issue.number, issue.title);
  const created = await provider.createLinkedBranch(repo, issue.number, wanted);
  if (created !== null) return { branch: created, created: true };
  const linked = await provider.linkedBranches(repo, issue.number);
  if (linked.includes(wanted)) return { branch: wanted, created: false };
  if (await provider.branchExists(repo, wanted)) return { branch: wanted, created: false };
  if (linked.length > 0) {
    const names = linked.map((name) => `"${name}"`).join(', ');
    throw new BridgeError(
      409,
      `issue #${issue.number} is linked to branch ${names}, not "${wanted}"; svc never substitutes a differently named branch`,
    );
  }
  throw new BridgeError(
    409,
    `the forge refused to create branch "${wanted}" for issue #${issue.number}, and no branch of that name exists`,
  );
}
