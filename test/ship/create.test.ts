// POST /workspaces against real git remotes: branch, tag, new branch, errors, cleanup, concurrency.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, makeEmptyRemote } from '../helpers/git-fixtures.js';
import { call, path } from '../helpers/ship.js';
import { shipFixture } from '../helpers/fixture.js';

const fx = shipFixture();
const fleet = () => fx.ship.ship.fleetDirectory;

const create = (body: Record<string, unknown>) => call(fx.ship.url, 'POST', '/workspaces', body);

describe('POST /workspaces', () => {
  it('clones a remote branch and answers 201 with an inactive summary', async () => {
    const reply = await create({ url: fx.remote.url, repoName: 'app', name: 'feat', branch: 'feature' });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      repoName: 'app',
      name: 'feat',
      branch: 'feature',
      active: false,
      agent: null,
      branchCreated: false,
    });
    const dir = join(fleet(), 'app', 'feat');
    expect(existsSync(join(dir, 'feature.txt'))).toBe(true);
    expect(git(dir, 'rev-parse', '--abbrev-ref', '@{upstream}').trim()).toBe('origin/feature');
  });

  it('trims the branch before looking it up', async () => {
    const reply = await create({ url: fx.remote.url, repoName: 'app', name: 'trimmed', branch: '  other \t' });
    expect(reply.status).toBe(201);
    expect(reply.body.branch).toBe('other');
  });

  it('checks a tag out detached', async () => {
    const reply = await create({ url: fx.remote.url, repoName: 'app', name: 'tagged', branch: 'v1.0' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ branch: 'HEAD', branchCreated: false });
    const dir = join(fleet(), 'app', 'tagged');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(git(fx.remote.bare, 'rev-parse', 'v1.0^{commit}').trim());
    expect(existsSync(join(dir, 'logo.bin'))).toBe(false);
  });

  it('creates a branch the remote lacks off the default branch, says so, and never pushes it', async () => {
    const reply = await create({ url: fx.remote.url, repoName: 'app', name: 'fresh', branch: 'brand-new' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ branch: 'brand-new', branchCreated: true });
    const dir = join(fleet(), 'app', 'fresh');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(git(fx.remote.bare, 'rev-parse', 'main').trim());
    expect(git(fx.remote.bare, 'branch', '--list', 'brand-new').trim()).toBe('');
  });

  it('answers 409 when the destination exists, and leaves it untouched', async () => {
    await create({ url: fx.remote.url, repoName: 'dup', name: 'one', branch: 'main' });
    const reply = await create({ url: fx.remote.url, repoName: 'dup', name: 'one', branch: 'feature' });
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ error: 'workspace already exists: dup/one' });
    expect(git(join(fleet(), 'dup', 'one'), 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
  });

  it('answers 409 for a repo name that is a file at the fleet root (atlas.json), and keeps the file', async () => {
    const reply = await create({ url: fx.remote.url, repoName: 'atlas.json', name: 'x', branch: 'main' });
    expect(reply.status).toBe(409);
    expect(JSON.parse(readFileSync(join(fleet(), 'atlas.json'), 'utf8'))).toEqual({ port: fx.ship.ship.port });
  });

  it.each([
    ['', 'branch must not be empty'],
    ['   ', 'branch must not be empty'],
  ])('refuses the branch %j with 400', async (branch, message) => {
    const reply = await create({ url: fx.remote.url, repoName: 'bad', name: 'b', branch });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: message });
    expect(existsSync(join(fleet(), 'bad'))).toBe(false);
  });

  it.each(['a..b', 'x.lock', 'has space', '-b', '--orphan=x', 'a@{1}'])(
    'refuses a branch git cannot create (%j) with 400 and leaves nothing',
    async (branch) => {
      const reply = await create({ url: fx.remote.url, repoName: 'badbranch', name: 'b', branch });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatch(
        new RegExp(`^could not create branch "${branch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}": `),
      );
      expect(existsSync(join(fleet(), 'badbranch', 'b'))).toBe(false);
    },
  );

  it('refuses a new branch on a remote whose HEAD resolves to no commit, and removes the destination', async () => {
    const empty = makeEmptyRemote(fx.root);
    const reply = await create({ url: empty.url, repoName: 'empty', name: 'e', branch: 'work' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: 'remote has no usable HEAD to create branch "work" from' });
    expect(existsSync(join(fleet(), 'empty', 'e'))).toBe(false);
    const retry = await create({ url: fx.remote.url, repoName: 'empty', name: 'e', branch: 'main' });
    expect(retry.status).toBe(201);
  });

  it("answers 400 with git's message for a URL with no repository behind it, and removes the destination", async () => {
    const missing = await create({ url: `file://${fx.root}/missing.git`, repoName: 'gone', name: 'g', branch: 'main' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(
      /^git clone of file:\/\/.*missing\.git failed: fatal: '.*missing\.git' does not appear to be a git repository /,
    );
    expect(existsSync(join(fleet(), 'gone'))).toBe(false);
    mkdirSync(join(fx.root, 'plain-directory'), { recursive: true });
    const notGit = await create({ url: join(fx.root, 'plain-directory'), repoName: 'gone', name: 'g', branch: 'main' });
    expect(notGit.status).toBe(400);
    expect(notGit.body).toEqual({
      error: `git clone of ${fx.root}/plain-directory failed: fatal: repository '${fx.root}/plain-directory' does not exist`,
    });
    const unresolvable = await create({
      url: 'https://no-such-host.invalid/org/repo.git',
      repoName: 'gone',
      name: 'g',
      branch: 'main',
    });
    expect(unresolvable.status).toBe(400);
    expect(unresolvable.body.error).toMatch(
      /^git clone of https:\/\/no-such-host\.invalid\/org\/repo\.git failed: .*Could not resolve host: no-such-host\.invalid/,
    );
  });

  it("keeps 500 for a clone that fails on the ship's side of the transfer (nothing answers the port)", async () => {
    const reply = await create({ url: 'http://127.0.0.1:1/x.git', repoName: 'refused', name: 'r', branch: 'main' });
    expect(reply.status).toBe(500);
    expect(reply.body.error).toMatch(/^git clone of http:\/\/127\.0\.0\.1:1\/x\.git failed: .*Failed to connect/);
    expect(existsSync(join(fleet(), 'refused'))).toBe(false);
  });

  it('redacts credentials of the clone url in errors', async () => {
    const reply = await create({
      url: 'http://user:s3cret@127.0.0.1:1/x.git',
      repoName: 'cred',
      name: 'c',
      branch: 'main',
    });
    expect(reply.status).toBe(500);
    expect(reply.text).not.toContain('s3cret');
    expect(reply.text).toContain('***@');
  });

  it.each([
    ['ext::sh -c touch% /tmp/svc-pwn', 'invalid workspace create request: clone url transport "ext::" is not allowed'],
    ['--upload-pack=touch /tmp/svc-pwn', 'invalid workspace create request: clone url must not start with "-"'],
  ])('refuses the clone url %j with 400', async (url, message) => {
    const reply = await create({ url, repoName: 'evil', name: 'e', branch: 'main' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: message });
    expect(existsSync('/tmp/svc-pwn')).toBe(false);
  });

  it.each([
    [{ repoName: 'r', name: 'n', branch: 'main' }, '/url'],
    [{ url: 'x', repoName: 'r', name: 'n' }, '/branch'],
    [{ url: 5, repoName: 'r', name: 'n', branch: 'main' }, '/url'],
    [{ url: 'x', repoName: 'r', name: 'n', branch: 7 }, '/branch'],
  ])('answers 422 with the validator body for a missing or mistyped field (%j)', async (body, pointer) => {
    const reply = await create(body);
    expect(reply.status).toBe(422);
    expect(reply.body.error).toBeUndefined();
    expect(
      reply.body.issues.some(
        (issue: { part: string; path: string }) => issue.part === 'body' && issue.path === pointer,
      ),
    ).toBe(true);
    expect(typeof reply.body.message).toBe('string');
  });

  it.each([
    [{ repoName: 'a/b', name: 'n' }, 'invalid repo identifier: must not contain path separators'],
    [{ repoName: '..', name: 'n' }, 'invalid repo identifier: must not be . or ..'],
    [{ repoName: 'r', name: '' }, 'invalid workspace identifier: minimum length'],
    [{ repoName: 'r', name: 'x'.repeat(129) }, 'invalid workspace identifier: must be at most 128 UTF-8 bytes'],
    [{ repoName: 'r', name: 'a\u0001' }, 'invalid workspace identifier: must not contain Unicode control characters'],
    [{ repoName: 'r', name: 'a\ud800' }, 'invalid workspace identifier: must be well-formed Unicode'],
    [{ repoName: 'a\\b', name: 'x/y' }, 'invalid repo identifier: must not contain path separators'],
  ])('answers 400 for invalid identifiers in the body (%j)', async (key, message) => {
    const reply = await create({ url: fx.remote.url, branch: 'main', ...key });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: message });
  });

  it('accepts identifiers with spaces, dots, colons, #() and 128 bytes of multibyte characters', async () => {
    for (const [repoName, name] of [
      ['my repo', 'a.b:c'],
      ['#(touch svc-pwn)', '#{pane_pid}'],
      ['é'.repeat(64), `${'€'.repeat(42)}ab`],
    ]) {
      const reply = await create({ url: fx.remote.url, repoName, name, branch: 'main' });
      expect(reply.status, `${repoName}/${name}`).toBe(201);
      const status = await call(fx.ship.url, 'GET', path(repoName!, name!));
      expect(status.status).toBe(200);
      expect(status.body).toEqual({ state: 'inactive', repoName, name, branch: 'main' });
    }
  });

  it('when removing a failed clone fails too, the 500 names both failures and the directory left behind', async () => {
    const trash = join(fleet(), '.svc-ship', 'trash');
    rmSync(trash, { recursive: true, force: true });
    writeFileSync(trash, 'not a directory');
    try {
      const reply = await create({
        url: `file://${fx.root}/missing.git`,
        repoName: 'stuck',
        name: 's',
        branch: 'main',
      });
      expect(reply.status).toBe(500);
      expect(reply.body.error).toMatch(
        /^git clone of file:\/\/.*missing\.git failed: .*; the destination .*\/stuck\/s could not be removed: /,
      );
    } finally {
      rmSync(trash, { force: true });
    }
  });

  it('refuses a symlinked repo directory (path escaping the fleet directory) and leaves its target intact', async () => {
    const canary = join(fx.root, 'canary');
    mkdirSync(join(canary, 'victim'), { recursive: true });
    writeFileSync(join(canary, 'victim', 'keep.txt'), 'keep');
    symlinkSync(canary, join(fleet(), 'linked'));
    const created = await create({ url: fx.remote.url, repoName: 'linked', name: 'x', branch: 'main' });
    expect(created).toMatchObject({ status: 400, body: { error: 'path escaping the fleet directory: linked/x' } });
    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/activate'],
    ] as const) {
      expect(await call(fx.ship.url, method, path('linked', 'victim', suffix))).toMatchObject({
        status: 400,
        body: { error: 'path escaping the fleet directory: linked/victim' },
      });
    }
    expect(readFileSync(join(canary, 'victim', 'keep.txt'), 'utf8')).toBe('keep');
    expect(existsSync(join(canary, 'x'))).toBe(false);
  });

  it('refuses local clone URLs on a ship started with --no-local-repos', async () => {
    const { startTestShip } = await import('../helpers/ship.js');
    const strict = await startTestShip(fx.root, {
      fleetDirectory: join(fx.root, 'fleet-strict'),
      allowLocalRepos: false,
    });
    try {
      for (const url of [fx.remote.url, fx.remote.bare]) {
        expect(
          await call(strict.url, 'POST', '/workspaces', { url, repoName: 'r', name: 'n', branch: 'main' }),
        ).toMatchObject({
          status: 400,
          body: { error: 'invalid workspace create request: local repositories are not allowed on this server' },
        });
      }
    } finally {
      await strict.stop();
    }
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const reply = await create({ url: 'x'.repeat(1024 * 1024 + 1), repoName: 'big', name: 'b', branch: 'main' });
    expect(reply.status).toBe(413);
  });

  it('two concurrent creates of one key: one 201, one 409, one complete clone', async () => {
    const body = { url: fx.remote.url, repoName: 'race', name: 'r', branch: 'feature' };
    const replies = await Promise.all([create(body), create(body)]);
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409]);
    const dir = join(fleet(), 'race', 'r');
    expect(git(dir, 'status', '--porcelain').trim()).toBe('');
    expect(readdirSync(join(fleet(), 'race'))).toEqual(['r']);
  });
});
