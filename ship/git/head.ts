// Reads a working tree's branch straight from its git files, without spawning git: listing hundreds of
// workspaces must not cost a process each. Handles `.git` as a directory or as a `gitdir:` file.
// Synchronous on purpose: these are a few tiny local reads, and the thread-pool round trips of the async
// versions cost more than the reads themselves (see bench/ship-workspaces.ts).
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { isResourceExhaustion } from '../errors.js';

/** Shown as the branch of a detached HEAD (a tag checkout), as `git rev-parse --abbrev-ref HEAD` says. */
export const DETACHED_BRANCH = 'HEAD';

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (isResourceExhaustion(error)) throw error;
    return null;
  }
}

function headOf(workTree: string): string | null {
  const direct = readText(join(workTree, '.git', 'HEAD'));
  if (direct !== null) return direct;
  const pointer = readText(join(workTree, '.git'));
  const match = pointer === null ? null : /^gitdir: (.+)$/m.exec(pointer);
  if (!match) return null;
  const target = match[1]!.trim();
  return readText(join(isAbsolute(target) ? target : resolve(workTree, target), 'HEAD'));
}

/** The checked-out branch, `HEAD` when detached, or null when `workTree` is not a git working tree. */
export function readBranch(workTree: string): string | null {
  const head = headOf(workTree)?.trim();
  if (!head) return null;
  if (head.startsWith('ref: ')) {
    const ref = head.slice(5).trim();
    return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
  }
  return /^[0-9a-f]{40,64}$/.test(head) ? DETACHED_BRANCH : null;
}
