// The repo cache (issue #29) through real `npx svc` processes (a bridge and a ship) and a real smart-HTTP
// remote behind basic authentication (helpers/git-http-remote.ts): workspaces made from the cache are
// independent clones (`git fsck` before and after the cache is deleted or pruned), see the remote's current
// refs, check out branches, tags and new branches by the spec's rules, and authenticate every create (a
// wrong password fails with the cache warm and leaves no directory). Ten creates at once through the bridge
// transfer the pack once. A repo named like the cache's directory creates and lists normally; the guarded
// delete still guards. A ship SIGKILLed mid-fill leaves no half cache: started again, it fills afresh.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { killFleetTmux } from '../helpers/cli.js';
import { git, makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { GitHttpRemote } from '../helpers/git-http-remote.js';
import { startNpx } from '../helpers/npx.js';
import { startNpxFleet, type NpxFleet } from '../helpers/npx-fleet.js';
import { freePort } from '../helpers/ports.js';
import { call, makeTempRoot, path, removeRoot } from '../helpers/ship.js';
import { sample } from '../helpers/metrics.js';
import { until } from '../helpers/poll.js';

const USER = { username: 'agent', password: 'right-password-1' };
let root: string;
let fleet: string;
let cacheRoot: string;
let remote: RemoteFixture;
let http: GitHttpRemote;
let bridgeFleet: NpxFleet;
let url: string;

const inWorkspace = (name: string, ...args: string[]) =>
  execFileSync('git', ['-C', join(fleet, 'demo', name), ...args], { encoding: 'utf8' }).trim();
const fsck = (name: string) =>
  execFileSync('git', ['-C', join(fleet, 'demo', name), 'fsck', '--full', '--strict'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
const create = (name: string, branch = 'main', cloneUrl = http.url(USER), repoName = 'demo') =>
  call(url, 'POST', '/workspaces', { url: cloneUrl, repoName, name, branch });

beforeAll(async () => {
  root = await makeTempRoot('svc-test-repo-cache-');
  remote = makeRemote(root, 'widget');
  // Incompressible bytes, so the pack's transfer stands out from ref advertisements in the access log.
  writeFileSync(join(remote.work, 'blob.bin'), randomBytes(96 * 1024));
  git(remote.work, 'add', 'blob.bin');
  git(remote.work, 'commit', '--quiet', '-m', 'a large file');
  git(remote.work, 'push', '--quiet', remote.bare, 'HEAD:main');
  http = await GitHttpRemote.start(remote.bare, USER);
  bridgeFleet = await startNpxFleet(root, 'cache-ship', { demo: http.url(USER) });
  fleet = bridgeFleet.fleetDirectory;
  cacheRoot = `${fleet}.repo-cache`;
  url = bridgeFleet.shipUrl;
}, 90_000);
afterAll(async () => {
  await bridgeFleet?.stop();
  await http?.close();
  if (root) await removeRoot(root);
});

it('makes an independent clone from the cache: the remote as origin, its current refs, sound after the cache is deleted or pruned', async () => {
  expect((await create('one')).status).toBe(201);
  expect(readdirSync(cacheRoot).filter((entry) => entry.endsWith('.git'))).toHaveLength(1);
  expect(inWorkspace('one', 'config', 'remote.origin.url')).toBe(http.url(USER));
  expect(inWorkspace('one', 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
  expect(inWorkspace('one', 'rev-parse', '--abbrev-ref', 'main@{upstream}')).toBe('origin/main');
  expect(inWorkspace('one', 'branch', '--format=%(refname:short)')).toBe('main');
  fsck('one');
  // Its objects are hard links to the cache's, not copies.
  const objects = join(fleet, 'demo', 'one', '.git', 'objects');
  const files = readdirSync(objects, { recursive: true, withFileTypes: true }).filter(
    (entry) => entry.isFile() && !/info|\.idx$|\.rev$/.test(join(entry.parentPath, entry.name)),
  );
  expect(files.length).toBeGreaterThan(0);
  expect(files.every((entry) => statSync(join(entry.parentPath, entry.name)).nlink >= 2)).toBe(true);

  // A new commit on the remote between two creates: the second has it.
  writeFileSync(join(remote.work, 'later.txt'), 'pushed between creates\n');
  git(remote.work, 'add', 'later.txt');
  git(remote.work, 'commit', '--quiet', '-m', 'later');
  git(remote.work, 'push', '--quiet', remote.bare, 'HEAD:main');
  const head = git(remote.work, 'rev-parse', 'HEAD').trim();
  expect((await create('two')).status).toBe(201);
  expect(inWorkspace('two', 'rev-parse', 'HEAD')).toBe(head);
  expect(inWorkspace('two', 'rev-parse', 'origin/main')).toBe(head);
  // The remote unchanged since: the next create asks for its refs (with its credentials) and fetches nothing.
  http.log.length = 0;
  expect((await create('two-again')).status).toBe(201);
  expect(http.log.map((entry) => `${entry.method} ${entry.status}`)).toEqual(['GET 401', 'GET 200', 'POST 200']);

  // The cache pruned, then deleted: the workspaces keep every object.
  const [cache] = readdirSync(cacheRoot).filter((entry) => entry.endsWith('.git'));
  execFileSync('git', ['-C', join(cacheRoot, cache!), 'gc', '--quiet', '--prune=now']);
  fsck('one');
  fsck('two');
  rmSync(cacheRoot, { recursive: true, force: true });
  fsck('one');
  fsck('two');
  expect((await create('three')).status).toBe(201);
  fsck('three');
}, 60_000);

it('checks out a remote branch (tracked), a tag (detached) or a new branch off the default one, with the local branches a plain clone has', async () => {
  expect((await create('feat', 'feature')).status).toBe(201);
  expect(inWorkspace('feat', 'rev-parse', '--abbrev-ref', 'feature@{upstream}')).toBe('origin/feature');
  expect(inWorkspace('feat', 'branch', '--format=%(refname:short)')).toBe('feature');
  expect((await create('tagged', 'v1.0')).status).toBe(201);
  expect(inWorkspace('tagged', 'rev-parse', 'HEAD')).toBe(inWorkspace('tagged', 'rev-parse', 'v1.0^{commit}'));
  expect(() => inWorkspace('tagged', 'symbolic-ref', '--quiet', 'HEAD')).toThrow();
  expect(inWorkspace('tagged', 'for-each-ref', '--format=%(refname)', 'refs/heads')).toBe('');
  const fresh = await create('fresh', 'agent/new-work');
  expect(fresh.status).toBe(201);
  expect(fresh.body).toMatchObject({ branch: 'agent/new-work' });
  expect(inWorkspace('fresh', 'branch', '--show-current')).toBe('agent/new-work');
  // As `git clone` then `git switch -c` leave it: the default branch, and the new one, tracking nothing.
  expect(inWorkspace('fresh', 'for-each-ref', '--format=%(refname:short)', 'refs/heads')).toBe('agent/new-work\nmain');
  expect(() => inWorkspace('fresh', 'rev-parse', '--abbrev-ref', 'agent/new-work@{upstream}')).toThrow();
  expect(inWorkspace('fresh', 'rev-parse', 'HEAD')).toBe(inWorkspace('fresh', 'rev-parse', 'origin/main'));
});

it('authenticates every create: a wrong password fails with the cache warm, as a clone would, and leaves no directory', async () => {
  const wrong = await create('intruder', 'main', http.url({ username: USER.username, password: 'wrong-password' }));
  expect(wrong.status).toBe(500);
  // What a plain clone answers: the clone-failure message, credentials redacted, git's own reason.
  expect(wrong.body.error).toMatch(
    /^git clone of http:\/\/\*\*\*@127\.0\.0\.1:\d+\/widget\.git failed: fatal: Authentication failed for 'http:\/\/127\.0\.0\.1:\d+\/widget\.git\/'$/,
  );
  expect(wrong.text).not.toContain('wrong-password');
  expect(existsSync(join(fleet, 'demo', 'intruder'))).toBe(false);
  const none = await create('anonymous', 'main', http.url());
  expect(none.status).toBe(500);
  expect(existsSync(join(fleet, 'demo', 'anonymous'))).toBe(false);
});

it('ten creates at once through the bridge all succeed and the pack crosses the network once', async () => {
  rmSync(cacheRoot, { recursive: true, force: true });
  http.log.length = 0;
  const names = Array.from({ length: 10 }, (_, index) => `many-${index}`);
  const answers = await Promise.all(
    names.map((name) =>
      call(
        bridgeFleet.bridgeUrl,
        'POST',
        '/workspaces',
        { ship: 'cache-ship', repoName: 'demo', name, branch: 'main' },
        { authorization: `Bearer ${bridgeFleet.token}` },
      ),
    ),
  );
  expect(answers.map((answer) => answer.status)).toEqual(names.map(() => 201));
  expect(http.packTransfers(32 * 1024)).toHaveLength(1);
  for (const name of names) fsck(name);
}, 60_000);

it('a repo named like the cache directory creates and lists normally; the guarded delete still refuses unpushed work', async () => {
  const repoName = basename(cacheRoot);
  expect((await create('alike', 'main', http.url(USER), repoName)).status).toBe(201);
  const listed = await call(url, 'GET', '/workspaces');
  expect(
    listed.body.map((workspace: { repoName: string; name: string }) => `${workspace.repoName}/${workspace.name}`),
  ).toContain(`${repoName}/alike`);
  expect(existsSync(join(fleet, repoName, 'alike', '.git'))).toBe(true);

  const dir = join(fleet, 'demo', 'one');
  writeFileSync(join(dir, 'mine.txt'), 'only here\n');
  git(dir, 'add', 'mine.txt');
  git(dir, 'commit', '--quiet', '-m', 'on no remote');
  const refused = await call(url, 'DELETE', `${path('demo', 'one')}?force=false`);
  expect(refused.status).toBe(409);
  expect(existsSync(dir)).toBe(true);
});

it('a cache the ship cannot write only costs the speed-up: the create goes on as a plain clone', async () => {
  const blocked = join(root, 'not-a-directory');
  writeFileSync(blocked, 'a file where the cache directory would go\n');
  const blockedFleet = join(root, 'blocked', 'fleet');
  const port = await freePort();
  const other = startNpx([
    'ship',
    '--port',
    String(port),
    '--name',
    'blocked-ship',
    '--fleet-directory',
    blockedFleet,
    '--repo-cache',
    join(blocked, 'cache'),
  ]);
  try {
    await other.waitFor('ship listening', 60_000);
    const created = await call(`http://127.0.0.1:${port}`, 'POST', '/workspaces', {
      url: http.url(USER),
      repoName: 'demo',
      name: 'plain',
      branch: 'feature',
    });
    expect(created.status).toBe(201);
    const dir = join(blockedFleet, 'demo', 'plain');
    expect(
      execFileSync('git', ['-C', dir, 'rev-parse', '--abbrev-ref', 'feature@{upstream}'], { encoding: 'utf8' }).trim(),
    ).toBe('origin/feature');
    execFileSync('git', ['-C', dir, 'fsck', '--full'], { stdio: 'ignore' });
  } finally {
    await other.terminateThenKill();
    await killFleetTmux(blockedFleet);
  }
}, 90_000);

it("reports each cache in the ship's metrics: its URL without credentials, size, last use, hits and misses", async () => {
  const text = (await call(url, 'GET', '/metrics')).text;
  const cacheUrl = http.url();
  expect(sample(text, 'svc_repo_cache_bytes', { url: cacheUrl })).toBeGreaterThan(96 * 1024);
  expect(sample(text, 'svc_repo_cache_last_use_seconds', { url: cacheUrl })).toBeGreaterThan(Date.now() / 1000 - 600);
  expect(sample(text, 'svc_repo_cache_uses_total', { result: 'miss' })).toBeGreaterThanOrEqual(2);
  expect(sample(text, 'svc_repo_cache_uses_total', { result: 'hit' })).toBeGreaterThanOrEqual(10);
  expect(text).not.toContain(USER.password);
});

it('removes a cache no create has used for --repo-cache-max-idle; its workspaces keep every object', async () => {
  // A ship as a service account starts it: its own fresh HOME, the flag on the command line.
  const idleFleet = join(root, 'idle', 'fleet');
  const home = join(root, 'idle', 'home');
  mkdirSync(home, { recursive: true });
  const port = await freePort();
  const idle = startNpx(
    [
      'ship',
      '--port',
      String(port),
      '--name',
      'idle-ship',
      '--fleet-directory',
      idleFleet,
      '--repo-cache-max-idle',
      '1500ms',
    ],
    { HOME: home },
  );
  try {
    await idle.waitFor('ship listening', 60_000);
    const created = await call(`http://127.0.0.1:${port}`, 'POST', '/workspaces', {
      url: http.url(USER),
      repoName: 'demo',
      name: 'kept',
      branch: 'main',
    });
    expect(created.status).toBe(201);
    const caches = `${idleFleet}.repo-cache`;
    expect(readdirSync(caches).filter((entry) => entry.endsWith('.git'))).toHaveLength(1);
    await until(
      async () => readdirSync(caches).filter((entry) => entry.endsWith('.git')).length === 0,
      'the unused cache removed',
      15_000,
    );
    execFileSync('git', ['-C', join(idleFleet, 'demo', 'kept'), 'fsck', '--full'], { stdio: 'ignore' });
  } finally {
    await idle.terminateThenKill();
    await killFleetTmux(idleFleet);
  }
}, 90_000);

it('a ship SIGKILLed mid-fill leaves no half cache: started again, the create succeeds and the cache is sound', async () => {
  const crashFleet = join(root, 'crash', 'fleet');
  const crashCaches = `${crashFleet}.repo-cache`;
  const port = await freePort();
  const crashUrl = `http://127.0.0.1:${port}`;
  const startCrashShip = async () => {
    const started = startNpx(['ship', '--port', String(port), '--name', 'crash-ship', '--fleet-directory', crashFleet]);
    await started.waitFor('ship listening', 60_000);
    return started;
  };
  const body = { url: http.url(USER), repoName: 'demo', name: 'after-crash', branch: 'main' };
  const crashing = await startCrashShip();
  const packAsked = http.holdNextPack(3_000);
  const pending = call(crashUrl, 'POST', '/workspaces', body).catch((error: Error) => error);
  await packAsked;
  crashing.signalGroup('SIGKILL');
  await crashing.exited;
  expect(await pending).toBeInstanceOf(Error);
  expect(readdirSync(crashCaches).filter((entry) => entry.endsWith('.git'))).toEqual([]);

  const restarted = await startCrashShip();
  try {
    expect((await call(crashUrl, 'POST', '/workspaces', body)).status).toBe(201);
    const caches = readdirSync(crashCaches);
    expect(caches.filter((entry) => entry.endsWith('.git'))).toHaveLength(1);
    expect(caches.filter((entry) => !entry.endsWith('.git'))).toEqual([]);
    execFileSync('git', ['-C', join(crashCaches, caches[0]!), 'fsck', '--full', '--strict'], { stdio: 'ignore' });
    execFileSync('git', ['-C', join(crashFleet, 'demo', 'after-crash'), 'fsck', '--full', '--strict'], {
      stdio: 'ignore',
    });
  } finally {
    await restarted.terminateThenKill();
    await killFleetTmux(crashFleet);
  }
}, 120_000);
