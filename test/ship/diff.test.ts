// GET …/diff: each option alone and together, omitted keys not defaulted, untracked synthesis, raw text,
// JSON errors, and option injection through query values.
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, makeRemote } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';

let root: string;
let ship: TestShip;
let dir: string;

const diff = (query = '') => call(ship.url, 'GET', path('d', 'w', `/diff${query}`));

beforeAll(async () => {
  root = await makeTempRoot();
  const remote = makeRemote(root);
  ship = await startTestShip(root);
  await call(ship.url, 'POST', '/workspaces', { url: remote.url, repoName: 'd', name: 'w', branch: 'main' });
  dir = join(ship.ship.fleetDirectory, 'd', 'w');
  // One staged change, one unstaged change, a binary change and untracked files of each kind.
  writeFileSync(join(dir, 'README.md'), '# fixture\nstaged line\n');
  git(dir, 'add', 'README.md');
  writeFileSync(join(dir, 'src', 'app.txt'), 'one\nTWO\nthree\n');
  writeFileSync(join(dir, 'new.txt'), 'alpha\nbeta\n');
  writeFileSync(join(dir, 'no-newline.txt'), 'tail');
  writeFileSync(join(dir, 'blob.bin'), Buffer.from([1, 0, 2, 0]));
  symlinkSync('/etc/hostname', join(dir, 'outward-link'));
  execFileSync('mkfifo', [join(dir, 'pipe')]);
});
afterAll(async () => {
  await ship.stop();
  await removeRoot(root);
});

const gitDiff = (...args: string[]) =>
  execFileSync('git', ['diff', '--no-color', ...args], { cwd: dir, encoding: 'utf8' });

describe('GET /workspaces/:repo/:name/diff', () => {
  it('with no options is exactly `git diff` (working tree against the index), as text/plain', async () => {
    const reply = await diff();
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(reply.text).toBe(gitDiff());
    expect(reply.text).toContain('+TWO');
    expect(reply.text).not.toContain('staged line');
  });

  it('staged diffs the index against HEAD', async () => {
    const reply = await diff('?staged=true');
    expect(reply.text).toBe(gitDiff('--cached'));
    expect(reply.text).toContain('+staged line');
    expect(reply.text).not.toContain('TWO');
  });

  it('stat gives the diffstat summary, nameOnly the paths', async () => {
    expect((await diff('?stat=true')).text).toBe(gitDiff('--stat'));
    expect((await diff('?stat=true')).text).toMatch(/1 file changed/);
    expect((await diff('?nameOnly=true')).text).toBe('src/app.txt\n');
    expect((await diff('?nameOnly=true&staged=true')).text).toBe('README.md\n');
  });

  it('false values are the same as omitted ones', async () => {
    expect((await diff('?staged=false&stat=false&nameOnly=false&includeUntracked=false')).text).toBe(gitDiff());
  });

  it('range diffs a commit range, and a single commit against the working tree', async () => {
    const first = git(dir, 'rev-list', '--max-parents=0', 'HEAD').trim();
    expect((await diff(`?range=${first}..HEAD&nameOnly=true`)).text).toBe('logo.bin\nsrc/app.txt\n');
    expect((await diff('?range=v1.0..HEAD&stat=true')).text).toBe(gitDiff('--stat', 'v1.0..HEAD'));
    expect((await diff('?range=HEAD&nameOnly=true')).text).toBe('README.md\nsrc/app.txt\n');
  });

  it('paths restrict the diff; the key repeats', async () => {
    writeFileSync(join(dir, 'logo.bin'), Buffer.from([0, 7, 7, 0]));
    try {
      expect((await diff('?nameOnly=true&paths=src')).text).toBe('src/app.txt\n');
      expect((await diff('?nameOnly=true&paths=src&paths=logo.bin')).text).toBe('logo.bin\nsrc/app.txt\n');
      expect((await diff('?paths=logo.bin')).text).toContain('Binary files a/logo.bin and b/logo.bin differ');
    } finally {
      git(dir, 'checkout', '--', 'logo.bin');
    }
  });

  it('includeUntracked appends synthesized add-file diffs for regular files and symlinks, never FIFOs', async () => {
    const reply = await diff('?includeUntracked=true');
    expect(reply.text.startsWith(gitDiff())).toBe(true);
    const appended = reply.text.slice(gitDiff().length);
    expect(appended).toContain(
      'diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+alpha\n+beta\n',
    );
    expect(appended).toContain('+++ b/no-newline.txt\n@@ -0,0 +1 @@\n+tail\n\\ No newline at end of file\n');
    expect(appended).toContain(
      'diff --git a/blob.bin b/blob.bin\nnew file mode 100644\nBinary files /dev/null and b/blob.bin differ\n',
    );
    expect(appended).toContain(
      'diff --git a/outward-link b/outward-link\nnew file mode 120000\n--- /dev/null\n+++ b/outward-link\n@@ -0,0 +1 @@\n+/etc/hostname\n',
    );
    expect(appended).not.toContain('pipe');
    // The synthesized patch applies with git itself.
    const names = (await diff('?includeUntracked=true&nameOnly=true')).text;
    expect(names).toBe('src/app.txt\nblob.bin\nnew.txt\nno-newline.txt\noutward-link\n');
    const stat = (await diff('?includeUntracked=true&stat=true')).text;
    expect(stat).toContain(' new.txt | 2 ++\n');
    expect(stat).toContain(' blob.bin | Bin\n');
  });

  it('includeUntracked honours paths', async () => {
    expect((await diff('?includeUntracked=true&nameOnly=true&paths=new.txt')).text).toBe('new.txt\n');
  });

  it('a range that looks like an option is a revision, never a git option: no file is written', async () => {
    const target = join(root, 'diff-output-pwned');
    const reply = await diff(`?range=--output=${encodeURIComponent(target)}`);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatch(/^invalid diff request: /);
    expect(existsSync(target)).toBe(false);
    const ext = await diff('?range=--ext-diff');
    expect(ext.status).toBe(400);
  });

  it('errors stay JSON: unknown workspace 404, bad revision 400, bad option value 422', async () => {
    const missing = await call(ship.url, 'GET', path('d', 'nope', '/diff'));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'workspace not found: d/nope' });
    expect(missing.headers.get('content-type')).toMatch(/application\/json/);
    const bad = await diff('?range=no-such-rev');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^invalid diff request: /);
    const outside = await diff('?paths=../../etc/passwd');
    expect(outside.status).toBe(400);
    const mistyped = await diff('?staged=maybe');
    expect(mistyped.status).toBe(422);
    expect(mistyped.body.issues[0]).toMatchObject({ part: 'querystring', path: '/staged' });
  });

  it('works for an active workspace too', async () => {
    await call(ship.url, 'POST', path('d', 'w', '/activate'));
    expect((await diff()).text).toBe(gitDiff());
    await call(ship.url, 'POST', path('d', 'w', '/deactivate'));
  });
});
