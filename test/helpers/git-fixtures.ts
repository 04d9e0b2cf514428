// Real git fixtures: a bare repository (the "remote") with several branches, a tag and a binary file,
// built per test in a temp directory through the git CLI.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const IDENTITY = [
  '-c',
  'user.name=svc test',
  '-c',
  'user.email=test@svc.invalid',
  '-c',
  'init.defaultBranch=main',
  '-c',
  'commit.gpgsign=false',
];

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', [...IDENTITY, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface RemoteFixture {
  bare: string;
  url: string;
  /** A scratch clone used to build the remote, handy for pushing more commits. */
  work: string;
}

/**
 * `main` (README, a binary logo, src/app.txt), `feature` (one commit more), `other`, tag `v1.0` on main's
 * first commit, and HEAD → main.
 */
export function makeRemote(root: string, name = 'origin'): RemoteFixture {
  const bare = join(root, `${name}.git`);
  const work = join(root, `${name}-work`);
  mkdirSync(work, { recursive: true });
  git(root, 'init', '--quiet', '--bare', bare);
  git(work, 'init', '--quiet');
  writeFileSync(join(work, 'README.md'), '# fixture\n');
  git(work, 'add', '.');
  git(work, 'commit', '--quiet', '-m', 'first');
  git(work, 'tag', 'v1.0');
  writeFileSync(join(work, 'logo.bin'), Buffer.from([0, 1, 2, 3, 0, 255, 254, 0]));
  mkdirSync(join(work, 'src'));
  writeFileSync(join(work, 'src', 'app.txt'), 'one\ntwo\nthree\n');
  git(work, 'add', '.');
  git(work, 'commit', '--quiet', '-m', 'second');
  git(work, 'branch', 'other');
  git(work, 'switch', '--quiet', '-c', 'feature');
  writeFileSync(join(work, 'feature.txt'), 'feature work\n');
  git(work, 'add', '.');
  git(work, 'commit', '--quiet', '-m', 'feature');
  git(work, 'switch', '--quiet', 'main');
  git(work, 'remote', 'add', 'origin', bare);
  git(work, 'push', '--quiet', 'origin', 'main', 'feature', 'other', 'v1.0');
  git(bare, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  return { bare, url: `file://${bare}`, work };
}

/** An empty bare repository: its HEAD resolves to no commit. */
export function makeEmptyRemote(root: string, name = 'empty'): RemoteFixture {
  const bare = join(root, `${name}.git`);
  git(root, 'init', '--quiet', '--bare', bare);
  return { bare, url: `file://${bare}`, work: '' };
}
