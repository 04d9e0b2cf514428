// Cloning a workspace. The requested name is tried as a remote branch or tag in the clone itself (one git
// call on the common path, so create costs what a plain clone costs); when the remote has neither, the
// default branch is cloned and the branch created locally, never pushed. Failures are classified at the
// step that failed: a refused branch name, an unresolvable remote HEAD or a URL with no repository behind it
// is the caller's 400; any other failed clone is a 500; both carry git's (redacted) message.
import { WorkspaceError, cannotCreateBranch, noUsableHead } from '../errors.js';
import type { GitRunner } from '../git/runner.js';
import { persistUrlCredentials } from '../git/url-credentials.js';
import { rm } from 'node:fs/promises';
import { redactUrlCredentials, splitUrlCredentials, type SplitUrl } from '../../protocol/index.js';
import { RemoteFailed, type RepoCache } from './repo-cache.js';

const BRANCH_NOT_ON_REMOTE = /Remote branch .* not found in upstream/;

/**
 * How long a clone may take in all, and how long an http(s) transfer may stall (under 1 byte/s) before git
 * gives up: a remote that stops answering fails the create in seconds instead of holding it, its directory
 * and the bridge's reservation for the whole deadline (security notes X9).
 */
export interface CloneLimits {
  timeoutMs: number;
  stallSeconds: number;
}

export const CLONE_LIMITS: CloneLimits = { timeoutMs: 10 * 60_000, stallSeconds: 30 };

/** Checks a name git could create as a branch; null when valid, else the reason. */
export async function branchNameProblem(git: GitRunner, branch: string): Promise<string | null> {
  if (branch.startsWith('-')) return 'a branch name must not start with "-"';
  const result = await git.run(['check-ref-format', '--branch', branch]);
  return result.code === 0 ? null : 'not a valid branch name';
}

/**
 * What git says when the URL names no repository it can reach: nothing there (a path or page that does not
 * exist, a forge's "Repository not found"), something that is not a repository, or a host name that does not
 * resolve. Those are the caller's mistake (400, issue #15); anything else (disk, the deadline, a refused
 * connection, an ssh key the ship lacks) is the ship's side of the clone and stays a 500.
 */
const NO_SUCH_REPOSITORY = [
  /repository not found/i,
  /repository '[^']*' (?:does not exist|not found)/,
  /does not appear to be a git repository/,
  /Could not resolve host/,
];

function cloneFailed(url: string, stderr: string): WorkspaceError {
  const detail = stderr
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('Cloning into'))
    .join(' ')
    .trim();
  const status = NO_SUCH_REPOSITORY.some((pattern) => pattern.test(detail)) ? 400 : 500;
  return new WorkspaceError(status, redactUrlCredentials(`git clone of ${url} failed: ${detail || 'unknown error'}`));
}

/**
 * Clones `url` into the empty directory `dir` and leaves `branch` checked out (a tag detached). Says whether
 * the branch was made here because the remote advertises no such name (the spec's silent case the CLI names).
 */
export async function cloneWorkspace(
  git: GitRunner,
  url: string,
  dir: string,
  branch: string,
  limits: CloneLimits = CLONE_LIMITS,
  cache?: RepoCache,
): Promise<{ branchCreated: boolean }> {
  const split = splitUrlCredentials(url);
  if (cache) {
    try {
      return await cloneThroughCache(git, cache, url, split, dir, branch, limits);
    } catch (error) {
      // The remote's answer or the caller's branch decides as for a plain clone; a cache the ship cannot
      // write (a read-only or full disk) only costs the speed-up: the create goes on as a plain clone.
      if (error instanceof WorkspaceError) throw error;
      await rm(dir, { recursive: true, force: true });
    }
  }
  const options = { timeoutMs: limits.timeoutMs, env: split.env };
  const stall = ['-c', 'http.lowSpeedLimit=1', '-c', `http.lowSpeedTime=${limits.stallSeconds}`];
  const direct = await git.run([...stall, 'clone', '--quiet', `--branch=${branch}`, '--', split.url, dir], options);
  if (direct.code === 0) {
    await persistUrlCredentials(dir, split);
    return { branchCreated: false };
  }
  if (!BRANCH_NOT_ON_REMOTE.test(direct.stderr)) throw cloneFailed(url, direct.stderr);

  const problem = await branchNameProblem(git, branch);
  if (problem) throw cannotCreateBranch(branch, problem);
  const fallback = await git.run([...stall, 'clone', '--quiet', '--', split.url, dir], options);
  if (fallback.code !== 0) throw cloneFailed(url, fallback.stderr);
  await persistUrlCredentials(dir, split);
  const head = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: dir });
  if (head.code !== 0) throw noUsableHead(branch);
  const created = await git.run(['switch', '--quiet', '--no-track', '-c', branch], { cwd: dir });
  if (created.code !== 0) throw cannotCreateBranch(branch, firstLine(created.stderr));
  return { branchCreated: true };
}

/**
 * The same workspace from the repo cache (repo-cache.ts): the cache fetched up to the remote's current refs
 * with this create's credentials (a refusal fails the create as a clone would), then a `--local` clone of it
 * (hard-linked objects, no network), `origin` pointed at the requested URL, and the branch checked out by
 * the same rules: a remote branch (tracked), else a tag (detached), else a new branch off the default one.
 * A cache git cannot clone from is dropped and filled again once.
 */
async function cloneThroughCache(git: GitRunner, cache: RepoCache, url: string, split: SplitUrl, dir: string, branch: string, limits: CloneLimits): Promise<{ branchCreated: boolean }> {
  const call = { settings: ['-c', 'http.lowSpeedLimit=1', '-c', `http.lowSpeedTime=${limits.stallSeconds}`], timeoutMs: limits.timeoutMs, env: split.env };
  const refreshed = async () => {
    try {
      return await cache.refresh(split, call);
    } catch (error) {
      if (error instanceof RemoteFailed) throw cloneFailed(url, error.stderr);
      throw error;
    }
  };
  // The cache is ours, a local path: the file transport is allowed for this one clone whatever the policy.
  const local = (source: string) => git.run(['clone', '--quiet', '--local', '--no-checkout', '--', source, dir], { timeoutMs: limits.timeoutMs, env: { GIT_ALLOW_PROTOCOL: 'file' } });
  let cloned = await local(await refreshed());
  if (cloned.code !== 0) {
    await rm(dir, { recursive: true, force: true });
    await cache.discard(split.url);
    cloned = await local(await refreshed());
    if (cloned.code !== 0) throw cloneFailed(url, cloned.stderr);
  }
  const inDir = { cwd: dir };
  const setUrl = await git.run(['remote', 'set-url', 'origin', split.url], inDir);
  if (setUrl.code !== 0) throw cloneFailed(url, setUrl.stderr);
  await persistUrlCredentials(dir, split);
  const local0 = (await git.run(['symbolic-ref', '--quiet', '--short', 'HEAD'], inDir)).stdout.toString().trim();
  let branchCreated = false;
  if (await hasRef(git, dir, `refs/remotes/origin/${branch}`)) {
    await checkout(git, dir, branch, ['checkout', '--quiet', '-B', branch, '--track', `origin/${branch}`]);
  } else if (await hasRef(git, dir, `refs/tags/${branch}`)) {
    await checkout(git, dir, branch, ['checkout', '--quiet', '--detach', `refs/tags/${branch}`]);
  } else {
    const problem = await branchNameProblem(git, branch);
    if (problem) throw cannotCreateBranch(branch, problem);
    if (!(await hasRef(git, dir, 'refs/remotes/origin/HEAD'))) throw noUsableHead(branch);
    await checkout(git, dir, branch, ['checkout', '--quiet', '--no-track', '-B', branch, 'origin/HEAD']);
    branchCreated = true;
  }
  // `clone --local` made a branch for the cache's HEAD; a plain clone of another branch has none.
  if (local0 && local0 !== branch) await git.run(['branch', '--quiet', '-D', '--', local0], inDir);
  return { branchCreated };
}

async function hasRef(git: GitRunner, dir: string, ref: string): Promise<boolean> {
  return (await git.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: dir })).code === 0;
}

async function checkout(git: GitRunner, dir: string, branch: string, args: string[]): Promise<void> {
  const result = await git.run(args, { cwd: dir });
  if (result.code !== 0) throw cannotCreateBranch(branch, firstLine(result.stderr));
}

export function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').replace(/^(fatal|error): /, '').trim();
}
