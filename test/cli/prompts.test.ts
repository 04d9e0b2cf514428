// Every question the CLI asks (issue #15 item 3b), answered in a pty the instant its text appears, the way a
// paste, a password manager or a script delivers it, and read back as the screen a person sees: `svc login`,
// a login on the spot, `svc users add` and `passwd`, `svc client ships add` (both tokens, blank). Answers
// sent together in one write (a script that does not wait for the second prompt) reach both prompts. Each
// answer ends its line, so the next prompt or result starts on a line of its own. The first-admin prompts of
// `svc launch` are in launch.test.ts.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { ptyCli, type PtyCli } from '../helpers/cli.js';
import { writeSession } from '../../cli/auth/session-files.js';
import { ADMIN, startAuthBridge, type AuthHarness } from '../auth/harness.js';

const SHIP_TOKEN = 'prompt-ship-token-0123456789abcdefghijklmnopq';
const BRIDGE_TOKEN = 'prompt-bridge-token-0123456789abcdefghijklmno';

let root: string;
let h: AuthHarness;
let admin: string;
let guarded: TestShip;
let configs = 0;
/** A fresh config directory (no stored session) unless `session` is given. */
const envWith = (session?: string) => {
  const env = { XDG_CONFIG_HOME: join(root, `config-${configs++}`), SVC_TOKEN: '' };
  if (session) writeSession({ bridgeUrl: h.bridge.url, token: session, username: ADMIN.username }, env);
  return env;
};
const bridgeArgs = () => ['--bridge-url', h.bridge.url];

/** The exit code; a command still waiting for input after 10 s lost an answer: fail with its screen. */
async function exitOf(cli: PtyCli): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      cli.pty.kill('SIGKILL');
      void cli
        .screen()
        .then((screen) => reject(new Error(`still waiting for input after 10 s; the screen:\n${screen}`)));
    }, 10_000);
  });
  try {
    return await Promise.race([cli.exited, hung]);
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(async () => {
  root = await makeTempRoot();
  h = await startAuthBridge(root, { clock: undefined });
  admin = await h.login(ADMIN.username, ADMIN.password);
  guarded = await startTestShip(join(root, 'guarded'), { name: 'guarded', bridgeToken: BRIDGE_TOKEN });
}, 60_000);

afterAll(async () => {
  await guarded?.stop();
  await h?.bridge.close();
  await removeRoot(root);
});

describe('every prompt takes its answer the instant it is shown', () => {
  it('svc login: Username, Password', async () => {
    const cli = ptyCli(['login', ...bridgeArgs()], envWith());
    await cli.answer('Username: ', ADMIN.username);
    await cli.answer('Password: ', ADMIN.password);
    expect(await exitOf(cli)).toBe(0);
    expect(await cli.screen()).toBe(`Username: root\nPassword:\nlogged in to ${h.bridge.url} as root (admin)`);
  });

  it('a command with no session logs in on the spot', async () => {
    const cli = ptyCli(['whoami', ...bridgeArgs()], envWith());
    await cli.answer('Username: ', ADMIN.username);
    await cli.answer('Password: ', ADMIN.password);
    expect(await exitOf(cli)).toBe(0);
    expect(await cli.screen()).toBe(
      `Log in to ${h.bridge.url}\nUsername: root\nPassword:\nroot <root@example.com> (admin)`,
    );
  });

  it('svc users add and passwd: the rule, New password, Confirm password', async () => {
    const add = ptyCli(['users', ...bridgeArgs(), 'add', 'dora', 'dora@example.com'], envWith(admin));
    await add.answer('New password: ', 'dora-password-1');
    await add.answer('Confirm password: ', 'dora-password-1');
    expect(await exitOf(add)).toBe(0);
    expect(await add.screen()).toBe(
      'The password must be at least 8 characters.\nNew password:\nConfirm password:\ndora <dora@example.com> (member)',
    );

    const passwd = ptyCli(['users', ...bridgeArgs(), 'passwd', 'dora'], envWith(admin));
    await passwd.answer('New password: ', 'dora-password-2');
    await passwd.answer('Confirm password: ', 'dora-password-2');
    expect(await exitOf(passwd)).toBe(0);
    expect(await passwd.screen()).toBe(
      'The password must be at least 8 characters.\nNew password:\nConfirm password:\npassword changed for dora; their sessions have ended',
    );
    expect((await h.as(null, 'POST', '/auth/login', { username: 'dora', password: 'dora-password-2' })).status).toBe(
      200,
    );
  });

  it('svc client ships add: Ship token, Bridge token', async () => {
    const cli = ptyCli(['client', ...bridgeArgs(), 'ships', 'add', guarded.url], envWith(admin));
    await cli.answer('Ship token (blank: register without credentials): ', SHIP_TOKEN);
    await cli.answer('Bridge token: ', BRIDGE_TOKEN);
    expect(await exitOf(cli)).toBe(0);
    expect(await cli.screen()).toBe(
      `Ship token (blank: register without credentials):\nBridge token:\nregistered ship guarded (online) at ${guarded.url}`,
    );
    expect((await h.as(admin, 'DELETE', '/ships/guarded')).status).toBe(200);
  });

  it('svc client ships add: a blank ship token registers without credentials', async () => {
    const open = await startTestShip(join(root, 'open'), { name: 'open' });
    try {
      const cli = ptyCli(['client', ...bridgeArgs(), 'ships', 'add', open.url], envWith(admin));
      await cli.answer('Ship token (blank: register without credentials): ', '');
      expect(await exitOf(cli)).toBe(0);
      expect(await cli.screen()).toBe(
        `Ship token (blank: register without credentials):\nregistered ship open (online) at ${open.url}`,
      );
    } finally {
      await h.as(admin, 'DELETE', '/ships/open');
      await open.stop();
    }
  });
});

describe('answers sent together, before the next prompt is shown', () => {
  it('svc client ships add gets both tokens from one write', async () => {
    const cli = ptyCli(['client', ...bridgeArgs(), 'ships', 'add', guarded.url], envWith(admin));
    await cli.answer('Ship token (blank: register without credentials): ', `${SHIP_TOKEN}\r${BRIDGE_TOKEN}`);
    expect(await exitOf(cli)).toBe(0);
    expect(await cli.screen()).toBe(
      `Ship token (blank: register without credentials):\nBridge token:\nregistered ship guarded (online) at ${guarded.url}`,
    );
    expect((await h.as(admin, 'DELETE', '/ships/guarded')).status).toBe(200);
  });

  it('a login on the spot, then svc users add, get their answers from one write each (CRLF counts as one Enter)', async () => {
    const env = envWith();
    const login = ptyCli(['whoami', ...bridgeArgs()], env);
    await login.answer('Username: ', `${ADMIN.username}\r\n${ADMIN.password}`);
    expect(await exitOf(login)).toBe(0);
    expect(await login.screen()).toBe(
      `Log in to ${h.bridge.url}\nUsername: root\nPassword:\nroot <root@example.com> (admin)`,
    );

    const add = ptyCli(['users', ...bridgeArgs(), 'add', 'erin', 'erin@example.com'], env);
    await add.answer('New password: ', 'erin-password-1\rerin-password-1');
    expect(await exitOf(add)).toBe(0);
    expect(await add.screen()).toBe(
      'The password must be at least 8 characters.\nNew password:\nConfirm password:\nerin <erin@example.com> (member)',
    );
  });
});

describe('through npx', () => {
  it('npx svc client ships add takes both tokens the instant each prompt appears', async () => {
    const cli = ptyCli(['client', ...bridgeArgs(), 'ships', 'add', guarded.url], envWith(admin), root, { npx: true });
    await cli.answer('Ship token (blank: register without credentials): ', SHIP_TOKEN);
    await cli.answer('Bridge token: ', BRIDGE_TOKEN);
    expect(await exitOf(cli)).toBe(0);
    // npm may print its own notices first; from the prompt on, the screen is svc's.
    const screen = await cli.screen();
    expect(screen.slice(screen.indexOf('Ship token'))).toBe(
      `Ship token (blank: register without credentials):\nBridge token:\nregistered ship guarded (online) at ${guarded.url}`,
    );
    expect(cli.output()).not.toContain(BRIDGE_TOKEN);
    expect((await h.as(admin, 'DELETE', '/ships/guarded')).status).toBe(200);
  }, 30_000);
});
