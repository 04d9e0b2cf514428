// Issue #16's `svc client send` through real processes: `npx svc ship` and `npx svc client --url <ship> send`.
// The shell of a workspace is made to run `cat` by a send, then a send's text is read back from the pane;
// --no-enter leaves the line open; an inactive workspace is the ship's 400 as `svc: …` and exit 1.
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmuxSocketFor } from '../../ship/server.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { Tmux } from '../../ship/sessions/tmux.js';
import { killFleetTmux } from '../helpers/cli.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { startNpx, type NpxProcess } from '../helpers/npx.js';
import { until } from '../helpers/poll.js';
import { call, makeTempRoot, path, removeRoot } from '../helpers/ship.js';

let root: string;
let fleetDirectory: string;
let ship: NpxProcess;
let shipUrl: string;
let tmux: Tmux;

beforeAll(async () => {
  root = await makeTempRoot();
  const remote = makeRemote(root);
  fleetDirectory = join(root, 'fleet');
  ship = startNpx(['ship', '--port', '0', '--name', 'sendship', '--fleet-directory', fleetDirectory]);
  await ship.waitFor('ship listening', 60_000);
  shipUrl = `http://localhost:${(JSON.parse(readFileSync(join(fleetDirectory, 'atlas.json'), 'utf8')) as { port: number }).port}`;
  tmux = new Tmux(tmuxSocketFor(realpathSync(fleetDirectory)));
  for (const name of ['w', 'idle']) {
    expect(
      (await call(shipUrl, 'POST', '/workspaces', { url: remote.url, repoName: 'app', name, branch: 'main' })).status,
    ).toBe(201);
  }
  expect((await call(shipUrl, 'POST', path('app', 'w', '/activate'))).status).toBe(200);
}, 90_000);

afterAll(async () => {
  await ship?.terminateThenKill();
  if (fleetDirectory) await killFleetTmux(fleetDirectory).catch(() => undefined);
  if (root) await removeRoot(root);
});

/** `npx svc client --url <ship> send …`: exit code and output (npm's own warnings dropped). */
async function send(...args: string[]): Promise<{ code: number | null; output: string }> {
  const run = startNpx(['client', '--url', shipUrl, 'send', ...args], {
    XDG_CONFIG_HOME: join(root, 'config'),
    NO_COLOR: '1',
  });
  const code = await run.exited;
  return {
    code,
    output: run
      .output()
      .split('\n')
      .filter((line) => !line.startsWith('npm warn'))
      .join('\n'),
  };
}

const pane = async () =>
  (await tmux.run(['capture-pane', '-p', '-t', `=${sessionName('app', 'w')}:`])).stdout.replace(/\n+$/, '');

describe('svc client send', () => {
  it('types into the session silently: cat reads the text back; --no-enter leaves the line open', async () => {
    await until(async () => /[$#] ?$/.test(await pane()), 'the shell prompt');
    expect(await send('app', 'w', 'cat')).toEqual({ code: 0, output: '' });
    await until(
      async () =>
        (
          await tmux.run(['display-message', '-p', '-t', `=${sessionName('app', 'w')}:`, '#{pane_current_command}'])
        ).stdout.trim() === 'cat',
      'cat',
    );
    // The shell turns bracketed paste off as it runs a command; let tmux read that before the next paste.
    await new Promise((r) => setTimeout(r, 200));

    expect(await send('app', 'w', 'answer: yes; go on')).toEqual({ code: 0, output: '' });
    await until(async () => (await pane()).endsWith('answer: yes; go on\nanswer: yes; go on'), 'the line cat echoed');

    expect(await send('app', 'w', '--no-enter', '--', '-half')).toEqual({ code: 0, output: '' });
    await until(async () => (await pane()).endsWith('go on\n-half'), 'the open line');
    expect(await send('app', 'w', '')).toEqual({ code: 0, output: '' });
    await until(async () => (await pane()).endsWith('-half\n-half'), 'the line sent');
  }, 90_000);

  it("an inactive workspace exits 1 with the ship's error", async () => {
    expect(await send('app', 'idle', 'hello')).toEqual({
      code: 1,
      output: 'svc: request failed (400): workspace not active: app/idle\n',
    });
  }, 30_000);
});
