// Switching a workspace's branch: an existing local branch, else the remote's branch of that name (tracked),
// else a new branch off the current HEAD; the caller learns which of the last two happened.
import { cannotCreateBranch, WorkspaceError } from '../errors.js';
import type { GitRunner } from '../git/runner.js';
import { branchNameProblem, firstLine } from './clone.js';

export async function switchBranch(git: GitRunner, dir: string, branch: string): Promise<{ branchCreated: boolean }> {
  const problem = await branchNameProblem(git, branch);
  if (problem) throw cannotCreateBranch(branch, problem);
  const local = await git.run(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: dir });
  const remote =
    local.code === 0
      ? local
      : await git.run(['show-ref', '--verify', '--quiet', `refs/remotes/origin/${branch}`], { cwd: dir });
  if (local.code === 0 || remote.code === 0) {
    const switched = await git.run(['switch', '--quiet', branch], { cwd: dir });
    if (switched.code !== 0)
      throw new WorkspaceError(400, `could not switch to branch "${branch}": ${firstLine(switched.stderr)}`);
    return { branchCreated: false };
  }
  const created = await git.run(['switch', '--quiet', '--no-track', '-c', branch], { cwd: dir });
  if (created.code !== 0) throw cannotCreateBranch(branch, firstLine(created.stderr));
  return { branchCreated: true };
}
