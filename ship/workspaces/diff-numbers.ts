// WorkspaceDiff for an active workspace: lines added/removed from a numstat diff of the working tree
// against HEAD (binary files skipped), and commits ahead of the upstream (0 without one). Each reading is
// live: the tree is stamped first (worktree-stamp.ts), and git runs for whatever part of the answer the
// stamp cannot vouch for. A tree untouched since the last reading was settled costs no process; an edited
// tree costs one (the numstat), with the commit count kept while the refs are unchanged. What is kept is a
// fact about exact inputs (these files, these refs), never an answer from an earlier moment: the spec's
// status stays "proxied live" (docs/DECISIONS.md, "Status diff numbers without a process").
import type { WorkspaceDiff } from '../../protocol/index.js';
import type { GitRunner } from '../git/runner.js';
import { WorktreeStamps, gitGlobalFiles, type TreeStamp } from './worktree-stamp.js';

export function parseNumstat(text: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of text.split('\n')) {
    const [a, r] = line.split('\t');
    if (a === undefined || r === undefined || a === '-' || r === '-') continue;
    added += Number(a) || 0;
    removed += Number(r) || 0;
  }
  return { added, removed };
}

/** The last reading of one tree, with the stamp taken before git read it. */
interface Known {
  stamp: TreeStamp;
  lines: { added: number; removed: number };
  commits: number;
}

/** Directories remembered at most (as worktree-stamp.ts). */
const REMEMBERED = 1024;

export class DiffNumbersReader {
  private readonly known = new Map<string, Known>();
  private readonly stamps: WorktreeStamps;

  constructor(
    private readonly git: GitRunner,
    stamps?: WorktreeStamps,
  ) {
    this.stamps =
      stamps ??
      new WorktreeStamps({
        listIndex: async (dir) => {
          const listed = await git.run(['ls-files', '--stage', '-z'], { cwd: dir });
          return listed.code === 0 ? listed.stdout : null;
        },
        globalFiles: gitGlobalFiles(process.env),
      });
  }

  /** Ends the stamps' stat thread (the ship's shutdown). */
  close(): void {
    this.stamps.close();
  }

  async read(dir: string): Promise<WorkspaceDiff> {
    // Taken before git reads anything: a change made while git runs moves the next stamp, never this one.
    const stamp = await this.stamps.take(dir);
    const known = this.known.get(dir);
    const refsKept = stamp !== null && known?.stamp.refsSettled === true && known.stamp.refs === stamp.refs;
    const treeKept = refsKept && known.stamp.treeSettled && known.stamp.tree === stamp.tree;
    const [lines, commits] = await Promise.all([
      treeKept ? known.lines : this.readLines(dir),
      refsKept ? known.commits : this.readCommitsAhead(dir),
    ]);
    this.known.delete(dir);
    if (stamp) {
      if (this.known.size >= REMEMBERED) this.known.delete(this.known.keys().next().value!);
      this.known.set(dir, { stamp, lines, commits });
    }
    return { ...lines, commits };
  }

  private async readLines(dir: string): Promise<{ added: number; removed: number }> {
    const numstat = await this.git.run(
      ['diff', '--numstat', '--no-ext-diff', '--no-textconv', '--no-renames', 'HEAD', '--'],
      { cwd: dir },
    );
    return numstat.code === 0 ? parseNumstat(numstat.stdout.toString('utf8')) : { added: 0, removed: 0 };
  }

  private async readCommitsAhead(dir: string): Promise<number> {
    const ahead = await this.git.run(['rev-list', '--count', '@{upstream}..HEAD'], { cwd: dir });
    return ahead.code === 0 ? Number(ahead.stdout.toString('utf8').trim()) || 0 : 0;
  }
}
