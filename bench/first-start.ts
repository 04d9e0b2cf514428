// The first start (issue #26), as a new user, a service account or a container meets it:
// - `npx --no-install svc --version` from a home directory that never ran npx, against the same from a warm
//   one (median of 3 rounds, each fresh round in a new home);
// - a bridge on a new data directory (cold: the store is made) and on an existing one (warm), until it
//   answers `GET /auth/mode` (median of 3);
// - four bridges started at once on new data directories: until the last serves;
// - a partial first-admin environment: until the refusal;
// - an idle bridge's resident memory once it settles, on this machine's Node and on Node 24 where present.
// Run as `node bin/svc.js`, except the npx rows, whose subject is npx's own resolution of `svc`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from './lib/load.js';
import { freePort } from './lib/ports.js';
import { settledRss } from './lib/processes.js';
import type { BenchRow } from './report.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SVC = join(ROOT, 'bin/svc.js');
const ROUNDS = 3;
const MiB = 2 ** 20;
const ADMIN = {
  SVC_BRIDGE_ADMIN_USER: 'bench',
  SVC_BRIDGE_ADMIN_EMAIL: 'bench@example.com',
  SVC_BRIDGE_ADMIN_PASSWORD: 'bench-password-1',
};

function npxVersionMs(home: string): number {
  const started = performance.now();
  const result = spawnSync('npx', ['--no-install', 'svc', '--version'], {
    cwd: ROOT,
    env: { ...process.env, HOME: home },
    stdio: 'ignore',
  });
  if (result.status !== 0) throw new Error(`npx svc --version exited ${result.status}`);
  return performance.now() - started;
}

/**
 * Resident memory once a bridge has sat idle for 30 s: V8's memory reducer shrinks the heap some 10-15 s
 * after the last work (bench/RESULTS.md, session 14), so a reading as soon as RSS stops moving overstates it.
 */
async function idleRss(pid: number): Promise<number> {
  await sleep(30_000);
  return settledRss(pid);
}

const serves = (port: number) =>
  new Promise<boolean>((resolveServes) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/auth/mode', agent: false }, (response) => {
      response.resume();
      resolveServes(response.statusCode === 200);
    });
    request.on('error', () => resolveServes(false));
  });

/** Starts a bridge; resolves with it and the ms until it served. */
async function timedBridge(
  dataDirectory: string,
  home: string,
  node = process.execPath,
): Promise<{ child: ChildProcess; ms: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(node, [SVC, 'bridge', '--port', String(port), '--data-directory', dataDirectory], {
    env: { ...process.env, HOME: home, SVC_LOG_LEVEL: 'warn', ...ADMIN },
    stdio: 'ignore',
  });
  while (!(await serves(port))) {
    if (child.exitCode !== null) throw new Error(`svc bridge exited with ${child.exitCode}`);
    if (performance.now() - started > 60_000) throw new Error('svc bridge did not serve within 60 s');
    await sleep(10);
  }
  return { child, ms: performance.now() - started };
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolveStop) => {
    if (child.exitCode !== null) return resolveStop();
    child.once('exit', () => resolveStop());
    child.kill('SIGTERM');
  });

export async function benchFirstStart(): Promise<BenchRow[]> {
  const scratch = await mkdtemp(join(tmpdir(), 'svc-bench-first-start-'));
  try {
    const fresh: number[] = [];
    const warm: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const home = await mkdtemp(join(scratch, 'home-'));
      fresh.push(npxVersionMs(home));
      warm.push(npxVersionMs(home));
    }

    const cold: number[] = [];
    const existing: number[] = [];
    let idle = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const data = join(scratch, `data-${round}`);
      const first = await timedBridge(data, scratch);
      cold.push(first.ms);
      await stop(first.child);
      const again = await timedBridge(data, scratch);
      existing.push(again.ms);
      if (round === 0) idle = await idleRss(again.child.pid!);
      await stop(again.child);
    }

    // The image's runtime, where this machine has it (.ci/run unpacks it): the bar holds there too.
    const node24 = join(homedir(), '.cache/svc-ci/node-24/bin/node');
    let idle24: number | null = null;
    if (existsSync(node24)) {
      const bridge = await timedBridge(join(scratch, 'data-0'), scratch, node24);
      idle24 = await idleRss(bridge.child.pid!);
      await stop(bridge.child);
    }

    const four = await Promise.all([0, 1, 2, 3].map((i) => timedBridge(join(scratch, `four-${i}`), scratch)));
    await Promise.all(four.map(({ child }) => stop(child)));

    const partialStarted = performance.now();
    const partial = spawnSync(
      process.execPath,
      [SVC, 'bridge', '--port', String(await freePort()), '--data-directory', join(scratch, 'partial')],
      {
        env: {
          ...process.env,
          HOME: scratch,
          SVC_BRIDGE_ADMIN_USER: 'bench',
          SVC_BRIDGE_ADMIN_EMAIL: '',
          SVC_BRIDGE_ADMIN_PASSWORD: '',
        },
        stdio: 'ignore',
      },
    );
    const partialMs = performance.now() - partialStarted;
    if (partial.status !== 1) throw new Error(`a partial first admin exited ${partial.status}, not 1`);

    return [
      {
        name: 'npx svc --version, fresh home vs warm home (median of 3)',
        value: median(fresh),
        reference: median(warm),
        unit: 'ms',
        target: 1.5,
      },
      {
        name: 'bridge serves, new data directory vs existing (median of 3)',
        value: median(cold),
        reference: median(existing),
        unit: 'ms',
        absoluteLimit: 2000,
      },
      {
        name: 'four bridges at once on new data directories: the last serves',
        value: Math.max(...four.map(({ ms }) => ms)),
        unit: 'ms',
        absoluteLimit: 6000,
      },
      { name: 'partial first admin: refused after', value: partialMs, unit: 'ms', absoluteLimit: 1000 },
      { name: 'idle bridge on the embedded store: RSS', value: idle / MiB, unit: 'MiB', absoluteLimit: 150 },
      ...(idle24 === null
        ? []
        : [
            {
              name: "  the same on Node 24 (the image's runtime)",
              value: idle24 / MiB,
              unit: 'MiB',
              absoluteLimit: 150,
            },
          ]),
    ];
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
