// Status under load (issue #14 item 2): an active workspace's status is read live, two git processes per
// read, so what a spawn costs the ship's main thread is what every terminal on the ship waits behind.
// - Per spawn: main-thread time of one git spawn in a process the size of a busy ship, forked directly vs
//   through the spawn helper (bench/lib/spawn-stall.ts), interleaved in one process.
// - Keystroke echo into `cat` in an active workspace while its status is read 100 times a second (open
//   loop), against the same terminal with no reads, and against a ship that forks on its own thread
//   (bench/lib/direct-spawn-ship.ts). Rounds alternate so every figure sees the same machine noise.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeBenchRemote } from './lib/fixtures.js';
import { median, percentile, timedRequest } from './lib/load.js';
import { endFleetTmux, startDirectSpawnShip, startShipProcess, type Child } from './lib/processes.js';
import { BenchTerminal, typeMarkers } from './lib/terminal-client.js';
import type { BenchRow } from './report.js';

const READS_PER_SECOND = 100;
const KEYS_PER_ROUND = 100;
const ROUNDS = Number(process.env.SVC_BENCH_ROUNDS) || 3;
const SHIP_SIZED_HEAP_MIB = 200;

interface SpawnStall {
  rssMiB: number;
  direct: { perSpawnMs: number; longestCallMs: number };
  helper: { perSpawnMs: number; longestCallMs: number };
}

function spawnStall(): Promise<SpawnStall> {
  const script = resolve(import.meta.dirname, 'lib/spawn-stall.js');
  return new Promise((done, fail) =>
    execFile(process.execPath, [script, String(SHIP_SIZED_HEAP_MIB)], { maxBuffer: 1 << 20 }, (error, stdout) =>
      error ? fail(error) : done(JSON.parse(stdout) as SpawnStall),
    ),
  );
}

/** An active workspace with a few edited files (its status diff has work to do) and a terminal in `cat`. */
async function activeTerminal(shipUrl: string, repoUrl: string, fleet: string): Promise<BenchTerminal> {
  const agent = new http.Agent();
  const created = await timedRequest(
    agent,
    new URL(`${shipUrl}/workspaces`),
    'POST',
    JSON.stringify({ url: repoUrl, repoName: 'b', name: 's', branch: 'main' }),
  );
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
  await timedRequest(agent, new URL(`${shipUrl}/workspaces/b/s/activate`), 'POST');
  agent.destroy();
  for (let i = 0; i < 5; i++)
    writeFileSync(join(fleet, 'b', 's', `pkg${i}`, `file${i}.ts`), `export const edited${i} = true;\n`);
  const terminal = await BenchTerminal.open(`${shipUrl.replace('http', 'ws')}/workspaces/b/s/terminal`, 120, 40);
  await terminal.until(() => /[$#] ?$/m.test(terminal.screen.text()));
  terminal.send({ type: 'input', data: 'clear; cat\r' });
  await sleep(300);
  return terminal;
}

/** Echo latency of `KEYS_PER_ROUND` markers, 20 to a line. */
const typeRound = (terminal: BenchTerminal) => typeMarkers(terminal, (i) => i < KEYS_PER_ROUND, 20);

/** Runs `work` while GET /workspaces/b/s is sent READS_PER_SECOND times a second, whatever the answers take. */
async function underStatusReads<T>(
  shipUrl: string,
  work: () => Promise<T>,
): Promise<{ value: T; reads: number[]; failed: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const target = new URL(`${shipUrl}/workspaces/b/s`);
  const reads: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let failed = 0;
  const timer = setInterval(() => {
    const read = timedRequest(agent, target).then(
      (reply) => {
        if (reply.status === 200 && reply.text.includes('"state":"active"')) reads.push(reply.ms);
        else failed++;
      },
      () => void failed++,
    );
    inFlight.add(read);
    void read.finally(() => inFlight.delete(read));
  }, 1000 / READS_PER_SECOND);
  try {
    return { value: await work(), reads, failed };
  } finally {
    clearInterval(timer);
    await Promise.all(inFlight);
    agent.destroy();
  }
}

export async function benchStatusLoad(): Promise<BenchRow[]> {
  const stall = await spawnStall();
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const { url } = makeBenchRemote(root);
  const ships: Array<{ child: Child; fleet: string }> = [];
  const terminals: BenchTerminal[] = [];
  try {
    const helperFleet = join(root, 'fleet-helper');
    const directFleet = join(root, 'fleet-direct');
    const helperShip = await startShipProcess(helperFleet, 'bench-helper');
    ships.push({ child: helperShip, fleet: helperFleet });
    const directShip = await startDirectSpawnShip(directFleet);
    ships.push({ child: directShip, fleet: directFleet });
    const helperTerminal = await activeTerminal(helperShip.url, url, helperFleet);
    terminals.push(helperTerminal);
    const directTerminal = await activeTerminal(directShip.url, url, directFleet);
    terminals.push(directTerminal);

    const echo = { idle: [] as number[], helper: [] as number[], direct: [] as number[] };
    const reads = { helper: [] as number[], direct: [] as number[] };
    let seconds = 0;
    const loaded = async (ship: 'helper' | 'direct') => {
      const started = performance.now();
      const run = await underStatusReads(ship === 'helper' ? helperShip.url : directShip.url, () =>
        typeRound(ship === 'helper' ? helperTerminal : directTerminal),
      );
      if (run.failed > 0) throw new Error(`${run.failed} status reads failed on the ${ship} ship`);
      if (ship === 'helper') seconds += (performance.now() - started) / 1000;
      echo[ship].push(...run.value);
      reads[ship].push(...run.reads);
    };
    await typeRound(helperTerminal); // warm-up, not counted
    await typeRound(directTerminal);
    for (let round = 0; round < ROUNDS; round++) {
      const steps = [
        async () => echo.idle.push(...(await typeRound(helperTerminal))),
        () => loaded('helper'),
        () => loaded('direct'),
      ];
      for (const step of round % 2 === 0 ? steps : steps.reverse()) await step();
    }
    if (process.env.SVC_BENCH_VERBOSE) {
      const p = (values: number[]) =>
        `p50 ${median(values).toFixed(2)} p99 ${percentile(values, 99).toFixed(2)} max ${Math.max(...values).toFixed(2)}`;
      process.stderr.write(
        `spawn stall ${JSON.stringify(stall)}\necho idle ${p(echo.idle)}\necho helper ${p(echo.helper)}\necho direct ${p(echo.direct)}\n` +
          `status helper ${p(reads.helper)} (${(reads.helper.length / seconds).toFixed(0)}/s)\nstatus direct ${p(reads.direct)}\n`,
      );
    }
    return [
      {
        name: `main-thread time per git spawn, ${Math.round(stall.rssMiB)} MiB process: spawn helper vs forking itself`,
        value: stall.helper.perSpawnMs,
        reference: stall.direct.perSpawnMs,
        unit: 'ms',
        target: 0.25,
      },
      {
        name: '  longest single spawn call on the main thread: spawn helper vs forking itself',
        value: stall.helper.longestCallMs,
        reference: stall.direct.longestCallMs,
        unit: 'ms',
      },
      {
        name: `keystroke echo p99 while ${READS_PER_SECOND} status reads/s of an active workspace (vs no reads)`,
        value: percentile(echo.helper, 99),
        reference: percentile(echo.idle, 99),
        unit: 'ms',
        absoluteLimit: 10,
      },
      {
        name: '  the same on a ship forking git on its own thread (vs the spawn helper ship)',
        value: percentile(echo.direct, 99),
        reference: percentile(echo.helper, 99),
        unit: 'ms',
      },
      {
        name: `  status read p99 at ${READS_PER_SECOND}/s (vs the ship forking git on its own thread)`,
        value: percentile(reads.helper, 99),
        reference: percentile(reads.direct, 99),
        unit: 'ms',
      },
    ];
  } finally {
    for (const terminal of terminals) void terminal.close();
    for (const { child, fleet } of ships) {
      await Promise.resolve()
        .then(() => timedRequest(new http.Agent(), new URL(`${child.url}/workspaces/b/s/deactivate`), 'POST'))
        .catch(() => undefined);
      await child.stop();
      endFleetTmux(fleet);
    }
    await rm(root, { recursive: true, force: true });
  }
}
