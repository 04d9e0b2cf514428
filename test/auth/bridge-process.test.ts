// `svc bridge` as a real process: the first admin from SVC_BRIDGE_ADMIN_* (and the start-up error naming
// what is missing when only some are set), the prompt at a terminal, the refusal without one, the insecure
// banner and mode, the data directory's modes after a run, and logs that never show a password or token.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempRoot, removeRoot, call } from '../helpers/ship.js';
import { ptyCli, runCli, startCli } from '../helpers/cli.js';

let root: string;
beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  await removeRoot(root);
});

const ADMIN_ENV = {
  SVC_BRIDGE_ADMIN_USER: 'boss',
  SVC_BRIDGE_ADMIN_EMAIL: 'boss@example.com',
  SVC_BRIDGE_ADMIN_PASSWORD: 'sentinel-password-7Hq2',
};
const CLEAN = {
  SVC_BRIDGE_ADMIN_USER: undefined,
  SVC_BRIDGE_ADMIN_EMAIL: undefined,
  SVC_BRIDGE_ADMIN_PASSWORD: undefined,
  SVC_INSECURE_NO_AUTH: undefined,
};

/** Starts `svc bridge` piped; `url` resolves once it listens. */
function startBridgeProcess(dataDirectory: string, env: Record<string, string | undefined>, extra: string[] = []) {
  const cli = startCli(['bridge', '--port', '0', '--data-directory', dataDirectory, ...extra], { ...CLEAN, ...env });
  const listening = /bridge listening on (http:\/\/localhost:\d+)/;
  const url = cli.waitFor(listening, 20_000).then(() => listening.exec(cli.output())![1]!);
  return { url, output: cli.output, stop: async () => void (await cli.stop('SIGTERM')) };
}

function modesUnder(directory: string): string[] {
  const loose: string[] = [];
  const walk = (path: string) => {
    const stats = statSync(path);
    if (stats.mode & 0o077) loose.push(`${path} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(directory);
  return loose;
}

describe('first admin', () => {
  it('comes from the environment; the password and tokens never reach the logs; nothing in the data directory is group- or world-readable', async () => {
    const data = join(root, 'env-admin');
    const bridge = startBridgeProcess(data, ADMIN_ENV);
    try {
      const url = await bridge.url;
      const login = await call(url, 'POST', '/auth/login', {
        username: 'boss',
        password: ADMIN_ENV.SVC_BRIDGE_ADMIN_PASSWORD,
      });
      expect(login.body.user).toMatchObject({ username: 'boss', role: 'admin' });
      const token = login.body.token as string;
      const ticket = (await call(url, 'POST', '/auth/ws-ticket', undefined, { authorization: `Bearer ${token}` })).body
        .ticket as string;
      await call(url, 'GET', `/events?ticket=${ticket}`);
      await call(url, 'GET', '/workspaces', undefined, { authorization: `Bearer ${token}` });
      await call(url, 'POST', '/auth/login', { username: 'boss', password: 'sentinel-wrong-password' });
      await bridge.stop();
      expect(bridge.output()).toContain('created the first admin');
      for (const secret of [ADMIN_ENV.SVC_BRIDGE_ADMIN_PASSWORD, 'sentinel-wrong-password', token, ticket])
        expect(bridge.output()).not.toContain(secret);
      expect(statSync(data).mode & 0o777).toBe(0o700);
      expect(modesUnder(data)).toEqual([]);
    } finally {
      await bridge.stop();
    }
  });

  it('is read only while there are no users', async () => {
    const data = join(root, 'env-admin');
    const bridge = startBridgeProcess(data, { SVC_BRIDGE_ADMIN_USER: 'partial-is-ignored-now' });
    try {
      const url = await bridge.url;
      expect(
        (await call(url, 'POST', '/auth/login', { username: 'boss', password: ADMIN_ENV.SVC_BRIDGE_ADMIN_PASSWORD }))
          .status,
      ).toBe(200);
    } finally {
      await bridge.stop();
    }
  });

  it('needs all three variables, naming the missing ones', async () => {
    const result = await runCli(['bridge', '--port', '0', '--data-directory', join(root, 'partial')], {
      ...CLEAN,
      SVC_BRIDGE_ADMIN_USER: 'boss',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'svc: the first admin needs all of SVC_BRIDGE_ADMIN_USER, SVC_BRIDGE_ADMIN_EMAIL, SVC_BRIDGE_ADMIN_PASSWORD; missing: SVC_BRIDGE_ADMIN_EMAIL, SVC_BRIDGE_ADMIN_PASSWORD',
    );
  });

  it('refuses to start with no users, no variables and no terminal', async () => {
    const result = await runCli(['bridge', '--port', '0', '--data-directory', join(root, 'refused')], CLEAN);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'svc: the bridge has no users: set SVC_BRIDGE_ADMIN_USER, SVC_BRIDGE_ADMIN_EMAIL and SVC_BRIDGE_ADMIN_PASSWORD',
    );
  });

  it('is asked for at a terminal, with the password confirmed and never echoed', async () => {
    const cli = ptyCli(['bridge', '--port', '0', '--data-directory', join(root, 'prompted')], CLEAN);
    try {
      await cli.answer('Username:', 'captain');
      await cli.answer('Email:', 'captain@example.com');
      await cli.answer('Password:', 'captain-password-1');
      await cli.answer('Confirm password:', 'captain-password-1');
      await cli.waitFor(/bridge listening on http:\/\/localhost:\d+/);
      const url = /bridge listening on (http:\/\/localhost:\d+)/.exec(cli.output())![1]!;
      expect(
        (await call(url, 'POST', '/auth/login', { username: 'captain', password: 'captain-password-1' })).status,
      ).toBe(200);
      expect(cli.output()).not.toContain('captain-password-1');
    } finally {
      cli.pty.kill('SIGTERM');
      await cli.exited;
    }
  });
});

describe('--insecure-no-auth', () => {
  it('serves everyone as an admin, says so in /auth/mode, and prints the banner', async () => {
    const bridge = startBridgeProcess(join(root, 'insecure'), { SVC_INSECURE_NO_AUTH: '1' });
    try {
      const url = await bridge.url;
      expect((await call(url, 'GET', '/auth/mode')).body).toEqual({ authRequired: false });
      expect((await call(url, 'GET', '/users')).status).toBe(200);
      expect(
        (await call(url, 'GET', '/auth/me', undefined, { authorization: 'Bearer not-parsed' })).body,
      ).toMatchObject({ role: 'admin' });
      expect(bridge.output()).toContain('AUTHENTICATION IS DISABLED');
    } finally {
      await bridge.stop();
    }
  });
});
