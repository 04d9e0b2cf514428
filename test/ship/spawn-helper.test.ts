// The spawn helper (ship/processes/spawn-helper/) against the contract DirectSpawner defines: the same
// results, environment, timeouts and process-group kills, whichever runs the command. Then what only the
// helper has: its death fails the calls it was running (and kills their groups) and the next call starts a
// new one, repeated deaths fall back to direct spawning, and it never outlives its ship, even a SIGKILLed one.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELPER_MARKER } from '../../ship/processes/spawn-helper/helper-script.js';
import { SpawnHelper } from '../../ship/processes/spawn-helper/spawn-helper.js';
import { DirectSpawner, type SpawnRequest, type Spawner } from '../../ship/processes/spawner.js';
import { isRunning } from '../../ship/processes/leftover-processes.js';
import { procPids, readProc } from '../../ship/processes/proc-table.js';
import { tmuxSocketFor } from '../../ship/server.js';
import { Tmux } from '../../ship/sessions/tmux.js';
import { until } from '../helpers/poll.js';
import { makeTempRoot, removeRoot, TEST_SESSION_COMMAND } from '../helpers/ship.js';

const CLI = resolve(import.meta.dirname, '../../bin/svc.js');
const PATH = process.env.PATH ?? '/usr/bin:/bin';
const sh = (script: string, extra: Partial<SpawnRequest> = {}): SpawnRequest => ({
  command: 'sh',
  args: ['-c', script],
  env: { PATH },
  detached: true,
  ...extra,
});

/** The pid a `sh -c '… & echo $!'` printed first. */
const firstPid = (stdout: Buffer) => Number(stdout.toString().split('\n')[0]);

const helpers: SpawnHelper[] = [];
afterAll(() => {
  for (const helper of helpers) helper.close();
});

describe.each([
  ['DirectSpawner', () => new DirectSpawner()],
  [
    'SpawnHelper',
    () => {
      const helper = new SpawnHelper();
      helpers.push(helper);
      return helper;
    },
  ],
] as Array<[string, () => Spawner]>)('%s', (_name, make) => {
  let spawner: Spawner;
  beforeAll(() => {
    spawner = make();
  });

  it('reports exit code, stdout as bytes and stderr', async () => {
    const result = await spawner.run(sh("printf 'a\\000\\377b'; echo oops >&2; exit 3"));
    expect(result).toMatchObject({ code: 3, signal: null, timedOut: false });
    expect([...result.stdout]).toEqual([0x61, 0x00, 0xff, 0x62]);
    expect(result.stderr.toString()).toBe('oops\n');
  });

  it('passes exactly the given environment and directory, and carries large output whole', async () => {
    const dir = realpathSync(tmpdir());
    const result = await spawner.run({
      command: 'env',
      args: [],
      env: { PATH, ONLY: 'this' },
      cwd: dir,
      detached: false,
    });
    expect(result.stdout.toString().trim().split('\n').sort()).toEqual([`ONLY=this`, `PATH=${PATH}`]);
    expect((await spawner.run(sh('pwd', { cwd: dir }))).stdout.toString()).toBe(`${dir}\n`);
    const big = await spawner.run(sh('head -c 3000000 /dev/zero'));
    expect(big.stdout.length).toBe(3_000_000);
  });

  it('rejects a command that cannot start, with its error code', async () => {
    await expect(
      spawner.run({ command: 'no-such-command-svc', args: [], env: { PATH }, detached: true }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('kills the whole process group at the timeout', async () => {
    const result = await spawner.run(sh('sleep 30 & echo $!; wait', { timeoutMs: 300 }));
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    await until(async () => !isRunning(firstPid(result.stdout)), 'the background sleep to end with its group');
  });

  it('kills the whole process group on abort', async () => {
    const stop = new AbortController();
    const running = spawner.run(sh('sleep 30 & echo $!; wait'), stop.signal);
    // Let the shell start its background child before the abort (the group kill is what is tested).
    await new Promise((done) => setTimeout(done, 300));
    stop.abort();
    const result = await running;
    expect(result).toMatchObject({ signal: 'SIGKILL', timedOut: false });
    await until(async () => !isRunning(firstPid(result.stdout)), 'the background sleep to end with its group');
  });
});

describe('SpawnHelper when its helper dies', () => {
  it('fails the running calls clearly, kills their groups, and starts a new helper for the next call', async () => {
    const problems: string[] = [];
    const helper = new SpawnHelper({ onProblem: (message) => problems.push(message) });
    helpers.push(helper);
    helper.start();
    const first = helper.pid!;
    const marker = join(mkdtempSync(join(tmpdir(), 'svc-test-')), 'started');
    try {
      const running = helper.run(sh(`sleep 30 & echo $! > ${marker}; wait`, { what: 'sh sleeper' }));
      await until(async () => existsSync(marker) && readProc(first, 'stat') !== null, 'the sleeper to start');
      const sleeper = Number((await import('node:fs')).readFileSync(marker, 'utf8'));
      process.kill(first, 'SIGKILL');
      await expect(running).rejects.toThrow(
        'sh sleeper failed: the spawn helper ended (killed by SIGKILL) while it ran',
      );
      await until(async () => !isRunning(sleeper), 'the orphaned sleeper to be killed with its group');
      expect(problems).toEqual(['the spawn helper ended (killed by SIGKILL); the next command starts a new one']);
      expect((await helper.run(sh('echo again'))).stdout.toString()).toBe('again\n');
      expect(helper.pid).not.toBe(first);
    } finally {
      rmSync(join(marker, '..'), { recursive: true, force: true });
    }
  });

  it('spawns directly after three deaths in a minute', async () => {
    const problems: string[] = [];
    const helper = new SpawnHelper({ onProblem: (message) => problems.push(message) });
    helpers.push(helper);
    for (let death = 0; death < 3; death++) {
      helper.start();
      const pid = helper.pid!;
      const gone = until(async () => helper.pid === undefined, 'the helper to be noticed gone');
      process.kill(pid, 'SIGKILL');
      await gone;
    }
    expect(problems.at(-1)).toMatch(/ended 3 times in a minute .*spawns directly from now on/);
    expect((await helper.run(sh('echo direct'))).stdout.toString()).toBe('direct\n');
    expect(helper.pid).toBeUndefined();
  });
});

/** Children of `parent` whose command line carries the helper's marker. */
function helpersOf(parent: number): number[] {
  return procPids().filter((pid) => {
    const stat = readProc(pid, 'stat');
    const ppid = stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) : NaN;
    return ppid === parent && (readProc(pid, 'cmdline') ?? '').split('\0').includes(HELPER_MARKER);
  });
}

describe('a helper whose parent is SIGKILLed', () => {
  it('kills the process groups it was running, then exits', async () => {
    const module = resolve(import.meta.dirname, '../../dist/ship/processes/spawn-helper/spawn-helper.js');
    if (!existsSync(module)) throw new Error('run `npm run build` first (npm test does)');
    const script = `
      const { SpawnHelper } = await import(${JSON.stringify(module)});
      const helper = new SpawnHelper();
      helper.start();
      void helper.run({ command: 'sh', args: ['-c', 'sleep 30 & echo $! >&2; wait'], env: { PATH: process.env.PATH }, detached: true });
      process.stdout.write(helper.pid + '\\n');
      setInterval(() => undefined, 1000);`;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    parent.stdout!.on('data', (chunk) => (out += chunk));
    const helper = await until(
      async () => (out.includes('\n') ? Number(out.trim()) : null),
      'the parent to start its helper',
    );
    // The sleeper's group is led by `sh`; find it as the helper's child.
    const group = await until(async () => {
      const children = procPids().filter((pid) => {
        const stat = readProc(pid, 'stat');
        return stat !== null && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === helper;
      });
      return children.length === 1 ? children[0]! : null;
    }, 'the helper to start the command');
    const exited = new Promise((done) => parent.once('exit', done));
    parent.kill('SIGKILL');
    await exited;
    await until(async () => !isRunning(helper), 'the helper to exit after its parent was killed');
    await until(async () => {
      try {
        process.kill(-group, 0);
        return false;
      } catch {
        return true;
      }
    }, 'the command group to be killed');
  }, 30_000);
});

describe('the helper of a real `svc ship`', () => {
  let root: string;
  beforeAll(async () => {
    root = await makeTempRoot();
  });
  afterAll(async () => {
    await new Tmux(tmuxSocketFor(realpathSync(join(root, 'fleet')))).killServer();
    await removeRoot(root);
  });

  it('exits when the ship is killed with SIGKILL', async () => {
    if (!existsSync(resolve(import.meta.dirname, '../../dist/cli/main.js')))
      throw new Error('run `npm run build` first (npm test does)');
    const ship = spawn(
      process.execPath,
      [CLI, 'ship', '--port', '0', '--name', 'helper-ship', '--fleet-directory', join(root, 'fleet')],
      {
        env: { ...process.env, SVC_BRIDGE_TOKEN: '', SVC_SESSION_COMMAND: TEST_SESSION_COMMAND, SVC_LOG_LEVEL: 'warn' },
        stdio: 'ignore',
      },
    );
    const exited = new Promise((done) => ship.once('exit', done));
    const [helper] = await until(async () => {
      const found = helpersOf(ship.pid!);
      return found.length === 1 ? found : null;
    }, 'the ship to start its spawn helper');
    // Serving: the helper has run the ship's tmux commands by then.
    await until(async () => existsSync(join(root, 'fleet', 'atlas.json')), 'the ship to listen', 15_000);
    ship.kill('SIGKILL');
    await exited;
    await until(async () => !isRunning(helper!), 'the helper to exit after its ship was killed');
  }, 30_000);
});
