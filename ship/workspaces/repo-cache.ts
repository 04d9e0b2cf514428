// One object store per repository on the ship (issue #29), so the tenth workspace of a repo costs a local
// copy and a small fetch instead of a full clone (docs/DECISIONS.md "Fan-out: the repo cache"). A bare
// repository per clone URL (without its credentials), under a directory of its own outside the fleet: no
// repo or workspace name can reach or collide with it. A create first brings the cache up to the remote's
// current refs by fetching with its own URL and credentials, so the remote decides every create as it would
// decide a plain clone; then the workspace is cloned from the cache with `--local`, whose objects are hard
// links (their own directory entries: deleting the cache or pruning it never takes them from a workspace).
// Fills happen in a scratch directory renamed into place, so a ship killed mid-fill leaves no half cache;
// one lock per cache lets ten creates at once fill it once; each later create fetches only when the
// remote's refs have moved.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SplitUrl } from '../../protocol/index.js';
import type { GitRunner } from '../git/runner.js';
import { KeyLock } from './key-lock.js';

const FILL_PREFIX = '.fill-';
/** In each cache: the URL it holds (without credentials), and a file touched at every use. */
const URL_FILE = 'svc-url';
const USE_FILE = 'svc-last-use';

/** What the ship's metrics say of each cache (svc_repo_cache_*). */
export interface RepoCacheInfo {
  url: string;
  bytes: number;
  /** When a create last used it (ms since the epoch). */
  lastUse: number;
}

/** Counts each create's use of a cache: a hit found it, a miss filled it. */
export interface RepoCacheObserver {
  hit(): void;
  miss(): void;
}

/** How a create's git calls are bounded (the clone limits) and authenticated (the URL's credentials). */
export interface RemoteCall {
  /** Leading `-c` settings: the stall limit. */
  settings: readonly string[];
  timeoutMs: number;
  env: Record<string, string>;
}

/** A git step against the remote failed: git's stderr, for the caller's clone-failure message. */
export class RemoteFailed extends Error {
  constructor(readonly stderr: string) {
    super(stderr);
  }
}

export class RepoCache {
  private readonly locks = new KeyLock();

  constructor(
    readonly root: string,
    private readonly git: GitRunner,
    private readonly observer?: RepoCacheObserver,
  ) {}

  /** The cache of a clone URL without credentials. */
  dirFor(url: string): string {
    return join(this.root, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.git`);
  }

  /**
   * Brings the cache of `split.url` to the remote's current branches, tags and default branch, with the
   * create's own credentials; fills it when it is absent or unreadable. Returns its directory.
   *
   * A cache that is there costs this create its own ref advertisement (`ls-remote`, outside the lock, so
   * creates at once ask together) and a fetch only when the remote's refs differ from the cache's. A fill
   * asks for the advertisement alongside its fetch. Either way the remote has accepted this create's
   * credentials before the cache is used.
   */
  async refresh(split: SplitUrl, call: RemoteCall): Promise<string> {
    const dir = this.dirFor(split.url);
    // A cache removed between the look and the lock (idle, or a failed clone's discard) sends the create
    // round again; after two such rounds it fills the cache whatever it finds.
    for (let round = 0; round < 2; round++) {
      if (existsSync(dir) && (await this.refreshPresent(dir, split, call))) return dir;
      const filled = await this.locks.run(dir, async () => {
        if (await this.present(dir)) return false;
        await this.fill(dir, split, call);
        return true;
      });
      if (filled) return dir;
    }
    await this.locks.run(dir, () => this.fill(dir, split, call));
    return dir;
  }

  /**
   * Brings a cache that is there to the advertised refs: the advertisement outside the lock, a fetch only
   * when the refs differ. False when the cache went away before the lock was ours.
   */
  private async refreshPresent(dir: string, split: SplitUrl, call: RemoteCall): Promise<boolean> {
    const advertised = await this.advertisement(split, call);
    return this.locks.run(dir, async () => {
      if (!(await this.present(dir))) return false;
      this.observer?.hit();
      if (!(await this.holds(dir, advertised))) await this.fetchInto(dir, split, call);
      await this.pointHead(dir, advertised.head);
      await writeFile(join(dir, USE_FILE), `${new Date().toISOString()}\n`);
      return true;
    });
  }

  /** A cache git can read is at `dir`. */
  private async present(dir: string): Promise<boolean> {
    return existsSync(dir) && (await this.readable(dir));
  }

  /** A new cache for `split.url` at `dir`, built in a scratch directory and renamed into place. */
  private async fill(dir: string, split: SplitUrl, call: RemoteCall): Promise<void> {
    this.observer?.miss();
    await rm(dir, { recursive: true, force: true });
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    const scratch = join(this.root, `${FILL_PREFIX}${Date.now()}-${randomBytes(6).toString('hex')}`);
    try {
      const init = await this.git.run(['init', '--bare', '--quiet', scratch]);
      if (init.code !== 0) throw new Error(`could not create the repo cache ${scratch}: ${init.stderr.trim()}`);
      // Never gc'd behind a create's back: objects a clone is linking must stay until it has them.
      await this.git.run(['config', 'gc.auto', '0'], { cwd: scratch });
      const [advertised, fetched] = await Promise.allSettled([
        this.advertisement(split, call),
        this.fetchInto(scratch, split, call),
      ]);
      if (advertised.status === 'rejected') throw advertised.reason;
      if (fetched.status === 'rejected') throw fetched.reason;
      await this.pointHead(scratch, advertised.value.head);
      await writeFile(join(scratch, URL_FILE), `${split.url}\n`);
      await writeFile(join(scratch, USE_FILE), `${new Date().toISOString()}\n`);
      await rename(scratch, dir);
    } catch (error) {
      await rm(scratch, { recursive: true, force: true });
      throw error;
    }
  }

  /** Forgets the cache of `url` (a clone from it failed): the next create fills it again. */
  async discard(url: string): Promise<void> {
    const dir = this.dirFor(url);
    await this.locks.run(dir, () => rm(dir, { recursive: true, force: true }));
  }

  /** Every cache: its URL, size on disk and last use. */
  async list(): Promise<RepoCacheInfo[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const caches: RepoCacheInfo[] = [];
    for (const name of names.filter((entry) => entry.endsWith('.git'))) {
      const dir = join(this.root, name);
      try {
        const url = (await readFile(join(dir, URL_FILE), 'utf8')).trim();
        caches.push({ url, bytes: await diskUsage(dir), lastUse: (await stat(join(dir, USE_FILE))).mtimeMs });
      } catch {
        // Being filled again, or removed meanwhile.
      }
    }
    return caches;
  }

  /** Removes the caches no create has used for `maxIdleMs`; says how many. */
  async removeUnused(maxIdleMs: number, now = Date.now()): Promise<number> {
    let removed = 0;
    for (const cache of await this.list()) {
      if (now - cache.lastUse <= maxIdleMs) continue;
      const dir = this.dirFor(cache.url);
      await this.locks.run(dir, async () => {
        // Used again while it waited for the lock: kept.
        const lastUse = await stat(join(dir, USE_FILE)).then(
          (found) => found.mtimeMs,
          () => 0,
        );
        if (now - lastUse <= maxIdleMs) return;
        await rm(dir, { recursive: true, force: true });
        removed++;
      });
    }
    return removed;
  }

  /** Removes the scratch directories of fills a killed ship left (at start). */
  async clearLeftovers(): Promise<void> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    for (const name of names)
      if (name.startsWith(FILL_PREFIX)) await rm(join(this.root, name), { recursive: true, force: true });
  }

  private async readable(dir: string): Promise<boolean> {
    return (await this.git.run(['rev-parse', '--git-dir'], { cwd: dir })).code === 0;
  }

  /** The remote's branches and tags, and the branch its HEAD names, as this create's credentials see them. */
  private async advertisement(split: SplitUrl, call: RemoteCall): Promise<Advertisement> {
    const listed = await this.git.run(
      [...call.settings, 'ls-remote', '--symref', '--', split.url, 'HEAD', 'refs/heads/*', 'refs/tags/*'],
      { timeoutMs: call.timeoutMs, env: call.env },
    );
    if (listed.code !== 0) throw new RemoteFailed(listed.stderr);
    return parseAdvertisement(listed.stdout.toString('utf8'));
  }

  /** Whether the cache's branches and tags are exactly the advertised ones. */
  private async holds(dir: string, advertised: Advertisement): Promise<boolean> {
    const listed = await this.git.run(
      ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads', 'refs/tags'],
      { cwd: dir },
    );
    return listed.code === 0 && listed.stdout.toString('utf8').trim() === advertised.refs;
  }

  /** The remote's branches and tags into `dir`, those it no longer has pruned. */
  private async fetchInto(dir: string, split: SplitUrl, call: RemoteCall): Promise<void> {
    const fetched = await this.git.run(
      [
        ...call.settings,
        'fetch',
        '--quiet',
        '--prune',
        '--no-tags',
        '--',
        split.url,
        '+refs/heads/*:refs/heads/*',
        '+refs/tags/*:refs/tags/*',
      ],
      { cwd: dir, timeoutMs: call.timeoutMs, env: call.env },
    );
    if (fetched.code !== 0) throw new RemoteFailed(fetched.stderr);
  }

  /** The cache's HEAD names the remote's default branch (a clone of the cache starts there); git only to change it. */
  private async pointHead(dir: string, head: string | null): Promise<void> {
    if (!head) return;
    const current = await readFile(join(dir, 'HEAD'), 'utf8').catch(() => '');
    if (current.trim() !== `ref: ${head}`) await this.git.run(['symbolic-ref', 'HEAD', head], { cwd: dir });
  }
}

/** A remote's refs as `ls-remote` lists them: `<sha> <ref>` lines sorted as `for-each-ref` sorts them. */
interface Advertisement {
  refs: string;
  head: string | null;
}

function parseAdvertisement(listing: string): Advertisement {
  let head: string | null = null;
  const refs: Array<[string, string]> = [];
  for (const line of listing.split('\n')) {
    const symbolic = /^ref: (refs\/heads\/\S+)\tHEAD$/.exec(line);
    if (symbolic) head = symbolic[1]!;
    const [sha, ref] = line.split('\t');
    if (sha && ref && /^refs\/(heads|tags)\//.test(ref) && !ref.endsWith('^{}')) refs.push([sha, ref]);
  }
  refs.sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { refs: refs.map(([sha, ref]) => `${sha} ${ref}`).join('\n'), head };
}

/** Bytes a directory's files take on disk (blocks), each hard-linked file counted once. */
async function diskUsage(dir: string): Promise<number> {
  const seen = new Set<number>();
  let bytes = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const found = await stat(join(entry.parentPath, entry.name)).catch(() => null);
    if (!found || seen.has(found.ino)) continue;
    seen.add(found.ino);
    bytes += found.blocks * 512;
  }
  return bytes;
}
