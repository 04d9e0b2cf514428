// Every command the README shows is run, as written, against a real service, so the README cannot drift
// from the product. The fenced `sh` blocks are read from README.md at run time; each block is run by the
// step of the scenario below that covers it (a block no step covers fails the first test, so a new
// example needs a way to run it). Lines run in bash, `npx svc` and `svc` resolving to this checkout's CLI;
// servers (`svc launch|ship|bridge`) run in the background until their section is done; commands that ask
// something run in a pty and are answered; `attach` is detached with Ctrl-]. Only what the README's own
// words point at is put in place first: a clone URL on GitHub becomes a local bare repository (no network
// here), the ship the examples call `my-host` is the one launched, `<ADMIN_PASSWORD>` the admin's. GitHub
// itself is the fake forge (SVC_GITHUB_API_URL), whose acme/widget is backed by the local bare repository:
// git clones https://github.com/acme/widget.git from it through an `insteadOf` in the run's $HOME/.gitconfig.
// In the serial suite: the examples use the fixed ports 4700 and 4800.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn as spawnPty } from '@lydell/node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { makeTempRoot, removeRoot, TEST_SESSION_COMMAND } from '../helpers/ship.js';
import { killFleetTmux } from '../helpers/cli.js';
import { groupAlive, signalGroupOf } from '../helpers/process-group.js';
import { settles, until } from '../helpers/poll.js';
import type { FakeGitHub } from '../fakes/github.js';
import { cloneHome, startBackedForge } from '../helpers/github-clone.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'bin/svc.js');
const ADMIN = { user: 'admin', email: 'admin@example.com', password: 'readme-admin-pw' };
const GITHUB_TOKEN = 'ghp_readme_example_token';

/** The README's shell examples: each block's commands, continuation lines joined, comments dropped. */
function readmeBlocks(): string[][] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return [...text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map(([, body]) =>
    body!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((line) => line.replace(/\s{2,}#.*$/, '').trim())
      .filter((line) => line && !line.startsWith('#')),
  );
}

// `npx svc` and `svc` are this checkout's CLI wherever a line runs (a scratch directory is no npm project).
const PRELUDE = `npx() { if [ "$1" = svc ]; then shift; node ${JSON.stringify(CLI)} "$@"; else command npx "$@"; fi; }
svc() { node ${JSON.stringify(CLI)} "$@"; }
`;

interface World {
  root: string;
  forge: FakeGitHub;
  remote: RemoteFixture;
  env: Record<string, string>;
  /** README text → what runs here. */
  substitutions: Array<[string, string]>;
}

const servers: Array<{ child: ChildProcess; fleet?: string }> = [];

function substitute(world: World, line: string): string {
  return world.substitutions.reduce((text, [from, to]) => text.split(from).join(to), line);
}

/** Runs shell lines as one script (they may share variables); every line must succeed. */
function runLines(world: World, cwd: string, lines: string[]): Promise<string> {
  const script = `${PRELUDE}set -euo pipefail\n${lines.map((line) => substitute(world, line)).join('\n')}\n`;
  return new Promise((resolveRun, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      env: { ...process.env, ...world.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    if (process.env.SVC_TEST_REPORT) console.info(`README script: ${lines.join(' ; ')}`);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolveRun(out);
      else reject(new Error(`README lines failed (exit ${code}):\n${lines.join('\n')}\n---\n${out}`));
    });
  });
}

/** Starts a server line in the background; resolves once `ready` appears in its output. */
function startServer(world: World, cwd: string, line: string, ready: string, fleet?: string): Promise<ChildProcess> {
  const child = spawn('bash', ['-c', `${PRELUDE}${substitute(world, line)}`], {
    cwd,
    env: { ...process.env, ...world.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  servers.push({ child, fleet });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`${line}: no "${ready}" within 60 s:\n${out}`)), 60_000);
    const check = setInterval(() => {
      if (out.includes(ready)) {
        clearInterval(check);
        clearTimeout(timer);
        resolveStart(child);
      }
    }, 25);
    child.on('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`${line} exited ${code}:\n${out}`));
    });
  });
}

/**
 * Stops a server as a supervisor would: SIGTERM to its group, SIGKILL after 10 s; resolves once the whole
 * group is gone (the shell running the line exits at once, the svc under it only when it has closed, and
 * the next section needs its ports).
 */
async function stopServer(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  signalGroupOf(child, 'SIGTERM');
  const gone = () => !groupAlive(child);
  if (!(await settles(until(gone, 'the group to exit on SIGTERM', 10_000, 25)))) signalGroupOf(child, 'SIGKILL');
  await until(gone, 'the group to exit on SIGKILL', 10_000, 25);
}

/**
 * Runs a line in a pty: answers each prompt in turn the moment it appears, then (for `attach`) waits for
 * `detachAfter` on the screen and types Ctrl-]. Resolves with the exit code and everything shown.
 */
function runInPty(
  world: World,
  cwd: string,
  line: string,
  dialog: Array<[string, string]>,
  detachAfter?: string,
): Promise<{ code: number; shown: string }> {
  const env = Object.fromEntries(
    Object.entries({ ...process.env, ...world.env, LANG: 'C.UTF-8' }).filter(([, v]) => v !== undefined),
  ) as Record<string, string>;
  const pty = spawnPty('bash', ['-c', `${PRELUDE}${substitute(world, line)}`], {
    name: 'xterm-256color',
    cols: 120,
    rows: 30,
    cwd,
    env,
  });
  let shown = '';
  let consumed = 0;
  const queue = [...dialog];
  let detached = false;
  pty.onData((data) => {
    shown += data;
    const next = queue[0];
    if (next && shown.slice(consumed).includes(next[0])) {
      queue.shift();
      consumed = shown.length;
      pty.write(`${next[1]}\r`);
    } else if (!next && detachAfter && !detached && shown.slice(consumed).includes(detachAfter)) {
      detached = true;
      pty.write('\x1d');
    }
  });
  return new Promise((resolveRun, reject) => {
    const timer = setTimeout(() => {
      pty.kill('SIGKILL');
      reject(new Error(`${line}: still running after 30 s; the terminal showed:\n${shown}`));
    }, 30_000);
    pty.onExit(({ exitCode }) => {
      clearTimeout(timer);
      resolveRun({ code: exitCode, shown });
    });
  });
}

/** Runs each line of a block by its kind: login/users/ships-add/attach in a pty, the rest as a script. */
async function runBlock(world: World, cwd: string, lines: string[]): Promise<void> {
  let batch: string[] = [];
  const flush = async () => {
    if (batch.length) await runLines(world, cwd, batch);
    batch = [];
  };
  for (const line of lines) {
    if (process.env.SVC_TEST_REPORT) console.info(`README: ${line}`);
    let dialog: Array<[string, string]> | null = null;
    let detachAfter: string | undefined;
    if (/\bsvc login\b/.test(line))
      dialog = [
        ['Username: ', ADMIN.user],
        ['Password: ', ADMIN.password],
      ];
    else if (/\bsvc users add\b/.test(line))
      dialog = [
        ['New password: ', 'alice-password'],
        ['Confirm password: ', 'alice-password'],
      ];
    else if (/\bsvc client( --\S+ \S+)* ships add\b/.test(line))
      dialog = [['Ship token (blank: register without credentials): ', '']];
    else if (/\battach\b/.test(line)) {
      dialog = [];
      detachAfter = 'bash-'; // the session's shell prompt (TEST_SESSION_COMMAND)
    }
    if (!dialog) {
      batch.push(line);
      continue;
    }
    await flush();
    const { code, shown } = await runInPty(world, cwd, line, dialog, detachAfter);
    expect(code, `${line}\n${shown}`).toBe(0);
  }
  await flush();
}

let world: World;
let blocks: string[][];
const covered = new Set<number>();

/** The README block whose first command starts with `first` (each step names the blocks it runs). */
function block(first: string): string[] {
  const index = blocks.findIndex((lines) => lines[0]?.startsWith(first));
  if (index < 0) throw new Error(`README has no block starting with "${first}"`);
  covered.add(index);
  return blocks[index]!;
}

beforeAll(async () => {
  const root = await makeTempRoot();
  const remote = makeRemote(root);
  const home = cloneHome(root, remote.bare, 'https://github.com/acme/widget.git');
  const forge = await startBackedForge(remote.bare, GITHUB_TOKEN);
  forge.addIssue({ number: 42, title: 'Login fails with SSO' });
  blocks = readmeBlocks();
  world = {
    root,
    forge,
    remote,
    env: {
      HOME: home,
      SVC_GITHUB_API_URL: forge.url,
      SVC_GITHUB_TOKEN: GITHUB_TOKEN,
      SVC_BRIDGE_ADMIN_USER: ADMIN.user,
      SVC_BRIDGE_ADMIN_EMAIL: ADMIN.email,
      SVC_BRIDGE_ADMIN_PASSWORD: ADMIN.password,
      SVC_SESSION_COMMAND: TEST_SESSION_COMMAND,
      SVC_BRIDGE_TOKEN: '',
      SVC_TOKEN: '',
    },
    substitutions: [
      ['https://github.com/org/app.git', remote.url],
      ['https://github.com/org/repo.git', remote.url],
      ['<ADMIN_PASSWORD>', ADMIN.password],
    ],
  };
});
afterAll(async () => {
  for (const { child } of servers) await stopServer(child).catch(() => undefined);
  for (const fleet of [
    join(world.root, 'launch/.svc/fleet'),
    join(world.root, 'init/.svc/fleet'),
    join(world.root, 'parts/fleet'),
  ]) {
    await killFleetTmux(fleet).catch(() => undefined);
  }
  await world.forge.stop();
  await removeRoot(world.root);
});

describe('the README', () => {
  it('the set-up block installs and launches; the test block is the command CI runs', () => {
    // `npm ci && npx svc launch` is the launch below (the install has happened: this suite runs on it);
    // `npm ci && npm test` is what .ci/run runs; `npm ci && npm install -g .` is test/cli/install.test.ts.
    expect(block('npm ci && npx svc launch')).toEqual(['npm ci && npx svc launch']);
    expect(block('npm ci && npm test')).toEqual(['npm ci && npm test']);
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toMatch(/^npm ci\n(?:#.*\n)*(?:npm run lint\n)?npm test$/m);
    const install = block('npm ci && npm install -g .');
    expect(readFileSync(join(ROOT, 'test/cli/install.test.ts'), 'utf8')).toContain("'install', '-g'");
    covered.add(blocks.indexOf(install));
  });

  it('svc --version and the completion line of "Installing the CLI" run', async () => {
    const lines = block('npm ci && npm install -g .').slice(1);
    const out = await runLines(world, world.root, lines);
    expect(out).toContain('0.1.0');
  });

  it('"The whole service" and "The client": launch, then every client example through its bridge', async () => {
    const cwd = join(world.root, 'launch');
    mkdirSync(cwd);
    world.substitutions.push(['my-host', hostname()]);
    const [launch, init, withConfig] = block('npx svc launch');
    const server = await startServer(world, cwd, launch!, 'Ctrl-C stops everything.');
    await runBlock(world, cwd, block('npx svc login'));
    // Straight to the launched ship, with the bridge token the launch keeps (the ship answers 401 without).
    // (the client examples ended with `rm`, so there is no workspace left to list).
    expect(await runLines(world, cwd, block('npx svc client --url 4700 ls'))).toBe('no workspaces\n[]');
    await stopServer(server);
    world.substitutions.pop();

    const initDir = join(world.root, 'init');
    mkdirSync(initDir);
    await runLines(world, initDir, [init!]);
    await stopServer(await startServer(world, initDir, withConfig!, 'Ctrl-C stops everything.'));
  }, 300_000);

  it('"Sessions that outlive the ship": the session holder, then a ship that uses it', async () => {
    const cwd = join(world.root, 'holder');
    mkdirSync(cwd);
    const [holderLine, shipLine] = block('npx svc session-holder');
    const holder = await startServer(world, cwd, holderLine!, 'session holder running', join(cwd, 'fleet'));
    const ship = await startServer(world, cwd, shipLine!, 'ship listening', join(cwd, 'fleet'));
    await stopServer(ship);
    await stopServer(holder);
  }, 120_000);

  it('"Running a ship", "Talking to a ship", "Running a bridge", the armory and terminals', async () => {
    const cwd = join(world.root, 'parts');
    mkdirSync(cwd);
    const [shipLine] = block('npx svc ship');
    await startServer(world, cwd, shipLine!, 'ship listening', join(cwd, 'fleet'));
    await runLines(world, cwd, block('curl -s localhost:4700/workspaces -H'));

    const [bridgeLine, ...bridgeRest] = block('npx svc bridge');
    // The armory examples read skills/review/SKILL.md: put it in the bridge's armory first.
    mkdirSync(join(cwd, '.svc-bridge/armory/skills/review'), { recursive: true, mode: 0o700 });
    writeFileSync(join(cwd, '.svc-bridge/armory/skills/review/SKILL.md'), '# review\n');
    await startServer(world, cwd, bridgeLine!, 'bridge listening on');
    await runBlock(world, cwd, bridgeRest);
    await runLines(world, cwd, block('TOKEN=$(curl'));
    await runBlock(world, cwd, block('npx svc client armory ls'));
    // "Workspaces from GitHub issues": the ship started above is `my-host`; issue #42 is on the fake forge.
    const issueOut = await runLines(world, cwd, block('npx svc client repos add widget'));
    expect(issueOut).toContain('Login fails with SSO');
    expect(issueOut).toContain('42-login-fails-with-sso');
    expect(world.forge.linkedBranches.get(42)).toEqual(['42-login-fails-with-sso']);
    // The terminal examples attach to the workspace the bridge example created: start its session first.
    await runLines(world, cwd, ['npx svc client --bridge-url 4800 activate repo fix-login']);
    await runBlock(world, cwd, block('npx svc client --url 4700 attach'));
  }, 300_000);

  it('every example block of the README is run by a step above', () => {
    const missed = blocks.filter((_, index) => !covered.has(index)).map((lines) => lines[0]);
    expect(missed, 'README blocks no step runs: add them to test/serial/readme.test.ts').toEqual([]);
  });
});
