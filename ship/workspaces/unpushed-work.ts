// The guarded delete's checks (`force=false`): uncommitted or untracked changes, commits on a local branch
// (or a detached HEAD) that no remote has, and stashes. A check that cannot run counts as work held.
import type { GitRunner } from '../git/runner.js';
import { firstLine } from './clone.js';

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Counts entries of `git status --porcelain=v1 -z` (a rename or copy carries a second path). */
function countStatusEntries(raw: string): number {
  const fields = raw.split('\0').filter((field) => field !== '');
  let count = 0;
  for (let i = 0; i < fields.length; i++) {
    count++;
    const code = fields[i]!.slice(0, 2);
    if (code.includes('R') || code.includes('C')) i++;
  }
  return count;
}

async function workingTreeFinding(git: GitRunner, dir: string): Promise<string | null> {
  const status = await git.run(
    ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none'],
    { cwd: dir },
  );
  if (status.code !== 0) return `the working tree could not be checked (${firstLine(status.stderr)})`;
  const count = countStatusEntries(status.stdout.toString('utf8'));
  return count > 0 ? `uncommitted changes (${plural(count, 'path')})` : null;
}

/** `rev` is `HEAD` or a full `refs/heads/…` name from git itself, so it can never read as an option. */
async function unpushedCount(git: GitRunner, dir: string, rev: string, exclude: string[]): Promise<number | string> {
  const result = await git.run(['rev-list', '--count', rev, '--not', ...exclude], { cwd: dir });
  if (result.code !== 0) return firstLine(result.stderr) || `exit code ${result.code}`;
  return Number(result.stdout.toString('utf8').trim()) || 0;
}

/**
 * Commits and stashes from one ref listing, which says which local branches there are, whether HEAD is on
 * one of them (`%(HEAD)`; on none: detached, or a branch not born yet) and whether a stash exists; a guarded
 * delete of a clean clone with one branch runs three git processes in all (the sweep runs one per blocked
 * record every pass).
 */
async function refFindings(git: GitRunner, dir: string): Promise<{ commits: string[]; stash: string | null }> {
  const refs = await git.run(['for-each-ref', '--format=%(HEAD) %(refname)', 'refs/heads/', 'refs/stash'], {
    cwd: dir,
  });
  if (refs.code !== 0)
    return { commits: [`local branches could not be checked (${firstLine(refs.stderr)})`], stash: null };
  const commits: string[] = [];
  let onBranch = false;
  let hasStash = false;
  for (const line of refs.stdout
    .toString('utf8')
    .split('\n')
    .filter((entry) => entry !== '')) {
    const ref = line.slice(2);
    if (ref === 'refs/stash') {
      hasStash = true;
      continue;
    }
    onBranch ||= line.startsWith('*');
    const branch = ref.slice('refs/heads/'.length);
    const count = await unpushedCount(git, dir, ref, ['--remotes']);
    if (typeof count === 'string') commits.push(`branch ${branch} could not be checked (${count})`);
    else if (count > 0) commits.push(`${plural(count, 'commit')} on branch ${branch} not on any remote`);
  }
  if (!onBranch) {
    const head = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: dir });
    if (head.code === 0) {
      const count = await unpushedCount(git, dir, 'HEAD', ['--remotes', '--branches']);
      if (typeof count === 'string') commits.push(`the detached HEAD could not be checked (${count})`);
      else if (count > 0) commits.push(`${plural(count, 'commit')} on the detached HEAD not on any remote or branch`);
    }
  }
  return { commits, stash: hasStash ? await stashFinding(git, dir) : null };
}

async function stashFinding(git: GitRunner, dir: string): Promise<string | null> {
  const stash = await git.run(['stash', 'list'], { cwd: dir });
  if (stash.code !== 0) return `stashes could not be checked (${firstLine(stash.stderr)})`;
  const count = stash.stdout
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '').length;
  return count > 0 ? plural(count, 'stash entry').replace('entrys', 'entries') : null;
}

export async function findUnpushedWork(git: GitRunner, dir: string): Promise<string[]> {
  const [tree, { commits, stash }] = await Promise.all([workingTreeFinding(git, dir), refFindings(git, dir)]);
  return [tree, ...commits, stash].filter((finding): finding is string => finding !== null);
}
