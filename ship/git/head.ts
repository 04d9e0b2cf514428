// Reads a working tree's branch straight from its git files, without spawning git: listing hundreds of
// workspaces must not cost a process each. Handles `.git` as a directory or as a `gitdir:` file.
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';

/** Shown as the branch of a detached HEAD (a tag checkout), as `git rev-parse --abbrev-ref HEAD` says. */
export const DETACHED_BRANCH = 'HEAD';

async function gitDirOf(workTree: string): Promise<string | null> {
  const dotGit = join(workTree, '.git');
  try {
    const pointer = await readFile(dotGit, 'utf8');
    const match = /^gitdir: (.+)$/m.exec(pointer);
    if (!match) return null;
    const target = match[1]!.trim();
    return isAbsolute(target) ? target : resolve(workTree, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') return dotGit;
    return null;
  }
}

/** The checked-out branch, `HEAD` when detached, or null when `workTree` is not a git working tree. */
export async function readBranch(workTree: string): Promise<string | null> {
  const gitDir = await gitDirOf(workTree);
  if (!gitDir) return null;
  let head: string;
  try {
    head = (await readFile(join(gitDir, 'HEAD'), 'utf8')).trim();
  } catch {
    return null;
  }
  if (head.startsWith('ref: ')) {
    const ref = head.slice(5).trim();
    return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
  }
  return /^[0-9a-f]{40,64}$/.test(head) ? DETACHED_BRANCH : null;
}
