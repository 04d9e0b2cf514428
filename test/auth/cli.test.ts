// The CLI's session handling against a real bridge: `svc login` prompting in a pty (no echo), the session
// file's modes, whoami/logout, SVC_TOKEN overriding, a stale stored session discarded and retried once,
// the no-terminal error, `svc users` with passwords typed twice, and `svc client ships add` taking its
// tokens from prompts, from the environment, or not at all.
import { statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { ptyCli, runCli } from '../helpers/cli.js';
import { sessionsDirectory, readSession, writeSession } from '../../cli/auth/session-files.js';
import { ADMIN, startAuthBridge, type AuthHarness } from './harness.js';

let root: string;
let h: AuthHarness;
let env: Record<string, string>;
let admin: string;

beforeAll(async () => {
  root = await makeTempRoot();
  h = await startAuthBridge(root, { clock: undefined });
  admin = await h.login(ADMIN.username, ADMIN.password);
  env = { XDG_CONFIG_HOME: join(root, 'config'), SVC_TOKEN: '' };
}, 60_000);

afterAll(async () => {
  await h?.bridge.close();
  await removeRoot(root);
});

const bridgeArgs = () => ['--bridge-url', h.bridge.url];

describe('svc login, whoami, logout', () => {
  it('asks for the password without echo and keeps the session in a 0600 file in a 0700 directory', async () => {
    const cli = ptyCli(['login', ...bridgeArgs(), '-u', ADMIN.username], env);
    await cli.answer('Password:', ADMIN.password);
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toContain(`logged in to ${h.bridge.url} as root (admin)`);
    expect(cli.output()).not.toContain(ADMIN.password);
    const directory = sessionsDirectory(env);
    expect(statSync(directory).mode & 0o777).toBe(0o700);
    const files = await readdir(directory);
    expect(files).toHaveLength(1);
    expect(statSync(join(directory, files[0]!)).mode & 0o777).toBe(0o600);
  });

  it('asks for the username too when -u is not given', async () => {
    const cli = ptyCli(['login', ...bridgeArgs()], env);
    await cli.answer('Username:', ADMIN.username);
    await cli.answer('Password:', ADMIN.password);
    expect(await cli.exited).toBe(0);
  });

  it('whoami uses the stored session; SVC_TOKEN overrides it without retrying', async () => {
    expect(await runCli(['whoami', ...bridgeArgs()], env)).toMatchObject({
      code: 0,
      stdout: 'root <root@example.com> (admin)\n',
    });
    const overridden = await runCli(['whoami', ...bridgeArgs()], { ...env, SVC_TOKEN: 'garbage' });
    expect(overridden).toMatchObject({ code: 1, stderr: 'svc: request failed (401): authentication required\n' });
    expect(readSession(h.bridge.url, env)).not.toBeNull();
  });

  it('discards a stale stored session and, without a terminal, says how to log in', async () => {
    writeSession({ bridgeUrl: h.bridge.url, token: 'revoked-token', username: 'root' }, env);
    const result = await runCli(['whoami', ...bridgeArgs()], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `svc: not logged in to ${h.bridge.url}: run \`svc login --bridge-url ${h.bridge.url}\` or set SVC_TOKEN\n`,
    );
    expect(readSession(h.bridge.url, env)).toBeNull();
  });

  it('at a terminal, logs in again once after a stale session', async () => {
    writeSession({ bridgeUrl: h.bridge.url, token: 'revoked-token', username: 'root' }, env);
    const cli = ptyCli(['whoami', ...bridgeArgs()], env);
    await cli.answer('Username:', ADMIN.username);
    await cli.answer('Password:', ADMIN.password);
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toContain('root <root@example.com> (admin)');
    expect(readSession(h.bridge.url, env)?.token).not.toBe('revoked-token');
  });

  it('logout ends the session on the bridge and forgets it here', async () => {
    const token = readSession(h.bridge.url, env)!.token;
    expect(await runCli(['logout', ...bridgeArgs()], env)).toMatchObject({
      code: 0,
      stdout: `logged out of ${h.bridge.url}\n`,
    });
    expect(readSession(h.bridge.url, env)).toBeNull();
    expect((await h.as(token, 'GET', '/auth/me')).status).toBe(401);
    expect(await runCli(['logout', ...bridgeArgs()], env)).toMatchObject({
      code: 0,
      stdout: `not logged in to ${h.bridge.url}\n`,
    });
  });

  it('refuses to log in without a terminal', async () => {
    expect(await runCli(['login', ...bridgeArgs(), '-u', 'root'], env)).toMatchObject({
      code: 1,
      stderr: 'svc: svc login asks for the password at a terminal; in scripts set SVC_TOKEN instead\n',
    });
  });
});

describe('svc users', () => {
  it('adds a user with the password typed twice, lists, changes and removes users', async () => {
    const tokenEnv = { ...env, SVC_TOKEN: admin };
    const add = ptyCli(['users', ...bridgeArgs(), 'add', 'alice', 'alice@example.com'], tokenEnv);
    await add.answer('New password:', 'alice-password-1');
    await add.answer('Confirm password:', 'alice-password-1');
    expect(await add.exited).toBe(0);
    expect(add.output()).toContain('alice <alice@example.com> (member)');
    expect(add.output()).not.toContain('alice-password-1');
    expect((await h.as(null, 'POST', '/auth/login', { username: 'alice', password: 'alice-password-1' })).status).toBe(
      200,
    );

    // A short password or a mistyped confirmation is asked again; the third failure ends the command.
    const mismatch = ptyCli(['users', ...bridgeArgs(), 'add', 'bob', 'bob@example.com'], tokenEnv);
    await mismatch.answer('New password:', 'bob-password-1');
    await mismatch.answer('Confirm password:', 'bob-password-2');
    await mismatch.answer('New password:', 'short');
    await mismatch.answer('New password:', 'bob-password-1');
    await mismatch.answer('Confirm password:', 'bob-password-3');
    expect(await mismatch.exited).toBe(1);
    expect(await mismatch.screen()).toBe(
      [
        'The password must be at least 8 characters.',
        'New password:',
        'Confirm password:',
        'The passwords do not match; try again (2 tries left).',
        'New password:',
        'The password must be at least 8 characters; try again (1 try left).',
        'New password:',
        'Confirm password:',
        'svc: the passwords do not match',
      ].join('\n'),
    );
    expect((await h.as(null, 'POST', '/auth/login', { username: 'bob', password: 'bob-password-1' })).status).toBe(401);

    const listed = await runCli(['users', ...bridgeArgs(), '--json', 'ls'], tokenEnv);
    expect(JSON.parse(listed.stdout).map((u: { username: string }) => u.username)).toEqual(['root', 'alice']);
    const table = await runCli(['users', ...bridgeArgs(), 'ls'], tokenEnv);
    expect(table.stdout.split('\n')[0]).toMatch(/^USERNAME\s+EMAIL\s+ROLE\s+CREATED$/);

    expect(await runCli(['users', ...bridgeArgs(), 'role', 'alice', 'admin'], tokenEnv)).toMatchObject({
      code: 0,
      stdout: 'alice <alice@example.com> (admin)\n',
    });
    expect(await runCli(['users', ...bridgeArgs(), 'email', 'alice', 'alice2@example.com'], tokenEnv)).toMatchObject({
      code: 0,
      stdout: 'alice <alice2@example.com> (admin)\n',
    });
    expect(await runCli(['users', ...bridgeArgs(), 'role', 'alice', 'owner'], tokenEnv)).toMatchObject({ code: 2 }); // a usage error
    const piped = await runCli(['users', ...bridgeArgs(), 'add', 'carol', 'carol@example.com'], tokenEnv);
    expect(piped.code).toBe(1);
    expect(piped.stderr).toMatch(
      /^svc: the password is read from a terminal, and stdin is not one; run `(npx )?svc users add` at a terminal\n$/,
    );

    const passwd = ptyCli(['users', ...bridgeArgs(), 'passwd', 'alice'], tokenEnv);
    await passwd.answer('New password:', 'alice-password-2');
    await passwd.answer('Confirm password:', 'alice-password-2');
    expect(await passwd.exited).toBe(0);
    expect((await h.as(null, 'POST', '/auth/login', { username: 'alice', password: 'alice-password-2' })).status).toBe(
      200,
    );

    expect(await runCli(['users', ...bridgeArgs(), 'rm', 'alice'], tokenEnv)).toMatchObject({
      code: 0,
      stdout: 'removed alice\n',
    });
    expect(await runCli(['users', ...bridgeArgs(), 'rm', 'root'], tokenEnv)).toMatchObject({
      code: 1,
      stderr: 'svc: request failed (409): cannot remove the last admin: root\n',
    });
  });
});

describe('svc client ships add', () => {
  let guarded: TestShip;
  let open: TestShip;
  beforeAll(async () => {
    guarded = await startTestShip(root, {
      name: 'guarded-cli',
      bridgeToken: 'cli-bridge-token-0123456789abcdefghijklmnopq',
    });
    open = await startTestShip(join(root, 'open'), { name: 'open-cli' });
  }, 60_000);
  afterAll(async () => {
    await guarded?.stop();
    await open?.stop();
  });

  it('asks for the tokens without echo at a terminal', async () => {
    const cli = ptyCli(['client', ...bridgeArgs(), 'ships', 'add', guarded.url], { ...env, SVC_TOKEN: admin });
    await cli.answer('Ship token', 'cli-ship-token-0123456789abcdefghijklmnopqrst');
    await cli.answer('Bridge token:', 'cli-bridge-token-0123456789abcdefghijklmnopq');
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toContain('registered ship guarded-cli (online)');
    expect(cli.output()).not.toContain('cli-bridge-token');
    expect((await h.as('cli-ship-token-0123456789abcdefghijklmnopqrst', 'GET', '/workspaces')).status).toBe(403);
    expect(
      (await runCli(['client', ...bridgeArgs(), 'ships', 'rm', 'guarded-cli'], { ...env, SVC_TOKEN: admin })).code,
    ).toBe(0);
  });

  it('takes the tokens from SVC_REGISTER_* instead', async () => {
    const result = await runCli(['client', ...bridgeArgs(), '--json', 'ships', 'add', guarded.url], {
      ...env,
      SVC_TOKEN: admin,
      SVC_REGISTER_SHIP_TOKEN: 'env-ship-token',
      SVC_REGISTER_BRIDGE_TOKEN: 'cli-bridge-token-0123456789abcdefghijklmnopq',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ name: 'guarded-cli', url: guarded.url, status: 'online' });
    expect((await h.as('env-ship-token', 'GET', '/workspaces')).status).toBe(403);
  });

  it('registers without credentials with no terminal and no variables', async () => {
    const result = await runCli(['client', ...bridgeArgs(), 'ships', 'add', open.url], { ...env, SVC_TOKEN: admin });
    expect(result).toMatchObject({ code: 0, stdout: `registered ship open-cli (online) at ${open.url}\n` });
    const listed = await runCli(['client', ...bridgeArgs(), 'ships', 'ls'], { ...env, SVC_TOKEN: admin });
    expect(listed.stdout).toMatch(
      /^NAME\s+STATUS\s+URL\nguarded-cli\s+online\s+http\S+\nopen-cli\s+online\s+http\S+\n$/,
    );
  });
});
