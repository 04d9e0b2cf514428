// Diff numbers read through stamps (diff-numbers.ts, worktree-stamp.ts) against real git clones: an untouched
// settled tree costs no process, and every kind of change the numbers depend on is seen in the very next
// reading. The stamps' clock is set `SETTLED_MS` ahead, which is what waiting that long would do: every
// timestamp the tree holds is then old enough to trust.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, makeRemote } from '../../test/helpers/git-fixtures.js';
import { GitRunner } from '../git/runner.js';
import { DirectSpawner, type Spawner } from '../processes/spawner.js';
import { DiffNumbersReader } from './diff-numbers.js';
import { parseIndexListing, WorktreeStamps } from './worktree-stamp.js';

const SETTLED_MS = 5000;
let root: string;
let url: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-diff-numbers-'));
  url = makeRemote(root).url;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A clone of the fixture on `main` (tracking origin/main), read by a reader whose git calls are counted. */
function workspace(name: string, clock: () => number = () => Date.now() + SETTLED_MS) {
  const dir = join(root, name);
  execFileSync('git', ['clone', '--quiet', '--', url, dir]);
  const commands: string[] = [];
  const direct = new DirectSpawner();
  const counting: Spawner = {
    run: (request, abort) => {
      commands.push(request.what?.replace(/^git /, '') ?? request.command);
      return direct.run(request, abort);
    },
    close: () => direct.close(),
  };
  const runner = new GitRunner({ allowLocalRepos: true }, counting);
  const stamps = new WorktreeStamps({
    listIndex: async (at) => {
      const listed = await runner.run(['ls-files', '--stage', '-z'], { cwd: at });
      return listed.code === 0 ? listed.stdout : null;
    },
    globalFiles: [],
    now: clock,
  });
  const reader = new DiffNumbersReader(runner, stamps);
  /** Reads once; returns the numbers and the git subcommands that reading ran. */
  const read = async () => {
    commands.length = 0;
    const diff = await reader.read(dir);
    return { diff, ran: [...commands].filter((command) => command !== 'config').sort() };
  };
  return { dir, read };
}

describe('DiffNumbersReader', () => {
  it('reads an untouched settled tree without running git', async () => {
    const { read } = workspace('untouched');
    expect(await read()).toEqual({ diff: { added: 0, removed: 0, commits: 0 }, ran: ['diff', 'ls-files', 'rev-list'] });
    for (let i = 0; i < 5; i++) expect(await read()).toEqual({ diff: { added: 0, removed: 0, commits: 0 }, ran: [] });
  });

  it('sees an edit of the same size, and keeps the commit count while the refs stand still', async () => {
    const { dir, read } = workspace('edit');
    await read();
    writeFileSync(join(dir, 'src', 'app.txt'), 'one\ntwo\nTHREE\n');
    expect(await read()).toEqual({ diff: { added: 1, removed: 1, commits: 0 }, ran: ['diff'] });
    writeFileSync(join(dir, 'src', 'app.txt'), 'one\ntwo\nthree\n');
    expect(await read()).toEqual({ diff: { added: 0, removed: 0, commits: 0 }, ran: ['diff'] });
  });

  it('sees a staged file, a commit and a deleted file', async () => {
    const { dir, read } = workspace('commit');
    await read();
    writeFileSync(join(dir, 'new.txt'), 'a\nb\n');
    expect((await read()).diff).toEqual({ added: 0, removed: 0, commits: 0 });
    git(dir, 'add', 'new.txt');
    expect((await read()).diff).toEqual({ added: 2, removed: 0, commits: 0 });
    git(dir, 'commit', '--quiet', '-m', 'new');
    expect((await read()).diff).toEqual({ added: 0, removed: 0, commits: 1 });
    rmSync(join(dir, 'README.md'));
    expect((await read()).diff).toEqual({ added: 0, removed: 1, commits: 1 });
  });

  it('sees an untracked .gitattributes that makes a changed file binary', async () => {
    const { dir, read } = workspace('attributes');
    writeFileSync(join(dir, 'src', 'app.txt'), 'changed\n');
    expect((await read()).diff).toEqual({ added: 1, removed: 3, commits: 0 });
    writeFileSync(join(dir, '.gitattributes'), '*.txt binary\n');
    expect((await read()).diff).toEqual({ added: 0, removed: 0, commits: 0 });
  });

  it('sees the upstream move after a fetch', async () => {
    const { dir, read } = workspace('fetch');
    git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'local');
    expect((await read()).diff.commits).toBe(1);
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
    // The refs decide HEAD as well as the upstream: both parts are read again.
    expect(await read()).toEqual({ diff: { added: 0, removed: 0, commits: 0 }, ran: ['diff', 'rev-list'] });
  });

  it('runs git again for a tree changed too recently to trust its timestamps', async () => {
    const { read } = workspace('recent', Date.now);
    await read();
    // Every file was written by the clone just now: the stamp cannot vouch for it yet.
    expect((await read()).ran).toEqual(['diff', 'rev-list']);
  });
});

describe('parseIndexListing', () => {
  it('lists each path once and notices a submodule', () => {
    const listing = Buffer.from(
      ['100644 aa 1\tboth.txt', '100644 bb 2\tboth.txt', '160000 cc 0\tsub', ''].join('\x00'),
    );
    expect(parseIndexListing(listing)).toEqual({ paths: ['both.txt', 'sub'], gitlink: true });
  });
});
