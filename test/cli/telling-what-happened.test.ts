// Issue #15 items 9–12, "telling the user what happened", as a user meets them: `npx svc bridge` (with a first
// admin) and `npx svc ship` as processes, every command as `npx svc …` over HTTP, and the exact text printed.
// 9: a branch the remote does not have becomes a new branch, and the CLI says so (create and branch, through
// the bridge and with --url). 10: `repos add` warns about a URL nobody can list (its branch listing is one
// clean line even from ssh's CR LF output), and a clone of a URL that is no repository is the caller's 400
// with git's message. 11: an invalid repo name is refused with its reason.
// 12: `users add` refuses a duplicate before asking for a password, and a piped stdin says why.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawn as spawnPty } from '@lydell/node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { bridgeUrlIn, runNpx, startNpx, type NpxProcess } from '../helpers/npx.js';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';
import { killFleetTmux } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const ADMIN = { username: 'root', email: 'root@example.com', password: 'root-password-1' };

let root: string;
let remote: RemoteFixture;
let bridge: NpxProcess;
let ship: NpxProcess;
let bridgeUrl: string;
let shipUrl: string;
let env: Record<string, string>;

/** `npx --no-install svc <args>` to completion with this file's environment, stdin a pipe (no terminal). */
const npxSvc = (args: string[], stdin = '') => runNpx(args, env, stdin);

/** `npx --no-install svc <args>` inside a pty (a terminal); resolves with its exit code and everything shown. */
function npxSvcAtTerminal(args: string[]): Promise<{ code: number; output: string }> {
  const merged = Object.fromEntries(
    Object.entries({ ...process.env, LANG: 'C.UTF-8', ...env }).filter(([, v]) => v !== undefined),
  ) as Record<string, string>;
  const pty = spawnPty('npx', ['--no-install', 'svc', ...args], {
    name: 'xterm-256color',
    cols: 160,
    rows: 30,
    env: merged,
    cwd: ROOT,
  });
  let output = '';
  pty.onData((data) => {
    output += data;
    // A prompt would hang the command; answer none, so a test sees the prompt text instead of a timeout.
    if (/password:/i.test(data)) pty.write('never-typed-1\r');
  });
  return new Promise((resolveRun) => pty.onExit(({ exitCode }) => resolveRun({ code: exitCode, output })));
}

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  bridge = startNpx(['bridge', '--port', '0', '--data-directory', join(root, 'bridge')], {
    SVC_BRIDGE_ADMIN_USER: ADMIN.username,
    SVC_BRIDGE_ADMIN_EMAIL: ADMIN.email,
    SVC_BRIDGE_ADMIN_PASSWORD: ADMIN.password,
    SVC_LOG_LEVEL: 'info',
  });
  ship = startNpx(['ship', '--port', '0', '--name', 's1', '--fleet-directory', join(root, 'fleet')], {
    SVC_LOG_LEVEL: 'info',
  });
  await bridge.waitFor('bridge listening on');
  await ship.waitFor('ship listening');
  bridgeUrl = bridgeUrlIn(bridge.output());
  shipUrl = `http://localhost:${(JSON.parse(readFileSync(join(root, 'fleet', 'atlas.json'), 'utf8')) as { port: number }).port}`;
  const login = await call(bridgeUrl, 'POST', '/auth/login', { username: ADMIN.username, password: ADMIN.password });
  expect(login.status).toBe(200);
  const token = login.body.token as string;
  expect((await call(bridgeUrl, 'POST', '/ships', { url: shipUrl }, { authorization: `Bearer ${token}` })).status).toBe(
    201,
  );
  env = { SVC_TOKEN: token, XDG_CONFIG_HOME: join(root, 'config'), NO_COLOR: '1', SVC_BRIDGE_TOKEN: '' };
  expect(await npxSvc(['client', '--bridge-url', bridgeUrl, 'repos', 'add', 'app', remote.url])).toMatchObject({
    code: 0,
    stderr: '',
  });
}, 90_000);

afterAll(async () => {
  await bridge?.terminateThenKill();
  await ship?.terminateThenKill();
  await killFleetTmux(join(root, 'fleet')).catch(() => undefined);
  await removeRoot(root);
});

const client = (...args: string[]) => npxSvc(['client', '--bridge-url', bridgeUrl, ...args]);

describe('9. a branch the remote does not have is created, and the CLI says so', () => {
  it('create and branch through the bridge name the new branch; a remote branch reads as before', async () => {
    expect(await client('create', 'app', 'typo-ws', '--ship', 's1', '-b', 'typo')).toEqual({
      code: 0,
      stdout: 'created app/typo-ws on a new branch "typo" (not on the remote; ship s1)\n',
      stderr: '',
    });
    expect(await client('create', 'app', 'known-ws', '--ship', 's1', '-b', 'feature')).toEqual({
      code: 0,
      stdout: 'created app/known-ws on branch feature (ship s1)\n',
      stderr: '',
    });
    expect(await client('branch', 'app', 'known-ws', 'other-typo')).toEqual({
      code: 0,
      stdout: 'app/known-ws is on a new branch "other-typo" (not on the remote)\n',
      stderr: '',
    });
    expect(await client('branch', 'app', 'known-ws', 'other')).toEqual({
      code: 0,
      stdout: 'app/known-ws is on other\n',
      stderr: '',
    });
    // Back to a branch made earlier: it exists now, so nothing is created.
    expect(await client('branch', 'app', 'known-ws', 'other-typo')).toEqual({
      code: 0,
      stdout: 'app/known-ws is on other-typo\n',
      stderr: '',
    });
  }, 90_000);

  it('--json carries branchCreated on the create and branch answers only, never in listings', async () => {
    const created = await client('--json', 'create', 'app', 'json-ws', '--ship', 's1', '-b', 'json-typo');
    expect(JSON.parse(created.stdout)).toEqual({
      repoName: 'app',
      name: 'json-ws',
      branch: 'json-typo',
      active: false,
      agent: null,
      ship: 's1',
      ephemeral: null,
      branchCreated: true,
    });
    const switched = await client('--json', 'branch', 'app', 'json-ws', 'main');
    expect(JSON.parse(switched.stdout)).toEqual({ ok: true, branchCreated: false });
    const listed = JSON.parse((await client('--json', 'ls')).stdout) as Record<string, unknown>[];
    expect(listed.length).toBeGreaterThan(0);
    for (const workspace of listed) expect(workspace).not.toHaveProperty('branchCreated');
  }, 60_000);

  it('says the same straight to a ship with --url', async () => {
    const direct = (...args: string[]) => npxSvc(['client', '--url', shipUrl, ...args]);
    expect(await direct('create', 'app', 'direct-ws', '-u', remote.url, '-b', 'typo')).toEqual({
      code: 0,
      stdout: 'created app/direct-ws on a new branch "typo" (not on the remote)\n',
      stderr: '',
    });
    expect(await direct('branch', 'app', 'direct-ws', 'feature')).toEqual({
      code: 0,
      stdout: 'app/direct-ws is on feature\n',
      stderr: '',
    });
  }, 60_000);
});

describe('10. a clone URL nobody can list', () => {
  it("repos add registers it with a warning, and create answers 400 with git's message", async () => {
    expect(await client('repos', 'add', 'bad', 'not-a-url')).toEqual({
      code: 0,
      stdout: 'registered repo bad (custom) not-a-url\n',
      stderr:
        "svc: warning: could not list branches of not-a-url: 'not-a-url' does not appear to be a git repository; ships may still reach it with their own credentials\n",
    });
    expect(await client('create', 'bad', 'ws', '--ship', 's1', '-b', 'main')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "svc: request failed (400): git clone of not-a-url failed: fatal: repository 'not-a-url' does not exist\n",
    });
    // ssh ends its lines with CR LF and git adds blank lines; the bridge's 502 is still one clean line.
    const added = await client('repos', 'add', 'far', 'ssh://git@host.invalid/r.git');
    expect(added).toMatchObject({ code: 0, stdout: 'registered repo far (custom) ssh://git@host.invalid/r.git\n' });
    expect(added.stderr).toMatch(
      /^svc: warning: could not list branches of ssh:\/\/\*\*\*@host\.invalid\/r\.git: ssh: Could not resolve hostname host\.invalid: [^;\r\n]+; ships may still reach it with their own credentials\n$/,
    );
    const listing = await client('repos', 'branches', 'far');
    expect(listing).toMatchObject({ code: 1, stdout: '' });
    expect(listing.stderr).toMatch(
      /^svc: request failed \(502\): could not list branches for repo "far": ssh: Could not resolve hostname host\.invalid: [^\r\n]+ fatal: Could not read from remote repository\. Please make sure you have the correct access rights and the repository exists\.\n$/,
    );
    // A URL that lists is registered without a word more.
    expect(await client('repos', 'add', 'good', remote.url)).toEqual({
      code: 0,
      stdout: `registered repo good (custom) ${remote.url}\n`,
      stderr: '',
    });
  }, 60_000);
});

describe('11. an invalid name is refused with its reason', () => {
  it('repos add, rm and branches say which rule the name breaks, as create does', async () => {
    const separators = 'svc: invalid repo identifier: must not contain path separators\n';
    expect(await client('repos', 'add', 'org/app', remote.url)).toEqual({ code: 1, stdout: '', stderr: separators });
    expect(await client('repos', 'rm', 'org\\app')).toEqual({ code: 1, stdout: '', stderr: separators });
    expect(await client('repos', 'branches', '..')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: invalid repo identifier: must not be . or ..\n',
    });
    expect(await client('create', 'org/app', 'x', '--ship', 's1', '-b', 'main')).toEqual({
      code: 1,
      stdout: '',
      stderr: separators,
    });
  }, 60_000);

  it("the bridge and the ship give the reason after the spec's message, for every client", async () => {
    expect(await client('ships', 'rm', 'a/b')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: request failed (400): invalid ship identifier: must not contain path separators\n',
    });
    const admin = { authorization: `Bearer ${env.SVC_TOKEN}` };
    expect(await call(bridgeUrl, 'POST', '/repos', { name: 'org/app', url: remote.url }, admin)).toMatchObject({
      status: 400,
      body: { error: 'invalid repo identifier: must not contain path separators' },
    });
    expect(await call(bridgeUrl, 'GET', '/workspaces/app/a%00b', undefined, admin)).toMatchObject({
      status: 400,
      body: { error: 'invalid workspace identifier: must not contain Unicode control characters' },
    });
    expect(
      await call(shipUrl, 'POST', '/workspaces', { url: remote.url, repoName: 'org/app', name: 'x', branch: 'main' }),
    ).toMatchObject({
      status: 400,
      body: { error: 'invalid repo identifier: must not contain path separators' },
    });
  }, 60_000);
});

describe('12. svc users add checks before it asks', () => {
  it('refuses a duplicate name or email at a terminal without asking for a password', async () => {
    const name = await npxSvcAtTerminal(['users', '--bridge-url', bridgeUrl, 'add', 'ROOT', 'someone@example.com']);
    expect(name.code).toBe(1);
    expect(name.output).not.toMatch(/password/i);
    expect(name.output).toContain('svc: user already exists: ROOT');
    const email = await npxSvcAtTerminal(['users', '--bridge-url', bridgeUrl, 'add', 'someone', 'Root@Example.com']);
    expect(email.code).toBe(1);
    expect(email.output).not.toMatch(/password/i);
    expect(email.output).toContain('svc: email already in use: Root@Example.com');
  }, 60_000);

  it('says the password is read from a terminal when stdin is a pipe', async () => {
    expect(
      await npxSvc(
        ['users', '--bridge-url', bridgeUrl, 'add', 'piped', 'piped@example.com'],
        'piped-password-1\npiped-password-1\n',
      ),
    ).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'svc: the password is read from a terminal, and stdin is not one; run `npx svc users add` at a terminal\n',
    });
    const users = await call(bridgeUrl, 'GET', '/users', undefined, { authorization: `Bearer ${env.SVC_TOKEN}` });
    expect(users.body.map((user: { username: string }) => user.username)).toEqual(['root']);
  }, 60_000);
});
