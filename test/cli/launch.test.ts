// `svc launch` through the real binary: with no configuration (env admin, then a prompted one at a pty),
// provisioning a token pair on the first launch and rotating only the shipToken on the next; with a
// configuration of two local ships and a remote one whose pinned tokens come from svc.secrets and ${VAR}
// (one local ship's sessionEnv too: its session sees the key from svc.secrets);
// configuration errors; `launch init`; and Ctrl-C stopping everything with exit code 0 and no process left.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { connectTerminal } from '../helpers/terminal.js';
import { alive, ptyCli, runCli, startCli } from '../helpers/cli.js';
import { startNpx } from '../helpers/npx.js';
import { freePort } from '../helpers/ports.js';
import { TEST_SESSION_COMMAND } from '../helpers/ship.js';
import { tmuxSocketFor } from '../../ship/server.js';
import { openStore } from '../../bridge/store/store.js';
import { tokenHash } from '../../server/tokens.js';

const ADMIN_ENV = {
  SVC_BRIDGE_ADMIN_USER: 'admin',
  SVC_BRIDGE_ADMIN_EMAIL: 'admin@example.com',
  SVC_BRIDGE_ADMIN_PASSWORD: 'admin-password-1',
};
const NO_ADMIN = {
  SVC_BRIDGE_ADMIN_USER: undefined,
  SVC_BRIDGE_ADMIN_EMAIL: undefined,
  SVC_BRIDGE_ADMIN_PASSWORD: undefined,
  SVC_INSECURE_NO_AUTH: undefined,
  SVC_TOKEN: undefined,
};

let root: string;
beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  await removeRoot(root);
});

const tmuxServerUp = (fleetDirectory: string) => {
  try {
    execFileSync('tmux', ['-L', tmuxSocketFor(fleetDirectory), 'list-sessions'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

async function login(url: string, username: string, password: string): Promise<string> {
  const reply = await call(url, 'POST', '/auth/login', { username, password });
  expect(reply.status).toBe(200);
  return reply.body.token;
}

async function storedShip(dataDirectory: string, name: string) {
  const store = await openStore({ dataDirectory });
  try {
    return await store.ships.get(name);
  } finally {
    await store.close();
  }
}

describe('svc launch with no configuration', () => {
  const cwd = () => join(root, 'zero');

  it('starts a bridge and a ship named after the host, provisions and registers them, and stops on Ctrl-C', async () => {
    execFileSync('mkdir', ['-p', cwd()]);
    const launch = startCli(
      ['launch'],
      { ...NO_ADMIN, ...ADMIN_ENV, SVC_SESSION_COMMAND: TEST_SESSION_COMMAND },
      cwd(),
    );
    try {
      await launch.waitFor('Ctrl-C stops everything.');
      const out = launch.output();
      expect(out).toContain('svc is running');
      expect(out).toContain(`bridge  http://localhost:4800  store pglite at ${join(cwd(), '.svc/bridge/db')}`);
      expect(out).toContain(
        `ship    ${os.hostname()}  http://localhost:4700  fleet ${join(cwd(), '.svc/fleet')}  (token pair generated)`,
      );
      expect(out).toContain('  svc login');
      const token = await login('http://localhost:4800', 'admin', ADMIN_ENV.SVC_BRIDGE_ADMIN_PASSWORD);
      expect(
        (await call('http://localhost:4800', 'GET', '/ships', undefined, { authorization: `Bearer ${token}` })).body,
      ).toEqual([{ name: os.hostname(), url: 'http://localhost:4700', status: 'online' }]);
      // The ship holds the bridge token: nobody else gets in.
      expect((await call('http://localhost:4700', 'GET', '/workspaces')).status).toBe(401);
    } finally {
      expect(await launch.stop('SIGINT'), launch.output()).toBe(0);
    }
    expect(alive(launch.child.pid!)).toBe(false);
    expect(tmuxServerUp(join(cwd(), '.svc/fleet'))).toBe(false);
  }, 60_000);

  it('keeps the bridge token and rotates only the ship token on the next launch', async () => {
    const data = join(cwd(), '.svc/bridge');
    const before = await storedShip(data, os.hostname());
    expect(before?.bridgeToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const launch = startCli(['launch'], { ...NO_ADMIN, SVC_SESSION_COMMAND: TEST_SESSION_COMMAND }, cwd());
    try {
      await launch.waitFor('Ctrl-C stops everything.');
      expect(launch.output()).toContain('(token pair rotated)');
    } finally {
      expect(await launch.stop('SIGTERM')).toBe(0);
    }
    const after = await storedShip(data, os.hostname());
    expect(after?.bridgeToken).toBe(before?.bridgeToken);
    expect(after?.shipTokenHash).not.toBe(before?.shipTokenHash);
  }, 60_000);

  it('asks for the first admin at a terminal', async () => {
    const fresh = join(root, 'prompted');
    execFileSync('mkdir', ['-p', fresh]);
    const cli = ptyCli(['launch'], { ...NO_ADMIN, SVC_SESSION_COMMAND: TEST_SESSION_COMMAND }, fresh);
    try {
      await cli.answer('Username:', 'pilot');
      await cli.answer('Email:', 'pilot@example.com');
      await cli.answer('Password:', 'pilot-password-1');
      await cli.answer('Confirm password:', 'pilot-password-1');
      await cli.waitFor('Ctrl-C stops everything.', 30_000);
      await login('http://localhost:4800', 'pilot', 'pilot-password-1');
      expect(cli.output()).not.toContain('pilot-password-1');
    } finally {
      cli.pty.kill('SIGINT');
      expect(await cli.exited).toBe(0);
    }
  }, 60_000);
});

describe('svc launch with a configuration', () => {
  let far: TestShip;
  let ports: { bridge: number; alpha: number; beta: number };
  const dir = () => join(root, 'configured');
  beforeAll(async () => {
    far = await startTestShip(join(root, 'far'), {
      name: 'far-ship',
      bridgeToken: 'far-bridge-token-0123456789abcdefghijklmnopq',
    });
    ports = { bridge: await freePort(), alpha: await freePort(), beta: await freePort() };
    execFileSync('mkdir', ['-p', dir()]);
    writeFileSync(
      join(dir(), 'svc.yaml'),
      [
        'bridge:',
        `  port: ${ports.bridge}`,
        `  publicUrl: http://localhost:${ports.bridge}`,
        'ships:',
        '  alpha:',
        '    source: local',
        `    port: ${ports.alpha}`,
        '    sessionEnv:',
        '      MODEL_KEY: secrets:MODEL_KEY',
        '  beta:',
        '    source: local',
        `    port: ${ports.beta}`,
        '    fleetDirectory: fleets/beta',
        '  far:',
        '    source: remote',
        `    url: ${far.url}`,
        '    shipToken: secrets:FAR_SHIP_TOKEN',
        '    bridgeToken: ${FAR_BRIDGE_TOKEN}',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(dir(), 'svc.secrets'),
      'FAR_SHIP_TOKEN=far-ship-token-0123456789abcdefghijklmnopqrs\nMODEL_KEY=launch-model-key-42\n',
      { mode: 0o600 },
    );
  }, 60_000);
  afterAll(async () => {
    await far?.stop();
  });

  it('spawns the local ships, registers the remote one with its pinned pair, and stops cleanly', async () => {
    const launch = startCli(['launch', '--config-path', join(dir(), 'svc.yaml')], {
      ...NO_ADMIN,
      ...ADMIN_ENV,
      FAR_BRIDGE_TOKEN: 'far-bridge-token-0123456789abcdefghijklmnopq',
      SVC_SESSION_COMMAND: TEST_SESSION_COMMAND,
    });
    const bridgeUrl = `http://localhost:${ports.bridge}`;
    try {
      await launch.waitFor('Ctrl-C stops everything.');
      const out = launch.output();
      expect(out).toContain(`svc is running (from ${join(dir(), 'svc.yaml')})`);
      expect(out).toContain(
        `ship    alpha  http://localhost:${ports.alpha}  fleet ${join(dir(), '.svc/fleet-alpha')}  (token pair generated)`,
      );
      expect(out).toContain(
        `ship    beta  http://localhost:${ports.beta}  fleet ${join(dir(), 'fleets/beta')}  (token pair generated)`,
      );
      expect(out).toContain(`remote  far-ship  ${far.url}`);
      expect(out).toContain(`--bridge-url ${bridgeUrl}`);
      const token = await login(bridgeUrl, 'admin', ADMIN_ENV.SVC_BRIDGE_ADMIN_PASSWORD);
      const ships = (await call(bridgeUrl, 'GET', '/ships', undefined, { authorization: `Bearer ${token}` }))
        .body as Array<{ name: string; status: string }>;
      expect(ships.map((s) => [s.name, s.status])).toEqual([
        ['alpha', 'online'],
        ['beta', 'online'],
        ['far-ship', 'online'],
      ]);
      // The pinned ship token is the one stored for the remote ship.
      expect(
        (
          await call(bridgeUrl, 'GET', '/workspaces', undefined, {
            authorization: 'Bearer far-ship-token-0123456789abcdefghijklmnopqrs',
          })
        ).status,
      ).toBe(403);

      // alpha's sessionEnv: its sessions receive MODEL_KEY from svc.secrets.
      const auth = { authorization: `Bearer ${token}` };
      const remote = makeRemote(root, 'launch-remote');
      expect((await call(bridgeUrl, 'POST', '/repos', { name: 'app', url: remote.url }, auth)).status).toBe(201);
      expect(
        (
          await call(
            bridgeUrl,
            'POST',
            '/workspaces',
            { ship: 'alpha', repoName: 'app', name: 'keyed', branch: 'main' },
            auth,
          )
        ).status,
      ).toBe(201);
      expect((await call(bridgeUrl, 'POST', path('app', 'keyed', '/activate'), undefined, auth)).status).toBe(200);
      const { ticket } = (await call(bridgeUrl, 'POST', '/auth/ws-ticket', undefined, auth)).body as { ticket: string };
      const terminal = await connectTerminal(
        `${bridgeUrl.replace(/^http/, 'ws')}${path('app', 'keyed', '/terminal')}?ticket=${ticket}`,
        { perMessageDeflate: true },
      );
      try {
        await terminal.until((screen) => /[$#] ?$/m.test(screen.text()), 20_000);
        terminal.input('echo "key""=[$MODEL_KEY]"\r');
        await terminal.until((screen) => screen.text().includes('key=[launch-model-key-42]'), 20_000);
      } finally {
        await terminal.close();
      }
      // Inactive again, so the stop below leaves no tmux server (an active workspace would keep its session).
      expect((await call(bridgeUrl, 'POST', path('app', 'keyed', '/deactivate'), undefined, auth)).status).toBe(200);
    } finally {
      expect(await launch.stop('SIGINT'), launch.output()).toBe(0);
    }
    expect(alive(launch.child.pid!)).toBe(false);
    expect(tmuxServerUp(join(dir(), '.svc/fleet-alpha'))).toBe(false);
    const far2 = await storedShip(join(dir(), '.svc/bridge'), 'far-ship');
    expect(far2).toMatchObject({
      shipTokenHash: tokenHash('far-ship-token-0123456789abcdefghijklmnopqrs'),
      bridgeToken: 'far-bridge-token-0123456789abcdefghijklmnopq',
    });
  }, 90_000);

  it('refuses a configuration with problems, listing each', async () => {
    const bad = join(root, 'bad.yaml');
    writeFileSync(bad, 'bridge:\n  port: high\nships:\n  x:\n    source: somewhere\n');
    const result = await runCli(['launch', '--config-path', bad], NO_ADMIN);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `svc: the launch configuration has 2 problems:\n  ${bad}:2:3: bridge.port: expected an integer\n  ${bad}:5:5: ships.x.source: expected one of "local", "remote"\n`,
    );
    const missing = await runCli(['launch', '--config-path', join(root, 'nope.yaml')], NO_ADMIN);
    expect(missing).toMatchObject({
      code: 1,
      stderr: `svc: no launch configuration at ${join(root, 'nope.yaml')} (\`svc launch init\` writes one)\n`,
    });
  });
});

describe('svc launch init', () => {
  it('writes a scaffold once, and again only with --force', async () => {
    const dir = join(root, 'init');
    execFileSync('mkdir', ['-p', dir]);
    expect(await runCli(['launch', 'init'], {}, 20_000, dir)).toMatchObject({
      code: 0,
      stdout: `wrote ${join(dir, 'svc.yaml')}\n`,
    });
    expect(readFileSync(join(dir, 'svc.yaml'), 'utf8')).toContain('source: local');
    const again = await runCli(['launch', 'init'], {}, 20_000, dir);
    expect(again).toMatchObject({ code: 1, stderr: `svc: ${join(dir, 'svc.yaml')} exists; --force overwrites it\n` });
    expect((await runCli(['launch', 'init', '--force'], {}, 20_000, dir)).code).toBe(0);
    expect(existsSync(join(dir, 'svc.yaml'))).toBe(true);
  });

  it('keeps the name a launch without a file gave the ship, so the roster has no offline ghost (issue #15 item 7)', async () => {
    const dir = join(root, 'continued');
    execFileSync('mkdir', ['-p', dir]);
    const zero = startCli(['launch'], { ...NO_ADMIN, ...ADMIN_ENV, SVC_SESSION_COMMAND: TEST_SESSION_COMMAND }, dir);
    await zero.waitFor('Ctrl-C stops everything.', 60_000);
    expect(await zero.stop('SIGINT')).toBe(0);
    expect(await runCli(['launch', 'init'], {}, 20_000, dir)).toMatchObject({
      code: 0,
      stdout: `wrote ${join(dir, 'svc.yaml')}\n`,
    });
    expect(readFileSync(join(dir, 'svc.yaml'), 'utf8')).toContain(`    name: ${JSON.stringify(os.hostname())}   #`);
    const launch = startCli(['launch'], { ...NO_ADMIN, SVC_SESSION_COMMAND: TEST_SESSION_COMMAND }, dir);
    try {
      await launch.waitFor('Ctrl-C stops everything.');
      expect(launch.output()).toContain(
        `ship    ${os.hostname()}  http://localhost:4700  fleet ${join(dir, '.svc/fleet')}  (token pair rotated)`,
      );
      const token = await login('http://localhost:4800', 'admin', ADMIN_ENV.SVC_BRIDGE_ADMIN_PASSWORD);
      const ships = startNpx(['client', 'ships', 'ls'], { SVC_TOKEN: token, NO_COLOR: '1' });
      expect(await ships.exited).toBe(0);
      const host = os.hostname().replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
      expect(ships.output().slice(ships.output().indexOf('NAME'))).toMatch(
        new RegExp(`^NAME\\s+STATUS\\s+URL\\n${host}\\s+online\\s+http://localhost:4700\\n$`),
      );
    } finally {
      expect(await launch.stop('SIGINT')).toBe(0);
    }
  }, 120_000);
});
