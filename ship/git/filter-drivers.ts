// Filter drivers defined by a workspace's own git config. A `.gitattributes` line `* filter=x` with
// `filter.x.clean` (or `smudge`, `process`) in `.git/config` makes git run that command whenever it reads or
// writes the working tree: the ship's status, diff and branch switch would run whatever an agent or a
// hostile repo set there, inside the ship's process tree (docs/security.md H6). Every ship git call in a
// workspace therefore overrides the drivers its repository config defines with empty commands (git then
// passes content through). Drivers from the machine's own global or system config (git-lfs) are left as
// they are. The list is read with `git config`, which follows `include.path` like git itself, and is kept
// until `.git/config` changes.
import { statSync } from 'node:fs';
import { join } from 'node:path';

const DRIVER_KEYS = '^filter\\..+\\.(clean|smudge|process)$';
const REPOSITORY_SCOPES = new Set(['local', 'worktree']);
/** Directories remembered at most (staging clones and deleted workspaces come and go). */
const REMEMBERED = 1024;

interface Listing {
  code: number;
  stdout: Buffer;
}

export class FilterDriverGuard {
  private readonly known = new Map<string, { stamp: string; overrides: string[] }>();

  /** `list(args, cwd)` runs a plain git (no overrides) in `cwd`. */
  constructor(private readonly list: (args: readonly string[], cwd: string) => Promise<Listing>) {}

  /** `-c <driver key>=` for every filter command the repository at `cwd` defines itself. */
  async overridesFor(cwd: string): Promise<string[]> {
    const stamp = configStamp(cwd);
    const cached = this.known.get(cwd);
    if (cached && cached.stamp === stamp) return cached.overrides;
    const listed = await this.list(['config', '--show-scope', '--name-only', '--get-regexp', DRIVER_KEYS], cwd);
    const overrides: string[] = [];
    if (listed.code === 0) {
      for (const line of listed.stdout.toString('utf8').split('\n')) {
        const [scope, key] = line.split('\t');
        if (scope && key && REPOSITORY_SCOPES.has(scope)) overrides.push('-c', `${key}=`);
      }
    }
    this.known.delete(cwd);
    if (this.known.size >= REMEMBERED) this.known.delete(this.known.keys().next().value!);
    this.known.set(cwd, { stamp, overrides });
    return overrides;
  }
}

/** Changes whenever the repository's config file does (or appears, or goes). */
function configStamp(cwd: string): string {
  const stats = statSync(join(cwd, '.git', 'config'), { throwIfNoEntry: false, bigint: true });
  return stats ? `${stats.mtimeNs}:${stats.size}:${stats.ino}` : 'none';
}
