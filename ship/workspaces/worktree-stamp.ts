// Stamps of what a working tree's diff numbers depend on, read from file metadata without running git, so a
// status read of a tree nobody touched costs no process. Two parts:
//   refs: the repository's own files that decide HEAD, its upstream and the commits between them (HEAD,
//         packed-refs, every loose ref, config, shallow, grafts, alternates), and the user's global git
//         config and attributes;
//   tree: the index (by identity: git replaces it by rename), every tracked file, and a `.gitattributes`
//         in every directory holding one (git reads untracked ones too).
// Each part is the lstat of those paths (inode, mode, size, mtime, ctime), hashed; the tree's many calls run
// on a worker thread (tree-stat-thread.ts), never on the ship's main thread. Any write,
// rename or chmod moves a file's ctime, which no user call can set back, so an equal stamp means untouched,
// exactly as git's own diff trusts its index's stat data. Like git's racy-clean rule, a stamp is `settled`
// only when every timestamp in it is older than `settleMs` before it was taken: a file changed within the
// filesystem's timestamp granularity of the stamp could change again without its stamp moving.
// Where a stamp cannot vouch for the tree it is null and the caller runs git: `.git` not a directory
// (linked worktrees), a reftable repository, a submodule (its checkout is not in any stat), or more tracked
// files than stating them beats git's own threaded stat (`maxEntries`). The tracked list comes from
// `git ls-files`, run again only when the index changes. Known gap, as in filter-drivers.ts: config pulled in
// through `include.path` is not stamped.
import { createHash, type Hash } from 'node:crypto';
import { lstatSync, readdirSync, type BigIntStats, type Dirent } from 'node:fs';
import { dirname, join } from 'node:path';
import { TreeStatThread, type StatList } from './tree-stat-thread.js';

export interface TreeStamp {
  refs: string;
  refsSettled: boolean;
  tree: string;
  treeSettled: boolean;
}

/**
 * What a stamp lists for one index: every path it stats (the tracked files, then each possible
 * `.gitattributes`), or null for a tree it cannot stamp.
 */
interface Tracked {
  index: string;
  stamped: StatList | null;
}

export interface WorktreeStampOptions {
  /** `git ls-files --stage -z` in `dir`: its stdout, or null when git failed. */
  listIndex: (dir: string) => Promise<Buffer | null>;
  /** Global git files outside the repository that change a diff (gitGlobalFiles). */
  globalFiles: readonly string[];
  now?: () => number;
  /** At least the coarsest timestamp granularity of the filesystems in use (2 s: FAT; ext4 and tmpfs are finer). */
  settleMs?: number;
  maxEntries?: number;
}

/** Repository files (under `.git`) besides loose refs that decide HEAD, the upstream or the commit graph. */
const REPOSITORY_FILES = [
  'HEAD',
  'packed-refs',
  'config',
  'shallow',
  'info/grafts',
  'info/attributes',
  'objects/info/alternates',
];
/** Directories remembered at most (staging clones and deleted workspaces come and go). */
const REMEMBERED = 1024;
const GITLINK_MODE = '160000';

/** The global git config and attributes files git reads for a user with this environment. */
export function gitGlobalFiles(env: NodeJS.ProcessEnv): string[] {
  const files: string[] = [];
  if (env.HOME) files.push(join(env.HOME, '.gitconfig'));
  const xdg = env.XDG_CONFIG_HOME || (env.HOME ? join(env.HOME, '.config') : '');
  if (xdg) files.push(join(xdg, 'git', 'config'), join(xdg, 'git', 'attributes'));
  return files;
}

/** Folds one path's lstat into `hash`; returns its newest timestamp in ms (-Infinity when it is missing). */
function addStat(hash: Hash, path: string, stats: BigIntStats | undefined): number {
  if (!stats) {
    hash.update(`${path}\0-\0`);
    return -Infinity;
  }
  hash.update(`${path}\0${stats.ino}:${stats.mode}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}\0`);
  // biome-ignore lint/complexity/useMathMinMax: bigints, which Math.max does not take
  return Number((stats.mtimeNs > stats.ctimeNs ? stats.mtimeNs : stats.ctimeNs) / 1_000_000n);
}

function lstatOrNone(path: string): BigIntStats | undefined {
  return lstatSync(path, { bigint: true, throwIfNoEntry: false });
}

/** Every loose ref file under `.git/refs`, depth first, in a stable order. */
function looseRefs(directory: string, into: string[] = []): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch {
    return into;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) looseRefs(path, into);
    else into.push(path);
  }
  return into;
}

/** Index identity: git writes index.lock and renames it, so a new index is a new inode. */
function indexIdentity(stats: BigIntStats | undefined): string {
  return stats ? `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}` : 'none';
}

export function parseIndexListing(stdout: Buffer): { paths: string[]; gitlink: boolean } {
  const paths: string[] = [];
  let gitlink = false;
  for (const record of stdout.toString('utf8').split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    if (record.startsWith(GITLINK_MODE)) gitlink = true;
    const path = record.slice(tab + 1);
    // An unmerged path is listed once per stage.
    if (paths.at(-1) !== path) paths.push(path);
  }
  return { paths, gitlink };
}

/** Every directory holding a tracked path, and each of theirs up to the top ('.'). */
function ancestorsOf(paths: readonly string[]): Set<string> {
  const directories = new Set<string>(['.']);
  for (const path of paths) {
    for (let directory = dirname(path); !directories.has(directory); directory = dirname(directory))
      directories.add(directory);
  }
  return directories;
}

export class WorktreeStamps {
  private readonly tracked = new Map<string, Tracked>();
  private readonly now: () => number;
  private readonly settleMs: number;
  private readonly maxEntries: number;
  /** Where the tree's lstat calls run: one thread per ship, ended by `close()`. */
  private readonly statThread = new TreeStatThread();
  private nextList = 0;

  constructor(private readonly options: WorktreeStampOptions) {
    this.now = options.now ?? Date.now;
    this.settleMs = options.settleMs ?? 2000;
    this.maxEntries = options.maxEntries ?? 2000;
  }

  /** Ends the stat thread: later stamps are null (the caller runs git). */
  close(): void {
    this.statThread.close();
  }

  /** The working tree at `dir` stamped now, or null when only git can tell whether it changed. */
  async take(dir: string): Promise<TreeStamp | null> {
    const takenAt = this.now();
    const gitDir = join(dir, '.git');
    if (!lstatOrNone(gitDir)?.isDirectory() || lstatOrNone(join(gitDir, 'reftable'))) return null;

    // The small repository part is read synchronously: a few stats cost less than thread-pool round trips.
    const refs = createHash('sha1');
    let refsNewest = -Infinity;
    for (const path of [
      ...REPOSITORY_FILES.map((file) => join(gitDir, file)),
      ...looseRefs(join(gitDir, 'refs')),
      ...this.options.globalFiles,
    ]) {
      refsNewest = Math.max(refsNewest, addStat(refs, path, lstatOrNone(path)));
    }

    const indexPath = join(gitDir, 'index');
    const indexStats = lstatOrNone(indexPath);
    const stamped = await this.statListOf(dir, indexIdentity(indexStats));
    if (!stamped) return null;
    const tree = createHash('sha1');
    const indexNewest = addStat(tree, indexPath, indexStats);
    // A failed thread leaves the tree to git, as any tree a stamp cannot vouch for.
    const files = await this.statThread.stat(stamped).catch(() => null);
    if (!files) return null;
    tree.update(files.digest);
    const treeNewest = Math.max(indexNewest, files.newest);

    const settledBefore = takenAt - this.settleMs;
    return {
      refs: refs.digest('hex'),
      refsSettled: refsNewest < settledBefore,
      tree: tree.digest('hex'),
      treeSettled: treeNewest < settledBefore,
    };
  }

  /** What a stamp of `dir` stats, listed again only when the index is a new one; null when not stampable. */
  private async statListOf(dir: string, index: string): Promise<StatList | null> {
    const known = this.tracked.get(dir);
    if (known && known.index === index) return known.stamped;
    const stdout = await this.options.listIndex(dir);
    if (stdout === null) return null;
    const { paths, gitlink } = parseIndexListing(stdout);
    const stampable = !gitlink && paths.length > 0 && paths.length <= this.maxEntries;
    // An unstampable tree is remembered too, so its index is not listed again on every read.
    const stamped: StatList | null = stampable
      ? {
          id: ++this.nextList,
          paths: [
            ...paths.map((path) => join(dir, path)),
            ...[...ancestorsOf(paths)].map((directory) => join(dir, directory, '.gitattributes')),
          ],
        }
      : null;
    this.tracked.delete(dir);
    if (this.tracked.size >= REMEMBERED) this.tracked.delete(this.tracked.keys().next().value!);
    this.tracked.set(dir, { index, stamped });
    return stamped;
  }
}
