// The drain scan (issue #30, docs/DECISIONS.md "Drain report"): which workspaces of a fleet directory
// (`<fleet>/<repo>/<name>` git working trees) hold work that exists nowhere else — commits on a local branch
// that no remote-tracking branch has, changed or untracked files, stashes. Git runs through the ship's
// GitRunner (runner.ts: hooks and fsmonitor off, no prompts) and every call is bounded by one deadline, so a
// drain never waits on a huge or broken repository: a workspace not scanned in time is reported as such,
// never as clean. The classification of git's output is pure (tested in unpushed-work.test.ts); this module
// reads, never writes, and never reads a remote's URL.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  messageOf,
  DRAIN_REPORT_MAX_BRANCHES,
  DRAIN_REPORT_MAX_WORKSPACES,
  hasUnpushedWork,
  isIdentifier,
  redactUrlCredentials,
  type DrainReport,
  type UnpushedBranch,
  type WorkspaceDrainFindings,
} from '../../protocol/index.js';
import type { GitRunner } from './runner.js';

export type GitRun = Pick<GitRunner, 'run'>;

/** Local branches looked at per workspace (an agent's workspace has a handful). */
const BRANCHES_SCANNED = 100;
/** Workspaces scanned at once: git is I/O bound, and the node's other pods still run. */
const CONCURRENCY = 4;

/** Tracked files changed and untracked paths, from `git status --porcelain=v1 -z`. */
export function countStatus(porcelain: string): { uncommittedFiles: number; untrackedFiles: number } {
  const entries = porcelain.split('\0');
  let uncommittedFiles = 0;
  let untrackedFiles = 0;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    if (code === '??') untrackedFiles++;
    else if (code === '!!') continue;
    else {
      uncommittedFiles++;
      // A rename or copy is followed by its source path as an entry of its own.
      if (code[0] === 'R' || code[0] === 'C') i++;
    }
  }
  return { uncommittedFiles, untrackedFiles };
}

/** One workspace's findings from what git said; `unpushed` in branch order, empty branches dropped. */
export function classifyWorkspace(input: {
  repo: string;
  name: string;
  status: string;
  unpushed: UnpushedBranch[];
  stashList: string;
  scanError?: string;
}): WorkspaceDrainFindings {
  const found: WorkspaceDrainFindings = {
    repo: input.repo,
    name: input.name,
    unpushedBranches: input.unpushed.filter((each) => each.commits > 0).slice(0, DRAIN_REPORT_MAX_BRANCHES),
    ...countStatus(input.status),
    stashes: input.stashList.split('\n').filter((line) => line.trim() !== '').length,
  };
  if (input.scanError) found.scanError = redactUrlCredentials(input.scanError).slice(0, 500);
  return found;
}

class ScanFailed extends Error {}

/** Scans one working tree; a failed or timed-out git call becomes `scanError` (what was read so far stays). */
export async function scanWorkspace(
  git: GitRun,
  workTree: string,
  key: { repo: string; name: string },
  deadline: number,
): Promise<WorkspaceDrainFindings> {
  const run = async (args: string[]): Promise<string> => {
    const timeoutMs = deadline - Date.now();
    if (timeoutMs <= 0) throw new ScanFailed('the drain deadline passed');
    const result = await git.run(args, { cwd: workTree, timeoutMs });
    if (result.code !== 0)
      throw new ScanFailed(`git ${args[0]} failed: ${result.stderr.trim().split('\n')[0] ?? `exit ${result.code}`}`);
    return result.stdout.toString('utf8');
  };
  let status = '';
  const unpushed: UnpushedBranch[] = [];
  let stashList = '';
  try {
    status = await run(['status', '--porcelain=v1', '-z', '--untracked-files=normal']);
    const refs = (await run(['for-each-ref', '--format=%(refname)', `--count=${BRANCHES_SCANNED}`, 'refs/heads/']))
      .split('\n')
      .filter(Boolean);
    for (const ref of refs) {
      const commits = Number((await run(['rev-list', '--count', ref, '--not', '--remotes'])).trim());
      if (commits > 0) unpushed.push({ branch: ref.replace(/^refs\/heads\//, ''), commits });
    }
    const hasStash = (await run(['for-each-ref', '--format=%(refname)', 'refs/stash'])).trim() !== '';
    if (hasStash) stashList = await run(['rev-list', '--walk-reflogs', 'refs/stash']);
  } catch (error) {
    return classifyWorkspace({
      ...key,
      status,
      unpushed,
      stashList,
      scanError: error instanceof ScanFailed ? error.message : `git could not run: ${messageOf(error)}`,
    });
  }
  return classifyWorkspace({ ...key, status, unpushed, stashList });
}

/** The `<repo>/<name>` working trees of a fleet directory (entries that are not identifiers are not workspaces). */
export async function listWorkspaces(
  fleetDirectory: string,
): Promise<Array<{ repo: string; name: string; path: string }>> {
  const found: Array<{ repo: string; name: string; path: string }> = [];
  const entries = async (dir: string) =>
    (await readdir(dir, { withFileTypes: true }).catch(() => [])).filter(
      (entry) => entry.isDirectory() && isIdentifier(entry.name),
    );
  for (const repo of await entries(fleetDirectory)) {
    for (const name of await entries(join(fleetDirectory, repo.name))) {
      const path = join(fleetDirectory, repo.name, name.name);
      if (
        await stat(join(path, '.git')).then(
          () => true,
          () => false,
        )
      )
        found.push({ repo: repo.name, name: name.name, path });
    }
  }
  return found;
}

/** Scans every workspace of the fleet by `deadline` (epoch ms); the report lists only those with unpushed work. */
export async function scanFleet(git: GitRun, fleetDirectory: string, deadline: number): Promise<DrainReport> {
  const workspaces = await listWorkspaces(fleetDirectory);
  const results: WorkspaceDrainFindings[] = [];
  let next = 0;
  const worker = async () => {
    while (next < workspaces.length) {
      const { repo, name, path } = workspaces[next++]!;
      results.push(await scanWorkspace(git, path, { repo, name }, deadline));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const flagged = results
    .filter(hasUnpushedWork)
    .sort((a, b) => `${a.repo}/${a.name}`.localeCompare(`${b.repo}/${b.name}`));
  return { workspaces: flagged.slice(0, DRAIN_REPORT_MAX_WORKSPACES), scanned: workspaces.length };
}
