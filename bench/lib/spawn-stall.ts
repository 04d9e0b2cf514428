// Child script of the status-load benchmark: the main-thread time one git spawn costs a process the size of
// a busy ship, forked directly (DirectSpawner, the ship before the spawn helper) and through the spawn
// helper, interleaved round by round. A fork copies the forking process's page tables, so the cost grows
// with the process: the script first grows a heap of `argv[2]` MiB of small objects (the helper is started
// before, as the ship starts it while small). Main-thread time per spawn is the event loop's active time
// (performance.eventLoopUtilization) over a batch of sequential `git --version`, divided by the batch; the
// longest single synchronous call is reported too. Prints one JSON line.
import { performance } from 'node:perf_hooks';
import { SpawnHelper } from '../../ship/processes/spawn-helper/spawn-helper.js';
import { DirectSpawner, type Spawner } from '../../ship/processes/spawner.js';

const heapMiB = Number(process.argv[2] ?? 200);
const rounds = Number(process.argv[3] ?? 6);
const perRound = Number(process.argv[4] ?? 100);

const helper = new SpawnHelper();
helper.start();
const direct = new DirectSpawner();

// ~100 bytes per object: a heap of many small objects, as an emulator's cells and a server's state are.
const ballast: Array<{ a: number; b: string; c: number[] }> = [];
for (let i = 0; i < heapMiB * 10_000; i++) ballast.push({ a: i, b: `cell ${i}`, c: [i, i + 1] });

const request = {
  command: 'git',
  args: ['--version'],
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  detached: true,
};

async function batch(spawner: Spawner): Promise<{ perSpawnMs: number; longestCallMs: number }> {
  const before = performance.eventLoopUtilization();
  let longestCallMs = 0;
  for (let i = 0; i < perRound; i++) {
    const started = performance.now();
    const running = spawner.run(request);
    longestCallMs = Math.max(longestCallMs, performance.now() - started);
    const result = await running;
    if (result.code !== 0) throw new Error(`git --version exited ${result.code}`);
  }
  const used = performance.eventLoopUtilization(before);
  return { perSpawnMs: used.active / perRound, longestCallMs };
}

const samples = { direct: [] as number[], helper: [] as number[], directLongest: 0, helperLongest: 0 };
await batch(helper); // warm-up: first IPC messages, code paths compiled
await batch(direct);
for (let round = 0; round < rounds; round++) {
  const order: Array<['direct' | 'helper', Spawner]> =
    round % 2 === 0
      ? [
          ['direct', direct],
          ['helper', helper],
        ]
      : [
          ['helper', helper],
          ['direct', direct],
        ];
  for (const [name, spawner] of order) {
    const { perSpawnMs, longestCallMs } = await batch(spawner);
    samples[name].push(perSpawnMs);
    if (name === 'direct') samples.directLongest = Math.max(samples.directLongest, longestCallMs);
    else samples.helperLongest = Math.max(samples.helperLongest, longestCallMs);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rssMiB = process.memoryUsage().rss / 2 ** 20;
process.stdout.write(
  `${JSON.stringify({
    rssMiB,
    direct: { perSpawnMs: median(samples.direct), longestCallMs: samples.directLongest },
    helper: { perSpawnMs: median(samples.helper), longestCallMs: samples.helperLongest },
    objects: ballast.length,
  })}\n`,
);
helper.close();
