// The drain scan's classification (issue #30): git's porcelain read as counts, and a fleet of real working
// trees read as the report: a local commit, a changed and an untracked file, a stash are found; a clean
// clone and a branch whose commits a remote has are not; a hook in the workspace never runs.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeFindings } from '../../protocol/index.js';
import { git, makeRemote } from '../../test/helpers/git-fixtures.js';
import { makeTempRoot, removeRoot } from '../../test/helpers/ship.js';
import { GitRunner } from './runner.js';
import { classifyWorkspace, countStatus, scanFleet } from './unpushed-work.js';

describe('countStatus', () => {
  it.each([
    { porcelain: '', counts: { uncommittedFiles: 0, untrackedFiles: 0 } },
    { porcelain: ' M a.txt\0?? b.txt\0?? dir/\0', counts: { uncommittedFiles: 1, untrackedFiles: 2 } },
    { porcelain: 'M  staged.txt\0MM both.txt\0 D gone.txt\0', counts: { uncommittedFiles: 3, untrackedFiles: 0 } },
    // A rename's source path is an entry of its own, not a second file; ignored files are not work.
    { porcelain: 'R  new name.txt\0old name.txt\0!! build/\0', counts: { uncommittedFiles: 1, untrackedFiles: 0 } },
  ])('$porcelain', ({ porcelain, counts }) => {
    expect(countStatus(porcelain)).toEqual(counts);
  });
});

describe('classifyWorkspace', () => {
  it('keeps the branches with commits, counts the stashes, and words it once', () => {
    const found = classifyWorkspace({
      repo: 'app',
      name: 'ws',
      status: ' M a\0?? b\0',
      unpushed: [
        { branch: 'main', commits: 2 },
        { branch: 'topic', commits: 0 },
      ],
      stashList: 'abc\ndef\n',
    });
    expect(found).toEqual({
      repo: 'app',
      name: 'ws',
      unpushedBranches: [{ branch: 'main', commits: 2 }],
      uncommittedFiles: 1,
      untrackedFiles: 1,
      stashes: 2,
    });
    expect(describeFindings(found)).toBe('2 unpushed commits on main, 1 uncommitted file, 1 untracked file, 2 stashes');
  });

  it('redacts a credentialed URL from a scan error', () => {
    const found = classifyWorkspace({
      repo: 'app',
      name: 'ws',
      status: '',
      unpushed: [],
      stashList: '',
      scanError: 'git failed: https://user:s3cret@forge.example/x.git',
    });
    expect(found.scanError).toBe('git failed: https://***@forge.example/x.git');
  });
});

describe('scanFleet', () => {
  let root: string;
  afterEach(async () => removeRoot(root));

  it('reports the workspaces with local commits, changes or stashes, and not the clean ones', async () => {
    root = await makeTempRoot('svc-test-unpushed-');
    const remote = makeRemote(root);
    const fleet = join(root, 'fleet');
    mkdirSync(join(fleet, 'app'), { recursive: true });
    const clone = (name: string) => {
      git(join(fleet, 'app'), 'clone', '--quiet', remote.bare, name);
      return join(fleet, 'app', name);
    };
    clone('clean');
    // Its commits are all on the remote's branches: nothing unpushed.
    git(clone('pushed-branch'), 'switch', '--quiet', '-c', 'copy', 'origin/feature');
    const busy = clone('busy');
    writeFileSync(join(busy, 'new.txt'), 'work\n');
    git(busy, 'add', 'new.txt');
    git(busy, 'commit', '--quiet', '-m', 'local');
    writeFileSync(join(busy, 'README.md'), 'changed\n');
    writeFileSync(join(busy, 'scratch.txt'), 'untracked\n');
    // A hook in the workspace must not run when the scan does.
    const marker = join(root, 'hook-ran');
    writeFileSync(join(busy, '.git', 'hooks', 'post-index-change'), `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(join(busy, '.git', 'hooks', 'post-index-change'), 0o755);
    const stashed = clone('stashed');
    writeFileSync(join(stashed, 'README.md'), 'stash me\n');
    git(stashed, 'stash', '--quiet');
    mkdirSync(join(fleet, 'app', 'not-a-repo'));

    const report = await scanFleet(new GitRunner({ allowLocalRepos: true }), fleet, Date.now() + 20_000);
    expect(report).toEqual({
      scanned: 4,
      workspaces: [
        {
          repo: 'app',
          name: 'busy',
          unpushedBranches: [{ branch: 'main', commits: 1 }],
          uncommittedFiles: 1,
          untrackedFiles: 1,
          stashes: 0,
        },
        { repo: 'app', name: 'stashed', unpushedBranches: [], uncommittedFiles: 0, untrackedFiles: 0, stashes: 1 },
      ],
    });
    expect(existsSync(marker)).toBe(false);
  });

  it('reports a workspace it could not scan by the deadline, never as clean', async () => {
    root = await makeTempRoot('svc-test-unpushed-');
    const remote = makeRemote(root);
    mkdirSync(join(root, 'fleet', 'app'), { recursive: true });
    git(join(root, 'fleet', 'app'), 'clone', '--quiet', remote.bare, 'late');
    const report = await scanFleet(new GitRunner({ allowLocalRepos: true }), join(root, 'fleet'), Date.now() - 1);
    expect(report.workspaces).toEqual([
      expect.objectContaining({ name: 'late', scanError: 'the drain deadline passed' }),
    ]);
  });
});
