// Cloning a workspace. The requested name is tried as a remote branch or tag in the clone itself (one git
// call on the common path, so create costs what a plain clone costs); when the remote has neither, the
// default branch is cloned and the branch created locally, never pushed. Failures are classified at the
// step that failed: a refused branch name, an unresolvable remote HEAD or a URL with no repository behind it
// is the caller's 400; any other failed clone is a 500; both carry git's (redacted) message.
import { WorkspaceError, cannotCreateBranch, noUsableHead } from '../errors.js';
import type { GitRunner } from '../git/runner.js';
import { persistUrlCredentials, setOriginUrl } from '../git/url-credentials.js';
import { rm } from 'node:fs/promises';
import { redactUrlCredentials, splitUrlCredentials, type SplitUrl } from '../../protocol/index.js';
import { RemoteFailed, type RepoCache } from './repo-cache.js';

/**
 * Files written by one worker per core: creating thousands of files is the larger part of a workspace made
 * from the cache, and on some disks each costs a fraction of a millisecond of kernel time.
 */
const PARALLEL_CHECKOUT = ['-c', 'checkout.workers=0'];

const BRANCH_NOT_ON_REMOTE = /Remote branch .* not found in upstream/;

/**
 * How long a clone may take in all, and how long an http(s) transfer may stall (under 1 byte/s) before git
 * gives up: a remote that stops answering fails the create in seconds instead of holding it, its directory
 * and the bridge's reservation for the whole deadline (docs/security.md X9).
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

/** Where a clone comes from: the requested URL itself, or the ship's repo cache of it. */
interface CloneSource {
  /** What git clones: the URL without credentials, or the cache's directory. */
  from: string;
  env: Record<string, string>;
  /** Extra clone options (`--local` for the cache). */
  options: string[];
  /** After the clone: `origin` made the requested URL (credentials included, never in argv). */
  finish: (dir: string) => Promise<void>;
}

/**
 * Clones `url` into the empty directory `dir` and leaves `branch` checked out (a tag detached). Says whether
 * the branch was made here because the remote advertises no such name (the spec's silent case the CLI names).
 * With a repo cache, the clone is made from the cache once the cache has the remote's current refs.
 */
export async function cloneWorkspace(
  git: GitRunner,
  url: string,
  dir: string,
  branch: string,
  limits: CloneLimits = CLONE_LIMITS,
  cache?: RepoCache,
  how: { copyObjects?: boolean } = {},
): Promise<{ branchCreated: boolean }> {
  const split = splitUrlCredentials(url);
  const noLinks = how.copyObjects ? ['--no-hardlinks'] : [];
  if (cache) {
    try {
      return await cloneThroughCache(git, cache, url, split, dir, branch, limits, noLinks);
    } catch (error) {
      // The remote's answer or the caller's branch decides as for a plain clone; a cache the ship cannot
      // write (a read-only or full disk) only costs the speed-up: the create goes on as a plain clone.
      if (error instanceof WorkspaceError) throw error;
      await rm(dir, { recursive: true, force: true });
    }
  }
  const remote: CloneSource = {
    from: split.url,
    env: split.env,
    options: noLinks,
    finish: (into) => persistUrlCredentials(into, split),
  };
  return cloneFrom(git, remote, url, dir, branch, limits, { lastTry: true });
}

/**
 * The same workspace from the repo cache (repo-cache.ts): the cache brought to the remote's current refs
 * with this create's credentials (a refusal fails the create as a clone would), then a `--local` clone of it
 * (hard-linked objects, no network) by the same branch rules, with `origin` pointed at the requested URL.
 * A cache git cannot clone from is dropped and filled again once.
 */
async function cloneThroughCache(
  git: GitRunner,
  cache: RepoCache,
  url: string,
  split: SplitUrl,
  dir: string,
  branch: string,
  limits: CloneLimits,
  noLinks: string[],
): Promise<{ branchCreated: boolean }> {
  const call = { settings: stallSettings(limits), timeoutMs: limits.timeoutMs, env: split.env };
  const refreshed = async () => {
    try {
      return await cache.refresh(split, call);
    } catch (error) {
      if (error instanceof RemoteFailed) throw cloneFailed(url, error.stderr);
      throw error;
    }
  };
  // The cache is ours, a local path: the file transport is allowed for this one clone whatever the policy.
  const fromCache = (from: string): CloneSource => ({
    from,
    env: { GIT_ALLOW_PROTOCOL: 'file' },
    options: ['--local', ...noLinks],
    finish: (into) => setOriginUrl(into, split),
  });
  try {
    return await cloneFrom(git, fromCache(await refreshed()), url, dir, branch, limits, { lastTry: false });
  } catch (error) {
    if (!(error instanceof UnreadableSource)) throw error;
    await rm(dir, { recursive: true, force: true });
    await cache.discard(split.url);
    return cloneFrom(git, fromCache(await refreshed()), url, dir, branch, limits, { lastTry: true });
  }
}

/** A clone from the cache failed for a reason other than the branch: the cache is dropped and filled again. */
class UnreadableSource extends Error {}

/**
 * `git clone --branch` from `source`; when the source has no such branch or tag, the default branch cloned
 * and the branch created locally, never pushed. A failure other than the branch is the create's failure on
 * the last try, and an `UnreadableSource` before it.
 */
async function cloneFrom(
  git: GitRunner,
  source: CloneSource,
  url: string,
  dir: string,
  branch: string,
  limits: CloneLimits,
  attempt: { lastTry: boolean },
): Promise<{ branchCreated: boolean }> {
  const clone = (extra: string[]) =>
    git.run(
      [
        ...stallSettings(limits),
        ...PARALLEL_CHECKOUT,
        'clone',
        '--quiet',
        ...source.options,
        ...extra,
        '--',
        source.from,
        dir,
      ],
      { timeoutMs: limits.timeoutMs, env: source.env },
    );
  const failed = (stderr: string) => (attempt.lastTry ? cloneFailed(url, stderr) : new UnreadableSource(stderr));
  const direct = await clone([`--branch=${branch}`]);
  if (direct.code === 0) {
    await source.finish(dir);
    return { branchCreated: false };
  }
  if (!BRANCH_NOT_ON_REMOTE.test(direct.stderr)) throw failed(direct.stderr);

  const problem = await branchNameProblem(git, branch);
  if (problem) throw cannotCreateBranch(branch, problem);
  await rm(dir, { recursive: true, force: true });
  const fallback = await clone([]);
  if (fallback.code !== 0) throw failed(fallback.stderr);
  await source.finish(dir);
  const head = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: dir });
  if (head.code !== 0) throw noUsableHead(branch);
  const created = await git.run(['switch', '--quiet', '--no-track', '-c', branch], { cwd: dir });
  if (created.code !== 0) throw cannotCreateBranch(branch, firstLine(created.stderr));
  return { branchCreated: true };
}

/** How long an http(s) transfer may stall (under 1 byte/s) before git gives up. */
const stallSettings = (limits: CloneLimits) => [
  '-c',
  'http.lowSpeedLimit=1',
  '-c',
  `http.lowSpeedTime=${limits.stallSeconds}`,
];

export function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').replace(/^(fatal|error): /, '').trim();
}
