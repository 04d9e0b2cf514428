// Keeps what `svc launch` writes into a git checkout out of git (issue #15 item 8): the data and fleet
// directories it creates (`./.svc` without a file), and the svc.yaml and svc.secrets of `launch init`.
// Only for a path being created now (something that exists already is the user's to track or not), only
// inside a git work tree, only when git does not ignore it yet (`git check-ignore`, which knows every
// .gitignore, info/exclude and the global excludes file), and only by appending a missing `/<name>` line to
// the .gitignore beside it: nothing else in the file changes.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface Created {
  path: string;
  directory: boolean;
}

/** The outermost of `path` and its ancestors that does not exist yet (what creating `path` adds), or null. */
export function outermostMissing(path: string): string | null {
  if (existsSync(path)) return null;
  let top = path;
  while (!existsSync(dirname(top))) top = dirname(top);
  return top;
}

/** Runs git in `cwd`; true when it exits 0. */
function gitSucceeds(cwd: string, args: string[]): boolean {
  try {
    execFileSync('git', args, { cwd, stdio: 'ignore' });
    return true;
  } catch {
    return false; // a non-zero exit, or no git at all
  }
}

/** Appends the lines `created` needs; returns each .gitignore changed with the lines added to it. */
export function ignoreInCheckout(created: Created[]): Array<{ file: string; lines: string[] }> {
  const added = new Map<string, string[]>();
  for (const { path, directory } of created) {
    const parent = dirname(path);
    if (!existsSync(parent) || !gitSucceeds(parent, ['rev-parse', '--is-inside-work-tree'])) continue;
    // A directory pattern (`.svc/`) matches a path that does not exist yet only when asked with the slash.
    if (gitSucceeds(parent, ['check-ignore', '-q', '--', `${basename(path)}${directory ? '/' : ''}`])) continue;
    const file = join(parent, '.gitignore');
    const line = `/${basename(path)}${directory ? '/' : ''}`;
    const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (before.split('\n').some((existing) => existing.trim() === line)) continue;
    appendFileSync(file, `${before === '' || before.endsWith('\n') ? '' : '\n'}${line}\n`);
    added.set(file, [...(added.get(file) ?? []), line]);
  }
  return [...added].map(([file, lines]) => ({ file, lines }));
}
