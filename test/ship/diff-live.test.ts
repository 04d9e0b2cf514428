// An active workspace's status reads the working tree as it is when the request arrives (issue #14 item 2):
// an edit, a `git add` and two commits on a branch with an upstream each show in a status read straight
// after the change, through the ship, through the bridge, and through a real `svc ship` process. Each case
// first reads once so a reading exists that a stale answer could come from (before the fix, a finished
// reading was reused for a second).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bridge } from '../../bridge/server.js';
import { tmuxSocketFor } from '../../ship/server.js';
import { Tmux } from '../../ship/sessions/tmux.js';
import { startRoutedFleet, type RoutedFleet } from '../helpers/bridge.js';
import { git, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, TEST_SESSION_COMMAND, type TestShip } from '../helpers/ship.js';

const CLI = resolve(import.meta.dirname, '../../bin/svc.js');

let root: string;
let remote: RemoteFixture;
let ship: TestShip;
let bridge: Bridge;
let fleet: RoutedFleet | undefined;

beforeAll(async () => {
  root = await makeTempRoot();
  fleet = await startRoutedFleet(root, 'live', { name: 'live' });
  ({ ship, bridge, remote } = fleet);
}, 60_000);
afterAll(async () => {
  await fleet?.close();
  await removeRoot(root);
});

type Via = 'ship' | 'bridge';
const base = (via: Via) => (via === 'ship' ? ship.url : bridge.url);
const diffOf = async (via: Via, name: string) => {
  const reply = await call(base(via), 'GET', path('live', name));
  expect(reply.status).toBe(200);
  expect(reply.body.state).toBe('active');
  return reply.body.diff;
};

/**
 * An active workspace on `main`, which tracks origin/main, created and activated through `via` (the bridge
 * then knows it from its own answer, not from the ship's event, which may come later).
 */
async function activeWorkspace(via: Via, name: string): Promise<string> {
  const request =
    via === 'ship'
      ? { url: remote.url, repoName: 'live', name, branch: 'main' }
      : { ship: 'live', repoName: 'live', name, branch: 'main' };
  expect((await call(base(via), 'POST', '/workspaces', request)).status).toBe(201);
  expect((await call(base(via), 'POST', path('live', name, '/activate'))).status).toBe(200);
  return join(ship.ship.fleetDirectory, 'live', name);
}

describe.each<Via>(['ship', 'bridge'])('status through the %s right after a change', (via) => {
  it('an edit shows at once', async () => {
    const name = `edit-${via}`;
    const dir = await activeWorkspace(via, name);
    expect(await diffOf(via, name)).toEqual({ added: 0, removed: 0, commits: 0 });
    writeFileSync(join(dir, 'src', 'app.txt'), 'one\nTWO\nthree\nfour\n');
    expect(await diffOf(via, name)).toEqual({ added: 2, removed: 1, commits: 0 });
  });

  it('`git add` of a new file counts its staged lines at once', async () => {
    const name = `add-${via}`;
    const dir = await activeWorkspace(via, name);
    writeFileSync(join(dir, 'notes.txt'), 'a\nb\nc\n');
    // Untracked: not part of a diff against HEAD yet.
    expect(await diffOf(via, name)).toEqual({ added: 0, removed: 0, commits: 0 });
    git(dir, 'add', 'notes.txt');
    expect(await diffOf(via, name)).toEqual({ added: 3, removed: 0, commits: 0 });
  });

  it('two commits on a branch with an upstream are 2 commits ahead at once', async () => {
    const name = `commits-${via}`;
    const dir = await activeWorkspace(via, name);
    writeFileSync(join(dir, 'notes.txt'), 'a\nb\nc\n');
    git(dir, 'add', 'notes.txt');
    writeFileSync(join(dir, 'src', 'app.txt'), 'one\nTWO\nthree\nfour\n');
    expect(await diffOf(via, name)).toEqual({ added: 5, removed: 1, commits: 0 });
    git(dir, 'commit', '--quiet', '-m', 'notes');
    git(dir, 'commit', '--quiet', '-am', 'app');
    expect(await diffOf(via, name)).toEqual({ added: 0, removed: 0, commits: 2 });
  });
});

describe('status of a real `svc ship` process right after an edit', () => {
  let child: ChildProcess | null = null;
  let fleet: string;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child!.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    if (fleet) await new Tmux(tmuxSocketFor(fleet)).killServer();
  });

  it('shows the edit in the next read', async () => {
    if (!existsSync(resolve(import.meta.dirname, '../../dist/cli/main.js')))
      throw new Error('run `npm run build` first (npm test does)');
    fleet = join(root, 'process-fleet');
    const started = spawn(
      process.execPath,
      [CLI, 'ship', '--port', '0', '--name', 'live-proc', '--fleet-directory', fleet],
      {
        env: { ...process.env, SVC_BRIDGE_TOKEN: '', SVC_SESSION_COMMAND: TEST_SESSION_COMMAND, SVC_LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = started;
    let output = '';
    started.stderr!.on('data', (chunk) => (output += chunk));
    const url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`ship did not start: ${output}`)), 15_000);
      started.stdout!.on('data', (chunk) => {
        output += chunk;
        const port = /"msg":"ship listening"/.test(output) && /"port":(\d+),"fleetDirectory"/.exec(output);
        if (port) {
          clearTimeout(timer);
          resolveUrl(`http://localhost:${port[1]}`);
        }
      });
      started.once('exit', (code) => reject(new Error(`ship exited with ${code}: ${output}`)));
    });
    expect(
      (await call(url, 'POST', '/workspaces', { url: remote.url, repoName: 'p', name: 'w', branch: 'main' })).status,
    ).toBe(201);
    expect((await call(url, 'POST', path('p', 'w', '/activate'))).status).toBe(200);
    const dir = join(fleet, 'p', 'w');
    expect((await call(url, 'GET', path('p', 'w'))).body.diff).toEqual({ added: 0, removed: 0, commits: 0 });
    writeFileSync(join(dir, 'src', 'app.txt'), 'one\nTWO\nthree\nfour\n');
    expect((await call(url, 'GET', path('p', 'w'))).body.diff).toEqual({ added: 2, removed: 1, commits: 0 });
    expect((await call(url, 'POST', path('p', 'w', '/deactivate'))).status).toBe(200);
  }, 60_000);
});
