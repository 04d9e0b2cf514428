// `svc ship --session-user` through a real `npx svc ship` (issue #30, docs/security.md H24): the session's
// shell runs as the session user, cannot read the ship's process environment (its tokens) or its state, and
// the ship still runs git on the workspace through its API (status, diff, branch switch, guarded delete),
// files the agent made included. Tests run as root here, so the uid switch is real.
import { execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { chmodSync, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tmuxSocketFor } from '../../ship/sessions/tmux-socket.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { processesMatching, startNpx, type NpxProcess } from '../helpers/npx.js';
import { until } from '../helpers/poll.js';
import { freePort } from '../helpers/ports.js';
import { call, path, removeRoot } from '../helpers/ship.js';
import { connectTerminal, terminalUrl } from '../helpers/terminal.js';

const SESSION_UID = 10002;
const BRIDGE_TOKEN = 'bridge-token-only-the-ship-knows';
const auth = { authorization: `Bearer ${BRIDGE_TOKEN}` };

let root = '';
let fleetDirectory = '';
let url = '';
let ship: NpxProcess | undefined;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('this test switches users: it runs as root');
  // Outside the run's own temp directory (0700, root's): the session user reaches its workspace and its
  // tmux socket by path through this root (mkdtemp makes it 0700 too).
  root = await mkdtemp('/tmp/svc-session-user-');
  chmodSync(root, 0o711);
  fleetDirectory = join(root, 'fleet');
  const remote = makeRemote(root, 'app');
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  ship = startNpx(
    [
      'ship',
      '--port',
      String(port),
      '--name',
      'separate',
      '--fleet-directory',
      fleetDirectory,
      '--session-user',
      `${SESSION_UID}:${SESSION_UID}`,
    ],
    {
      SVC_BRIDGE_TOKEN: BRIDGE_TOKEN,
      HOME: join(root, 'ship-home'),
      SVC_SESSION_COMMAND: '/bin/sh',
      // The session user's socket directory goes where that user can reach it (the run's own is the root's).
      TMUX_TMPDIR: root,
    },
  );
  await ship.waitFor('ship listening', 60_000);
  const created = await call(
    url,
    'POST',
    '/workspaces',
    { url: remote.url, repoName: 'app', name: 'w1', branch: 'main' },
    auth,
  );
  expect(created.status, created.text).toBe(201);
  const activated = await call(url, 'POST', path('app', 'w1', '/activate'), undefined, auth);
  expect(activated.status, activated.text).toBe(200);
}, 90_000);

afterAll(async () => {
  await ship?.terminateThenKill();
  try {
    execFileSync('tmux', ['-S', socketPath(), 'kill-server'], { stdio: 'ignore' });
  } catch {
    // already gone
  }
  await removeRoot(root);
});

const socketPath = () => join(root, `tmux-${SESSION_UID}`, tmuxSocketFor(realpathSync(fleetDirectory)));

/** The uid a process runs as (the real one, from /proc/<pid>/status). */
function uidOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('Uid:'))!;
  return Number(line.split(/\s+/)[1]);
}

/** Types a command into the session through the ship's API, as `svc client send` does. */
async function typeInSession(command: string): Promise<void> {
  const sent = await call(url, 'POST', path('app', 'w1', '/input'), { text: command }, auth);
  expect(sent.status, sent.text).toBe(200);
}

const workspace = () => join(fleetDirectory, 'app', 'w1');

it("runs the session shell as the session user, which can read neither the ship's environment nor its state", async () => {
  const panes = execFileSync('tmux', ['-S', socketPath(), 'list-panes', '-a', '-F', '#{session_name} #{pane_pid}'], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter((line) => line.startsWith('svc-') || /^[0-9a-z]/.test(line))
    .filter(Boolean);
  const shells = panes.filter((line) => !line.startsWith('svc-control')).map((line) => Number(line.split(' ')[1]));
  expect(shells.length).toBe(1);
  expect(uidOf(shells[0]!)).toBe(SESSION_UID);

  // The process holding the ship's token: its environment is the one read as root here.
  const holders = processesMatching('ship', '--session-user').filter((pid) =>
    readFileSync(`/proc/${pid}/environ`, 'utf8').includes(BRIDGE_TOKEN),
  );
  expect(holders.length).toBeGreaterThan(0);
  const shipPid = holders[0]!;
  const state = join(fleetDirectory, '.svc-ship');
  const probes = [
    `cat /proc/${shipPid}/environ >/dev/null 2>&1; echo "environ=$?"`,
    `ls ${state} >/dev/null 2>&1; echo "state=$?"`,
    `ls ${join(root, 'ship-home')} >/dev/null 2>&1; echo "home=$?"`,
    `ls ${fleetDirectory} >/dev/null 2>&1; echo "fleet=$?"`,
    'echo "uid=$(id -u)"',
  ].join('; ');
  await typeInSession(`(${probes}) > probe.txt; echo agent-made > agent-file.txt; echo changed >> README.md`);
  const probed = await until(
    async () => {
      const text = existsSync(join(workspace(), 'probe.txt'))
        ? readFileSync(join(workspace(), 'probe.txt'), 'utf8')
        : '';
      return text.includes('uid=') && existsSync(join(workspace(), 'agent-file.txt')) ? text : null;
    },
    'the session wrote its probe',
    15_000,
  );
  expect(probed).toContain(`uid=${SESSION_UID}`);
  for (const what of ['environ', 'state', 'home', 'fleet']) expect(probed).toMatch(new RegExp(`${what}=[1-9]`));
  // What the agent made is its own, and the clone the ship made was handed over.
  expect(statSync(join(workspace(), 'agent-file.txt')).uid).toBe(SESSION_UID);
  expect(statSync(join(workspace(), '.git', 'HEAD')).uid).toBe(SESSION_UID);
}, 60_000);

it("shows the session's output live in a terminal: tmux, as the session user, writes into the ship's pipe", async () => {
  const client = await connectTerminal(terminalUrl(url, 'app', 'w1'), { headers: auth });
  try {
    // Typing counts once the terminal is attached: its first frames show the shell's prompt.
    await client.until((screen) => screen.text().includes('$'), 15_000);
    const marker = `live-${Date.now()}`;
    client.input(`echo ${marker}-$((6*7))\r`);
    await client.until((screen) => screen.text().includes(`${marker}-42`), 15_000);
  } finally {
    await client.close();
  }
}, 30_000);

it('still runs git on the workspace through the API: status, diff, branch switch and the guarded delete', async () => {
  const status = await call<{ branch: string; diff: unknown }>(url, 'GET', path('app', 'w1', ''), undefined, auth);
  expect(status.status, status.text).toBe(200);
  expect(status.body.branch).toBe('main');
  expect(JSON.stringify(status.body.diff)).not.toBe(JSON.stringify({ files: 0, additions: 0, deletions: 0 }));

  const diff = await call(url, 'GET', path('app', 'w1', '/diff'), undefined, auth);
  expect(diff.status).toBe(200);
  expect(diff.text).toContain('+changed');

  const switched = await call(url, 'POST', path('app', 'w1', '/branch'), { branch: 'feature' }, auth);
  expect(switched.status, switched.text).toBe(200);
  const after = await call<{ branch: string }>(url, 'GET', path('app', 'w1', ''), undefined, auth);
  expect(after.body.branch).toBe('feature');
  // What git wrote for the ship stays the session user's.
  expect(statSync(join(workspace(), '.git', 'HEAD')).uid).toBe(SESSION_UID);

  // Unsaved work (the agent's file and change) refuses a guarded delete; a plain one removes it all.
  const refused = await call(url, 'DELETE', `${path('app', 'w1', '')}?force=false`, undefined, auth);
  expect(refused.status, refused.text).toBe(409);
  expect(refused.text).toContain('uncommitted changes (3 paths)');
  const removed = await call(url, 'DELETE', path('app', 'w1', ''), undefined, auth);
  expect(removed.status, removed.text).toBe(200);
  expect(existsSync(workspace())).toBe(false);
}, 60_000);
