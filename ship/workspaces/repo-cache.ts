// One object store per repository on the ship (issue #29), so the tenth workspace of a repo costs a local
// copy and a small fetch instead of a full clone (docs/DECISIONS.md "Fan-out: the repo cache"). A bare
// repository per clone URL (without its credentials), under a directory of its own outside the fleet: no
// repo or workspace name can reach or collide with it. A create first brings the cache up to the remote's
// current refs by fetching with its own URL and credentials, so the remote decides every create as it would
// decide a plain clone; then the workspace is cloned from the cache with `--local`, whose objects are hard
// links (their own directory entries: deleting the cache or pruning it never takes them from a workspace).
// Fills happen in a scratch directory renamed into place, so a ship killed mid-fill leaves no half cache;
// one lock per cache lets ten creates at once fill it once, then each fetch what it lacks.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SplitUrl } from '../../protocol/index.js';
import type { GitRunner } from '../git/runner.js';
import { KeyLock } from './key-lock.js';

const FILL_PREFIX = '.fill-';

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
  ) {}

  /** The cache of a clone URL without credentials. */
  dirFor(url: string): string {
    return join(this.root, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.git`);
  }

  /**
   * Brings the cache of `split.url` to the remote's current branches, tags and default branch, fetching with
   * the create's own credentials; fills it when it is absent or unreadable. Returns its directory.
   */
  async refresh(split: SplitUrl, call: RemoteCall): Promise<string> {
    const dir = this.dirFor(split.url);
    return this.locks.run(dir, async () => {
      if (existsSync(dir) && (await this.readable(dir))) {
        await this.fetchInto(dir, split, call);
        return dir;
      }
      await rm(dir, { recursive: true, force: true });
      await mkdir(this.root, { recursive: true, mode: 0o700 });
      const scratch = join(this.root, `${FILL_PREFIX}${Date.now()}-${randomBytes(6).toString('hex')}`);
      try {
        const init = await this.git.run(['init', '--bare', '--quiet', scratch]);
        if (init.code !== 0) throw new Error(`could not create the repo cache ${scratch}: ${init.stderr.trim()}`);
        // Never gc'd behind a create's back: objects a clone is linking must stay until it has them.
        await this.git.run(['config', 'gc.auto', '0'], { cwd: scratch });
        await this.fetchInto(scratch, split, call);
        await rename(scratch, dir);
      } catch (error) {
        await rm(scratch, { recursive: true, force: true });
        throw error;
      }
      return dir;
    });
  }

  /** Forgets the cache of `url` (a clone from it failed): the next create fills it again. */
  async discard(url: string): Promise<void> {
    const dir = this.dirFor(url);
    await this.locks.run(dir, () => rm(dir, { recursive: true, force: true }));
  }

  /** Removes the scratch directories of fills a killed ship left (at start). */
  async clearLeftovers(): Promise<void> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    for (const name of names) if (name.startsWith(FILL_PREFIX)) await rm(join(this.root, name), { recursive: true, force: true });
  }

  private async readable(dir: string): Promise<boolean> {
    return (await this.git.run(['rev-parse', '--git-dir'], { cwd: dir })).code === 0;
  }

  /** The remote's branches and tags into `dir` (pruned), and its HEAD as the cache's HEAD. */
  private async fetchInto(dir: string, split: SplitUrl, call: RemoteCall): Promise<void> {
    const options = { cwd: dir, timeoutMs: call.timeoutMs, env: call.env };
    const head = await this.git.run([...call.settings, 'ls-remote', '--symref', '--', split.url, 'HEAD'], options);
    if (head.code !== 0) throw new RemoteFailed(head.stderr);
    const fetched = await this.git.run(
      [...call.settings, 'fetch', '--quiet', '--prune', '--no-tags', '--', split.url, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'],
      options,
    );
    if (fetched.code !== 0) throw new RemoteFailed(fetched.stderr);
    const symbolic = /^ref: (refs\/heads\/\S+)\tHEAD$/m.exec(head.stdout.toString('utf8'))?.[1];
    if (symbolic) await this.git.run(['symbolic-ref', 'HEAD', symbolic], { cwd: dir });
  }
}
