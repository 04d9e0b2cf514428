// WorkspaceDiff for an active workspace: lines added/removed from a numstat diff of the working tree
// against HEAD (binary files skipped), and commits ahead of the upstream (0 without one).
import type { WorkspaceDiff } from '../../protocol/index.js';
import type { GitRunner } from '../git/runner.js';

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

export async function readDiffNumbers(git: GitRunner, dir: string): Promise<WorkspaceDiff> {
  const [numstat, ahead] = await Promise.all([
    git.run(['diff', '--numstat', '--no-ext-diff', '--no-textconv', '--no-renames', 'HEAD', '--'], { cwd: dir }),
    git.run(['rev-list', '--count', '@{upstream}..HEAD'], { cwd: dir }),
  ]);
  const lines = numstat.code === 0 ? parseNumstat(numstat.stdout.toString('utf8')) : { added: 0, removed: 0 };
  const commits = ahead.code === 0 ? Number(ahead.stdout.toString('utf8').trim()) || 0 : 0;
  return { ...lines, commits };
}
