// The fleet directory on disk: where `<repo>/<name>` lives, which entries are workspaces, and containment.
// Identifiers can hold no separator and are never `.`/`..`, so a joined path can only escape through a
// symlink; every lookup refuses a symlinked repo or workspace directory (docs/security.md H13).
import { lstatSync, readdirSync } from 'node:fs';
import { chmod, mkdir, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DISCOVERY_FILE_NAME, identifierProblem } from '../../protocol/index.js';
import { invalidRepoIdentifier, invalidWorkspaceIdentifier, isResourceExhaustion, pathEscape } from '../errors.js';
import { readBranch } from '../git/head.js';
import { endProcessesUsing } from '../processes/leftover-processes.js';

/** The ship's own dot-directory at the fleet root (trash for deletes); never a repo. */
export const SHIP_STATE_DIR = '.svc-ship';

function isEmptyDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory() && readdirSync(path).length === 0;
  } catch {
    return false;
  }
}
const RESERVED_ROOT_NAMES = new Set([SHIP_STATE_DIR, DISCOVERY_FILE_NAME]);

export interface WorkspaceEntry {
  repoName: string;
  name: string;
  branch: string;
}

export function checkKey(repo: string, name: string): void {
  const repoProblem = identifierProblem(repo);
  if (repoProblem !== null) throw invalidRepoIdentifier(repoProblem);
  const nameProblem = identifierProblem(name);
  if (nameProblem !== null) throw invalidWorkspaceIdentifier(nameProblem);
}

// Lookups and listing use synchronous metadata calls: a few local lstat/readdir calls cost microseconds,
// less than the thread-pool round trips of their async forms, and they are the ship's hottest path.
function kindOf(path: string): 'dir' | 'symlink' | 'other' | 'absent' {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (!stats) return 'absent';
  if (stats.isSymbolicLink()) return 'symlink';
  return stats.isDirectory() ? 'dir' : 'other';
}

function entries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (isResourceExhaustion(error)) throw error;
    return [];
  }
}

export class Fleet {
  /**
   * @param traversable the root and repo directories are 0711 (a session user reaches its workspace by path
   *   and lists nothing: docs/security.md H24); the ship's state directory stays 0700. Default: 0700 by umask.
   */
  constructor(
    readonly root: string,
    private readonly traversable = false,
  ) {}

  /** Makes the root traversable when asked (at start: the fleet may predate the option). */
  async prepare(): Promise<void> {
    if (this.traversable) await chmod(this.root, 0o711);
  }

  repoDir(repo: string): string {
    return join(this.root, repo);
  }

  workspaceDir(repo: string, name: string): string {
    return join(this.root, repo, name);
  }

  isReserved(repo: string): boolean {
    return RESERVED_ROOT_NAMES.has(repo);
  }

  /** The workspace directory if it exists and is reachable without symlinks; null when absent. */
  locate(repo: string, name: string): string | null {
    checkKey(repo, name);
    if (this.isReserved(repo)) return null;
    const repoKind = kindOf(this.repoDir(repo));
    if (repoKind === 'symlink') throw pathEscape(repo, name);
    if (repoKind !== 'dir') return null;
    const dir = this.workspaceDir(repo, name);
    const kind = kindOf(dir);
    if (kind === 'symlink') throw pathEscape(repo, name);
    return kind === 'dir' ? dir : null;
  }

  /** A workspace's branch, or null when the directory is absent or not a git working tree. */
  read(repo: string, name: string): WorkspaceEntry | null {
    const dir = this.locate(repo, name);
    if (!dir) return null;
    const branch = readBranch(dir);
    return branch === null ? null : { repoName: repo, name, branch };
  }

  /** Every workspace under the fleet; invalid or vanishing entries are skipped silently (spec). */
  list(): WorkspaceEntry[] {
    const found: WorkspaceEntry[] = [];
    for (const { repo, name } of this.keyDirectories()) {
      const branch = readBranch(this.workspaceDir(repo, name));
      if (branch !== null) found.push({ repoName: repo, name, branch });
    }
    return found.sort((a, b) =>
      a.repoName < b.repoName ? -1 : a.repoName > b.repoName ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  }

  /**
   * Claims `<repo>/<name>` for a clone: creates the repo directory if needed and the workspace directory
   * exclusively, so of two concurrent creates exactly one wins. Returns false when the destination exists.
   * An existing *empty* directory is claimed again: it is what a ship killed mid-create leaves (callers
   * hold the key's lock, so no create of this process is using it), and it can hold no one's work.
   */
  async claim(repo: string, name: string): Promise<boolean> {
    if (this.isReserved(repo)) return false;
    // A concurrent delete may remove the (empty) repo directory between our mkdirs: try again then.
    for (let attempt = 0; ; attempt++) {
      const repoDir = this.repoDir(repo);
      const repoKind = kindOf(repoDir);
      if (repoKind === 'symlink') throw pathEscape(repo, name);
      if (repoKind === 'other') return false;
      if (repoKind === 'absent') {
        await mkdir(repoDir).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
      }
      if (this.traversable) await chmod(repoDir, 0o711).catch(() => undefined);
      try {
        await mkdir(this.workspaceDir(repo, name));
        return true;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') return isEmptyDirectory(this.workspaceDir(repo, name));
        if (code === 'ENOTDIR') return false;
        if (code !== 'ENOENT' || attempt >= 3) throw error;
      }
    }
  }

  /** A fresh path under the ship's directory to clone into before the result is renamed into place. */
  async stagingPath(): Promise<string> {
    const staging = join(this.root, SHIP_STATE_DIR, 'staging');
    await mkdir(staging, { recursive: true, mode: 0o700 });
    return join(staging, `${Date.now()}-${randomBytes(6).toString('hex')}`);
  }

  /**
   * Clears what a killed ship left half done, at start: the clones it was running (their git processes
   * first, or they would go on writing), their staging directories, parked deletes, and the empty
   * directories its claims left, so a key is either a workspace or absent.
   */
  async clearLeftovers(): Promise<void> {
    const staging = join(this.root, SHIP_STATE_DIR, 'staging');
    if (kindOf(staging) !== 'absent') await endProcessesUsing(staging);
    for (const leftover of ['staging', 'trash'])
      await rm(join(this.root, SHIP_STATE_DIR, leftover), { recursive: true, force: true });
    const claims = [...this.keyDirectories()].filter(({ repo, name }) =>
      isEmptyDirectory(this.workspaceDir(repo, name)),
    );
    // rmdir removes nothing but an empty directory, whatever happens to it meanwhile.
    for (const { repo, name } of claims) {
      await rmdir(this.workspaceDir(repo, name)).catch(() => undefined);
      await rmdir(this.repoDir(repo)).catch(() => undefined);
    }
  }

  /** Every `<repo>/<name>` directory whose two names are valid identifiers (a workspace or not). */
  private *keyDirectories(): Generator<{ repo: string; name: string }> {
    for (const repo of entries(this.root)) {
      if (!repo.isDirectory() || this.isReserved(repo.name) || identifierProblem(repo.name) !== null) continue;
      for (const entry of entries(this.repoDir(repo.name))) {
        if (entry.isDirectory() && identifierProblem(entry.name) === null) yield { repo: repo.name, name: entry.name };
      }
    }
  }

  /**
   * Removes a workspace directory: first renamed into the ship's trash (atomic for every reader), then
   * deleted recursively. The repo directory is removed too once it is empty.
   */
  async remove(repo: string, name: string): Promise<void> {
    const dir = this.workspaceDir(repo, name);
    const trash = join(this.root, SHIP_STATE_DIR, 'trash');
    await mkdir(trash, { recursive: true, mode: 0o700 });
    const parked = join(trash, `${Date.now()}-${randomBytes(6).toString('hex')}`);
    await rename(dir, parked);
    await rm(parked, { recursive: true, force: true });
    await rmdir(this.repoDir(repo)).catch(() => undefined);
  }
}
