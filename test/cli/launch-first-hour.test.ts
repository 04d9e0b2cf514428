// `svc launch` as a new user meets it (issue #15, "The first hour"), through the real CLI in a pty, reading
// the screen a person sees: it says what it prepares before the first prompt and opens later (item 5); the
// first admin's password is asked again after a short one or a mistyped confirmation, three tries (item 4),
// each answer given the instant its prompt appears (item 3b). `svc client --url` reaches a ship the launch
// gave a token, with the token the launch keeps in a 0600 file, from any directory (item 6). In a git
// checkout, `launch init` and the first launch add what they write to .gitignore, and nothing else (item 8).
// A launch serves the GUI at /ui/ on its bridge's port.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTempRoot, removeRoot, TEST_SESSION_COMMAND } from '../helpers/ship.js';
import { killFleetTmux, ptyCli, runCli, type PtyCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { startNpx } from '../helpers/npx.js';

const NO_ADMIN = {
  SVC_BRIDGE_ADMIN_USER: undefined,
  SVC_BRIDGE_ADMIN_EMAIL: undefined,
  SVC_BRIDGE_ADMIN_PASSWORD: undefined,
  SVC_INSECURE_NO_AUTH: undefined,
  SVC_TOKEN: undefined,
};
const ENV = { ...NO_ADMIN, SVC_SESSION_COMMAND: TEST_SESSION_COMMAND, SVC_BRIDGE_TOKEN: undefined };
const ADMIN_ENV = {
  SVC_BRIDGE_ADMIN_USER: 'admin',
  SVC_BRIDGE_ADMIN_EMAIL: 'admin@example.com',
  SVC_BRIDGE_ADMIN_PASSWORD: 'admin-password-1',
  SVC_TOKEN: '',
};

let root: string;
beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  await removeRoot(root);
});

interface Site {
  dir: string;
  bridge: number;
  ship: number;
}

/** A directory with a svc.yaml of one local ship `local`, on free ports. */
async function site(name: string): Promise<Site> {
  const dir = join(root, name);
  const ports = { bridge: await freePort(), ship: await freePort() };
  execFileSync('mkdir', ['-p', dir]);
  writeFileSync(
    join(dir, 'svc.yaml'),
    `bridge:\n  port: ${ports.bridge}\nships:\n  local:\n    source: local\n    port: ${ports.ship}\n    fleetDirectory: .svc/fleet\n`,
  );
  return { dir, ...ports };
}

/** Ctrl-C typed at the terminal: SIGINT to the foreground process group (npm's and svc's under npx). */
async function stop(cli: PtyCli): Promise<void> {
  cli.pty.write('\x03');
  const code = await cli.exited;
  expect(code, (await cli.screen()).split('\n').slice(-4).join('\n')).toBe(0);
}

describe('svc launch at a terminal', () => {
  let first: Site;
  beforeAll(async () => {
    first = await site('first');
  });

  it('says what it prepares, asks for the first admin, and asks again after a short password or a mistyped confirmation', async () => {
    const cli = ptyCli(['launch'], ENV, first.dir);
    try {
      await cli.answer('Username: ', 'pilot');
      await cli.answer('Email: ', 'pilot@example.com');
      await cli.answer('Password: ', 'short');
      await cli.answer('Password: ', 'pilot-password-1');
      await cli.answer('Confirm password: ', 'pilot-password-2');
      await cli.answer('Password: ', 'pilot-password-1');
      await cli.answer('Confirm password: ', 'pilot-password-1');
      await cli.waitFor('Ctrl-C stops everything.', 30_000);
      const login = await call(`http://localhost:${first.bridge}`, 'POST', '/auth/login', {
        username: 'pilot',
        password: 'pilot-password-1',
      });
      expect(login.status).toBe(200);
      expect(cli.output()).not.toContain('pilot-password');
      const screen = await cli.screen();
      expect(screen.slice(0, screen.indexOf('\nTry:'))).toBe(
        [
          'preparing the embedded store in ./.svc/bridge (first start takes a few seconds)…',
          'This bridge has no users yet. Create the first admin.',
          'Username: pilot',
          'Email: pilot@example.com',
          'The password must be at least 8 characters.',
          'Password:',
          'The password must be at least 8 characters; try again (2 tries left).',
          'Password:',
          'Confirm password:',
          'The passwords do not match; try again (1 try left).',
          'Password:',
          'Confirm password:',
          `svc is running (from ${join(first.dir, 'svc.yaml')})`,
          `  bridge  http://localhost:${first.bridge}  store pglite at ${join(first.dir, '.svc/bridge/db')}`,
          `  ship    local  http://localhost:${first.ship}  fleet ${join(first.dir, '.svc/fleet')}  (token pair generated)`,
          '',
        ].join('\n'),
      );
    } finally {
      await stop(cli);
    }
  }, 90_000);

  it('says it opens the store on a later start', async () => {
    const cli = ptyCli(['launch'], ENV, first.dir);
    try {
      await cli.waitFor('Ctrl-C stops everything.', 30_000);
      expect((await cli.screen()).split('\n').slice(0, 2)).toEqual([
        'opening the embedded store in ./.svc/bridge…',
        `svc is running (from ${join(first.dir, 'svc.yaml')})`,
      ]);
      // The launch serves the GUI, as `svc bridge` does: `/` sends the browser to it, with its headers.
      const opened = await fetch(`http://localhost:${first.bridge}/`, { redirect: 'manual' });
      expect([opened.status, opened.headers.get('location')]).toEqual([302, '/ui/']);
      const page = await fetch(`http://localhost:${first.bridge}/ui/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(await page.text()).toContain('<div id="root"></div>');
    } finally {
      await stop(cli);
    }
  }, 60_000);

  it('ends after the third refused password, saying why', async () => {
    const gaveUp = await site('gave-up');
    const cli = ptyCli(['launch'], ENV, gaveUp.dir);
    await cli.answer('Username: ', 'pilot');
    await cli.answer('Email: ', 'pilot@example.com');
    for (let i = 0; i < 3; i++) await cli.answer('Password: ', 'short');
    expect(await cli.exited).toBe(1);
    expect((await cli.screen()).split('\n').slice(-3)).toEqual([
      'The password must be at least 8 characters; try again (1 try left).',
      'Password:',
      'svc: the password must be at least 8 characters',
    ]);
  }, 60_000);
});

describe('svc client --url to a ship svc launch started', () => {
  it('presents the bridge token the launch keeps in a 0600 file, from any directory, unless SVC_BRIDGE_TOKEN is set', async () => {
    const launched = await site('direct');
    const config = { XDG_CONFIG_HOME: join(launched.dir, 'user-config') };
    const launch = startNpx(['launch', '--config-path', join(launched.dir, 'svc.yaml')], { ...ADMIN_ENV, ...config });
    try {
      await launch.waitFor('Ctrl-C stops everything.', 60_000);
      const file = join(launched.dir, '.svc/bridge/local-ships.json');
      expect(launch.output()).toContain(
        `  npx svc client --url ${launched.ship} ls   (straight to ship local, with the bridge token in ${file})`,
      );
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(join(launched.dir, '.svc/bridge')).mode & 0o777).toBe(0o700);
      const { ships } = JSON.parse(readFileSync(file, 'utf8')) as {
        ships: Array<{ name: string; url: string; bridgeToken: string }>;
      };
      expect(ships).toEqual([
        {
          name: 'local',
          url: `http://localhost:${launched.ship}`,
          bridgeToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        },
      ]);
      expect(launch.output()).not.toContain(ships[0]!.bridgeToken);

      // Through npx, from the checkout (another directory than the launch's).
      const ls = startNpx(['client', '--url', String(launched.ship), 'ls'], config);
      expect(await ls.exited).toBe(0);
      expect(ls.output()).toContain('no workspaces\n');
      // And from a directory of its own, as curl would with the token read from the file.
      expect(
        await runCli(
          ['client', '--url', String(launched.ship), 'ls'],
          { ...config, SVC_BRIDGE_TOKEN: undefined },
          20_000,
          root,
        ),
      ).toMatchObject({ code: 0, stdout: 'no workspaces\n' });
      const direct = await call(`http://localhost:${launched.ship}`, 'GET', '/workspaces', undefined, {
        authorization: `Bearer ${ships[0]!.bridgeToken}`,
      });
      expect(direct.status).toBe(200);
      // SVC_BRIDGE_TOKEN wins; without the file (another user's config) the ship answers 401 as before.
      const wrong = await runCli(['client', '--url', String(launched.ship), 'ls'], {
        ...config,
        SVC_BRIDGE_TOKEN: 'not-the-token',
      });
      expect(wrong).toMatchObject({ code: 1, stderr: expect.stringContaining('(401)') });
      const elsewhere = await runCli(['client', '--url', String(launched.ship), 'ls'], {
        XDG_CONFIG_HOME: join(root, 'other-user'),
        SVC_BRIDGE_TOKEN: undefined,
      });
      expect(elsewhere).toMatchObject({ code: 1, stderr: expect.stringContaining('(401)') });
    } finally {
      // Ctrl-C, as a person stops it: the launch ends its ship's tmux server on the way out.
      launch.signalGroup('SIGINT');
      await launch.exited;
      await killFleetTmux(join(launched.dir, '.svc/fleet'));
    }
  }, 120_000);
});

describe('svc launch in a git checkout', () => {
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

  it('launch init and the first launch add svc.yaml, svc.secrets and .svc/ to .gitignore, keeping what was there', async () => {
    const checkout = await site('checkout');
    execFileSync('rm', [join(checkout.dir, 'svc.yaml')]);
    git(checkout.dir, 'init', '-q');
    writeFileSync(join(checkout.dir, '.gitignore'), 'node_modules/'); // no newline at the end
    const init = await runCli(['launch', 'init'], {}, 20_000, checkout.dir);
    expect(init).toMatchObject({
      code: 0,
      stdout: `wrote ${join(checkout.dir, 'svc.yaml')}\nadded /svc.yaml, /svc.secrets to ./.gitignore (this host's configuration and secrets stay out of git)\n`,
    });
    // The scaffold's fixed ports, moved to free ones for the test.
    const yaml = readFileSync(join(checkout.dir, 'svc.yaml'), 'utf8')
      .replace('port: 4800', `port: ${checkout.bridge}`)
      .replace('port: 4700', `port: ${checkout.ship}`);
    writeFileSync(join(checkout.dir, 'svc.yaml'), yaml);
    writeFileSync(join(checkout.dir, 'svc.secrets'), 'UNUSED=1\n', { mode: 0o600 });

    const launch = ptyCli(['launch'], { ...ENV, ...ADMIN_ENV }, checkout.dir, { npx: true });
    try {
      await launch.waitFor('Ctrl-C stops everything.', 60_000);
      const screen = await launch.screen();
      expect(screen.slice(screen.indexOf('added'), screen.indexOf('svc is running'))).toBe(
        "added /.svc/ to ./.gitignore (svc's store and workspaces stay out of git)\npreparing the embedded store in ./.svc/bridge (first start takes a few seconds)…\n",
      );
    } finally {
      await stop(launch);
    }
    expect(readFileSync(join(checkout.dir, '.gitignore'), 'utf8')).toBe(
      'node_modules/\n/svc.yaml\n/svc.secrets\n/.svc/\n',
    );
    expect(git(checkout.dir, 'status', '--porcelain', '--untracked-files=all')).toBe('?? .gitignore\n');

    // A later launch, and init --force over the existing file, add nothing more.
    const again = ptyCli(['launch'], ENV, checkout.dir);
    try {
      await again.waitFor('Ctrl-C stops everything.', 60_000);
      expect(again.output()).not.toContain('added');
    } finally {
      await stop(again);
    }
    expect(readFileSync(join(checkout.dir, '.gitignore'), 'utf8')).toBe(
      'node_modules/\n/svc.yaml\n/svc.secrets\n/.svc/\n',
    );
    await killFleetTmux(join(checkout.dir, '.svc/fleet'));
  }, 120_000);

  it('adds nothing outside a git checkout, or where git already ignores it', async () => {
    const plain = join(root, 'plain');
    execFileSync('mkdir', ['-p', plain]);
    expect(await runCli(['launch', 'init'], {}, 20_000, plain)).toMatchObject({
      code: 0,
      stdout: `wrote ${join(plain, 'svc.yaml')}\n`,
    });
    expect(existsSync(join(plain, '.gitignore'))).toBe(false);

    const nested = join(root, 'nested');
    execFileSync('mkdir', ['-p', join(nested, 'sub')]);
    git(nested, 'init', '-q');
    writeFileSync(join(nested, '.gitignore'), 'svc.*\n');
    expect(await runCli(['launch', 'init'], {}, 20_000, join(nested, 'sub'))).toMatchObject({
      code: 0,
      stdout: `wrote ${join(nested, 'sub/svc.yaml')}\n`,
    });
    expect(existsSync(join(nested, 'sub/.gitignore'))).toBe(false);
  });
});
