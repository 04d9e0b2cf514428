// Fan-out on one repository (issue #29): workspaces made through the ship's repo cache against plain
// `git clone`s of the same URL, in the same run, interleaved, from a forge across a network (bench/lib/
// slow-forge.ts: 20 ms per request, one 25 MB/s link) serving a generated repository of 5,000 files and a
// pack over 50 MB. Figures: the first create of a repo (the cache filled) and the tenth (its ref
// advertisement, a local clone with its checkout; the split read from the ship's git histograms), ten creates of a new repo at
// once, the disk ten workspaces take with hard links counted once, and the ship's CPU per create.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reapedChildrenCpuMs, treeCpuMs } from './lib/cpu.js';
import { git } from './lib/fixtures.js';
import { median, timedRequest } from './lib/load.js';
import { endFleetTmux, startShipProcess, startSlowForge } from './lib/processes.js';
import type { BenchRow } from './report.js';

const FILES = 5_000;
const LARGE_EVERY = 50;
const LARGE_BYTES = 520 * 1024;

/** A bare repository of FILES files: source-like text, and every LARGE_EVERY-th an incompressible asset. */
function makeLargeRepo(forge: string, name: string): string {
  const work = join(forge, `${name}-work`);
  const bare = join(forge, `${name}.git`);
  mkdirSync(work, { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const dir = join(work, `module${i % 50}`);
    mkdirSync(dir, { recursive: true });
    if (i % LARGE_EVERY === 0) writeFileSync(join(dir, `asset${i}.bin`), randomBytes(LARGE_BYTES));
    else
      writeFileSync(
        join(dir, `file${i}.ts`),
        Array.from({ length: 30 }, (_, n) => `export const value${n} = ${i * n}; // line ${n} of file ${i}`).join('\n'),
      );
  }
  git(work, 'init', '--quiet');
  git(work, 'add', '.');
  git(work, 'commit', '--quiet', '-m', 'the repository');
  git(forge, 'init', '--quiet', '--bare', bare);
  git(work, 'push', '--quiet', bare, 'HEAD:main');
  git(bare, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  git(bare, 'repack', '-a', '-d', '--quiet');
  rmSync(work, { recursive: true, force: true });
  return bare;
}

/** Kilobytes on disk of `paths` together, each hard-linked file counted once (du's own rule). */
function diskKb(paths: string[], exclude: string[] = []): number {
  const output = execFileSync('du', ['-skc', ...exclude.map((pattern) => `--exclude=${pattern}`), ...paths], {
    encoding: 'utf8',
  });
  return Number(/^(\d+)\s+total$/m.exec(output)![1]);
}

/** A plain clone of `url` into `dir`: its wall time and the CPU it (and the git processes it ran) used. */
function plainClone(url: string, dir: string): Promise<{ ms: number; cpu: number }> {
  const cpuBefore = reapedChildrenCpuMs(process.pid);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['clone', '--quiet', url, dir], { stdio: 'ignore' });
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`git clone exited ${code}`));
      resolve({ ms: performance.now() - started, cpu: reapedChildrenCpuMs(process.pid) - cpuBefore });
    });
  });
}

/** Seconds each git subcommand has run in the ship so far (svc_ship_git_duration_seconds_sum). */
async function gitSeconds(shipUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${shipUrl}/metrics`)).text();
  const sums: Record<string, number> = {};
  for (const match of text.matchAll(/^svc_ship_git_duration_seconds_sum\{command="([^"]+)"\} (\S+)$/gm))
    sums[match[1]!] = Number(match[2]);
  return sums;
}

/** Ten `git clone --local`s of `bare` at once: ten working trees written with no network, this disk's floor. */
async function tenLocalClones(bare: string, into: string): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from(
      { length: 10 },
      (_, index) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(
            'git',
            ['-c', 'checkout.workers=0', 'clone', '--quiet', '--local', bare, join(into, `local${index}`)],
            { stdio: 'ignore' },
          );
          child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git clone --local exited ${code}`))));
        }),
    ),
  );
  const ms = performance.now() - started;
  rmSync(into, { recursive: true, force: true });
  return ms;
}

/**
 * The figures on the machine's disk, and again on a tmpfs when there is one: where creating a file costs the
 * kernel a fraction of a millisecond (as on this project's CI machines), writing ten working trees, not the
 * network, is most of what ten workspaces cost, with or without a cache.
 */
export async function benchFanout(): Promise<BenchRow[]> {
  const rows = await benchFanoutIn(tmpdir(), '');
  if (existsSync('/dev/shm')) rows.push(...(await benchFanoutIn('/dev/shm', ' (tmpfs)')));
  return rows;
}

async function benchFanoutIn(parent: string, label: string): Promise<BenchRow[]> {
  const root = mkdtempSync(join(parent, 'svc-bench-fanout-'));
  const forgeDir = join(root, 'forge');
  const fleet = join(root, 'fleet');
  const plain = join(root, 'plain');
  mkdirSync(plain);
  const source = makeLargeRepo(forgeDir, 'app');
  const packKb = diskKb([join(source, 'objects', 'pack')]);
  if (packKb < 50 * 1024) throw new Error(`the generated pack is ${packKb} KiB, under 50 MiB`);
  // Copies under other URLs: each is a repo the ship has never seen, for first creates and the batch.
  const repos = ['first-a', 'first-b', 'first-c', 'batch'];
  for (const name of repos) cpSync(source, join(forgeDir, `${name}.git`), { recursive: true });
  const forge = await startSlowForge(forgeDir);
  const ship = await startShipProcess(fleet);
  const shipPid = ship.process.pid!;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const clones: Array<{ ms: number; cpu: number }> = [];
  let plainCount = 0;
  const clonePlain = async (url: string) => {
    const dir = join(plain, `c${plainCount++}`);
    const result = await plainClone(url, dir);
    clones.push(result);
    rmSync(dir, { recursive: true, force: true });
    return result;
  };
  const create = async (repoName: string, name: string) => {
    const cpuBefore = treeCpuMs(shipPid);
    const body = JSON.stringify({ url: `${forge.url}/${repoName}.git`, repoName, name, branch: 'main' });
    const answer = await timedRequest(agent, new URL(`${ship.url}/workspaces`), 'POST', body);
    if (answer.status !== 201) throw new Error(`create answered ${answer.status}: ${answer.text}`);
    return { ms: answer.ms, cpu: treeCpuMs(shipPid) - cpuBefore };
  };
  try {
    // A plain clone first, to warm the forge's disk cache for both sides.
    await clonePlain(`${forge.url}/app.git`);
    clones.length = 0;

    // First creates: three repos the ship has never seen, each against a plain clone of its URL.
    const firstCreates: Array<{ ms: number; cpu: number }> = [];
    const firstClones: number[] = [];
    for (const [round, repo] of ['first-a', 'first-b', 'first-c'].entries()) {
      const url = `${forge.url}/${repo}.git`;
      if (round % 2 === 0) {
        firstCreates.push(await create(repo, 'w1'));
        firstClones.push((await clonePlain(url)).ms);
      } else {
        firstClones.push((await clonePlain(url)).ms);
        firstCreates.push(await create(repo, 'w1'));
      }
    }

    // Creates 2 to 10 of one repo, each interleaved with a plain clone; the tenth's git time split.
    let tenth = { ms: 0, cpu: 0 };
    let split: Record<string, number> = {};
    for (let index = 2; index <= 10; index++) {
      await clonePlain(`${forge.url}/first-a.git`);
      const before = await gitSeconds(ship.url);
      const made = await create('first-a', `w${index}`);
      if (index === 10) {
        tenth = made;
        const after = await gitSeconds(ship.url);
        split = Object.fromEntries(
          Object.keys(after).map((command) => [command, (after[command]! - (before[command] ?? 0)) * 1000]),
        );
      }
    }
    const cloneMs = median(clones.map((clone) => clone.ms));
    const cloneCpu = median(clones.map((clone) => clone.cpu));

    // Ten creates of a repo the ship has never seen, at once.
    const batchStart = performance.now();
    await Promise.all(Array.from({ length: 10 }, (_, index) => create('batch', `b${index}`)));
    const batchMs = performance.now() - batchStart;
    await clonePlain(`${forge.url}/batch.git`);
    const floorMs = await tenLocalClones(source, join(root, 'floor'));

    // Disk: the cache and ten workspaces of one repo together, against one pack and ten working trees.
    const cacheRoot = `${fleet}.repo-cache`;
    const caches = readdirSync(cacheRoot)
      .filter((entry) => entry.endsWith('.git'))
      .map((entry) => join(cacheRoot, entry));
    const workspaces = Array.from({ length: 10 }, (_, index) => join(fleet, 'first-a', `w${index + 1}`));
    const cacheOfFirstA = caches.filter((cache) =>
      readFileSync(join(cache, 'svc-url'), 'utf8').includes('/first-a.git'),
    );
    const usedKb = diskKb([...cacheOfFirstA, ...workspaces]);
    const treeKb = diskKb([workspaces[0]!], ['.git']);

    const remoteMs = (split['ls-remote'] ?? 0) + (split.fetch ?? 0);
    const localCloneMs = split.clone ?? 0;
    if (process.env.SVC_BENCH_VERBOSE)
      process.stderr.write(
        `fanout: first ${JSON.stringify(firstCreates)} vs ${JSON.stringify(firstClones)}; clones ${JSON.stringify(clones)}; tenth split ${JSON.stringify(split)}\n`,
      );
    const rows: BenchRow[] = [
      {
        name: 'fan-out: first create of a repo (cache filled) vs plain git clone, median of 3',
        value: median(firstCreates.map((made) => made.ms)),
        reference: median(firstClones),
        unit: 'ms',
        target: 1.05,
      },
      {
        name: 'fan-out: tenth create of a repo vs plain git clone (median)',
        value: tenth.ms,
        reference: cloneMs,
        unit: 'ms',
        target: 0.2,
      },
      {
        name: 'fan-out: tenth create, its remote part (ls-remote, a fetch only when refs moved)',
        value: remoteMs,
        unit: 'ms',
      },
      { name: 'fan-out: tenth create, its local part (clone --local with checkout)', value: localCloneMs, unit: 'ms' },
      {
        name: 'fan-out: ten creates of a new repo at once vs one plain git clone',
        value: batchMs,
        reference: cloneMs,
        unit: 'ms',
        target: 1.5,
      },
      {
        name: 'fan-out: ten creates of a new repo at once vs one plain clone + ten `git clone --local` at once (the disk floor)',
        value: batchMs,
        reference: cloneMs + floorMs,
        unit: 'ms',
      },
      {
        name: 'fan-out: disk of the cache + ten workspaces vs one pack + ten working trees (du)',
        value: usedKb / 1024,
        reference: (packKb + 10 * treeKb) / 1024,
        unit: 'MiB',
        target: 1.1,
      },
      {
        name: 'fan-out: ship CPU, first create vs a plain clone',
        value: median(firstCreates.map((made) => made.cpu)),
        reference: cloneCpu,
        unit: 'ms',
      },
      { name: 'fan-out: ship CPU, tenth create vs a plain clone', value: tenth.cpu, reference: cloneCpu, unit: 'ms' },
    ];
    return rows.map((row) => ({ ...row, name: `${row.name}${label}` }));
  } finally {
    agent.destroy();
    await ship.stop();
    await forge.stop();
    endFleetTmux(fleet);
    rmSync(root, { recursive: true, force: true });
  }
}
