// Bridge benchmarks (issue: the bridge). Routing overhead against calling the ship directly and a bare
// fastify pass-through (interleaved, concurrency 1 at the default log level and at warn, and 16); event fan-out of one change to 500 subscribers of the bridge's and of the ship's
// `/events` against a minimal `ws` broadcast of the same frame, and the RSS those subscribers cost; terminal
// echo and throughput through the bridge against straight to the ship; and a fleet of 5 ships × 200
// workspaces listed through the bridge, with the bridge's RSS growth, its `sync` on the wire and a `sync`
// broadcast to 500 subscribers. Every WebSocket measurement runs as a browser connects (permessage-deflate
// offered) and without (issue #18).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { post } from './lib/post.js';
import { makeBenchRemote } from './lib/fixtures.js';
import { median, percentile, runLoad, sequential, timedRequest, type LoadResult } from './lib/load.js';
import { cpuMs, cpuPerRequest } from './lib/cpu.js';
import {
  BenchTerminal,
  modeLabel,
  socketOptions,
  typeMarkers,
  type BenchSocketOptions,
} from './lib/terminal-client.js';
import { WireTap } from './lib/wire-tap.js';
import { forkWorker } from './lib/fork-worker.js';
import { freePort } from './lib/ports.js';
import {
  endFleetTmux,
  settledRss,
  startBareProxy,
  startBridgeProcess,
  startShipProcess,
  type Child,
} from './lib/processes.js';
import type { BenchRow } from './report.js';

const MiB = 1024 * 1024;

/** Whether clients offer permessage-deflate: without, then as a browser. */
const MODES = [false, true] as const;

type LoadRun = { result: LoadResult; micros: Record<string, number> };

async function openSubscribers(
  url: string,
  count: number,
  headers: Record<string, string> = {},
  options: BenchSocketOptions = {},
): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(
      Array.from(
        { length: Math.min(50, count - i) },
        () =>
          new Promise<WebSocket>((resolve, reject) => {
            const socket = new WebSocket(url, socketOptions(options, headers));
            socket.once('message', () => resolve(socket));
            socket.once('error', reject);
          }),
      ),
    );
    sockets.push(...batch);
  }
  return sockets;
}

/** When every socket has received one more message (that passes `accept`), from `trigger` and from the first arrival. */
interface FanOutTimes {
  /** From the trigger to the last arrival. */
  total: number;
  /** From the first arrival to the last: the fan-out itself, without what it took the change to reach the server. */
  spread: number;
}

async function fanOut(
  sockets: WebSocket[],
  trigger: () => Promise<unknown>,
  accept: (text: string) => boolean,
): Promise<FanOutTimes> {
  let remaining = sockets.length;
  let first = 0;
  const done = new Promise<number>((resolve) => {
    for (const socket of sockets) {
      const onMessage = (data: WebSocket.RawData) => {
        if (!accept(data.toString())) return;
        socket.off('message', onMessage);
        first ||= performance.now();
        if (--remaining === 0) resolve(performance.now());
      };
      socket.on('message', onMessage);
    }
  });
  const started = performance.now();
  await trigger();
  const last = await done;
  return { total: last - started, spread: last - first };
}

/**
 * Concurrency 16 is measured in steady state. Each target first takes this much c16 traffic untimed: the
 * bridge's CPU per request falls over its first rounds and then holds, while the bare pass-through is flat from
 * the first (bench/RESULTS.md, "Bridge routing at c16 (issue #18): measured in steady state").
 */
const C16_WARM_UP_MS = 4000;
/** Five rounds: in steady state single rounds spread a little around the floor; the median of five holds still. */
const C16_ROUNDS = 5;
const C16_ROUND_MS = 4000;
/** Event fan-out: untimed rounds per set of 500 subscribers, then timed rounds. */
const FAN_OUT_WARM_UP = 3;
const FAN_OUT_ROUNDS = 25;

export async function benchBridge(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const rows: BenchRow[] = [];
  const { url: repoUrl } = makeBenchRemote(root, 20);
  const children: Child[] = [];
  try {
    // The bridge as a user starts it: the default log level, info (server/logger.ts: one line per request).
    const bridge = await startBridgeProcess(join(root, 'bridge'), await freePort(), { env: { SVC_LOG_LEVEL: 'info' } });
    children.push(bridge);
    // Authentication stays on: what is measured includes the guard (a cached session lookup).
    const auth = { authorization: `Bearer ${bridge.token}` };
    const ship = await startShipProcess(join(root, 'fleet-0'), 'ship-0');
    children.push(ship);
    if ((await post(`${bridge.url}/ships`, { url: ship.url }, auth)) !== 201)
      throw new Error('ship registration failed');
    await post(`${bridge.url}/repos`, { name: 'r0', url: repoUrl }, auth);
    if (
      (await post(`${bridge.url}/workspaces`, { ship: 'ship-0', repoName: 'r0', name: 'w', branch: 'main' }, auth)) !==
      201
    )
      throw new Error('create failed');
    // The same route through a second bridge at `warn` (no request lines), registered with the same ship: what
    // the request log costs is the difference of the two in the same rounds.
    const quiet = await startBridgeProcess(join(root, 'bridge-warn'), await freePort(), {
      env: { SVC_LOG_LEVEL: 'warn' },
    });
    children.push(quiet);
    const quietAuth = { authorization: `Bearer ${quiet.token}` };
    if ((await post(`${quiet.url}/ships`, { url: ship.url }, quietAuth)) !== 201)
      throw new Error('ship registration with the warn-level bridge failed');

    // Routing overhead, with its floor: a bare fastify pass-through to the same ship, measured in the same
    // interleaved rounds (what any Node HTTP hop costs on this machine). One untimed round first: the first
    // few hundred calls of each process run cold code (several times slower than later ones: bench/RESULTS.md),
    // and at c16 the bridge's longer path takes seconds to settle (C16_WARM_UP_MS).
    const floor = await startBareProxy(ship.url);
    children.push(floor);
    const targets = {
      direct: `${ship.url}/workspaces/r0/w`,
      routed: `${bridge.url}/workspaces/r0/w`,
      warn: `${quiet.url}/workspaces/r0/w`,
      floor: `${floor.url}/workspaces/r0/w`,
    };
    const headersFor = (target: keyof typeof targets) =>
      target === 'routed' ? auth : target === 'warn' ? quietAuth : {};
    for (const target of ['direct', 'routed', 'warn', 'floor'] as const) {
      await sequential(targets[target], 250, headersFor(target));
      await runLoad(targets[target], { concurrency: 16, durationMs: C16_WARM_UP_MS, headers: headersFor(target) });
    }
    const sequentialTimes = {
      direct: [] as number[],
      routed: [] as number[],
      warn: [] as number[],
      floor: [] as number[],
    };
    for (let round = 0; round < 4; round++) {
      for (const target of ['direct', 'routed', 'warn', 'floor'] as const)
        sequentialTimes[target].push(...(await sequential(targets[target], 250, headersFor(target))));
    }
    await quiet.stop();
    const c1Direct = median(sequentialTimes.direct);
    rows.push({
      name: 'routed GET /workspaces/:r/:n, c1, p50 added by the bridge (default log level)',
      value: median(sequentialTimes.routed) - c1Direct,
      unit: 'ms',
      absoluteLimit: 0.5,
    });
    rows.push({
      name: '  the same at SVC_LOG_LEVEL=warn',
      value: median(sequentialTimes.warn) - c1Direct,
      unit: 'ms',
      absoluteLimit: 0.5,
    });
    rows.push({
      name: '  floor: bare fastify pass-through, c1, p50 added',
      value: median(sequentialTimes.floor) - c1Direct,
      unit: 'ms',
    });

    // Concurrency 16, with the CPU each process spends per request (the load generator is this process).
    const pids = { bridge: bridge.process.pid!, floor: floor.process.pid!, ship: ship.process.pid!, load: process.pid };
    const loaded = { direct: [] as LoadRun[], routed: [] as LoadRun[], floor: [] as LoadRun[] };
    for (let round = 0; round < C16_ROUNDS; round++) {
      for (const target of ['direct', 'routed', 'floor'] as const) {
        const run = () =>
          runLoad(targets[target], { concurrency: 16, durationMs: C16_ROUND_MS, headers: headersFor(target) });
        loaded[target].push(await cpuPerRequest(pids, run, (result) => result.requests));
        if (process.env.SVC_BENCH_VERBOSE)
          process.stderr.write(
            `c16 round ${round} ${target}: p50 ${loaded[target].at(-1)!.result.p50.toFixed(2)} ms\n`,
          );
      }
    }
    const p50Of = (runs: LoadRun[]) => median(runs.map((run) => run.result.p50));
    const microsOf = (runs: LoadRun[], process: keyof typeof pids) => median(runs.map((run) => run.micros[process]!));
    // The bar is the floor's, measured in the same rounds: the ratio two cores allow any Node hop.
    rows.push({
      name: 'routed GET /workspaces/:r/:n, c16, p50 vs a bare fastify pass-through',
      value: p50Of(loaded.routed),
      reference: p50Of(loaded.floor),
      unit: 'ms',
      target: 1.1,
    });
    rows.push({
      name: '  the same vs the ship directly',
      value: p50Of(loaded.routed),
      reference: p50Of(loaded.direct),
      unit: 'ms',
    });
    rows.push({
      name: '  floor: bare fastify pass-through, c16, p50 vs the ship directly',
      value: p50Of(loaded.floor),
      reference: p50Of(loaded.direct),
      unit: 'ms',
    });
    rows.push({
      name: '  CPU per request at c16: the bridge vs the ship',
      value: microsOf(loaded.routed, 'bridge'),
      reference: microsOf(loaded.direct, 'ship'),
      unit: 'µs',
    });
    rows.push({
      name: '  CPU per request at c16: the bridge vs the floor',
      value: microsOf(loaded.routed, 'bridge'),
      reference: microsOf(loaded.floor, 'floor'),
      unit: 'µs',
    });
    rows.push({
      name: '  CPU per request at c16: the floor vs the ship',
      value: microsOf(loaded.floor, 'floor'),
      reference: microsOf(loaded.direct, 'ship'),
      unit: 'µs',
    });
    // Little's law at a fixed concurrency: the latency ratio is the inverse throughput ratio, and the cores cap
    // the hop's throughput at cores ÷ (CPU per request of load + hop + ship). No hop as cheap as the floor can
    // do better than this on this machine.
    const cores = availableParallelism();
    const directRate = median(loaded.direct.map((run) => run.result.perSecond));
    const floorPath = microsOf(loaded.floor, 'load') + microsOf(loaded.floor, 'floor') + microsOf(loaded.floor, 'ship');
    rows.push({
      name: `  c16 lowest ratio ${cores} cores allow a hop as cheap as the floor`,
      value: (directRate * floorPath) / 1e6 / cores,
      unit: '×',
    });
    await floor.stop();

    // Event fan-out to 500 subscribers; reference: a bare ws server in its own process broadcasting the same
    // frame without compression (what any broadcast of it costs). One set of 500 at a time, so a broadcast to one set is
    // never slowed by another's; each set's rounds interleave with the reference's.
    await post(`${ship.url}/workspaces/r0/w/activate`);
    await post(`${ship.url}/workspaces/r0/w/agent/init`, { model: 'm', provider: 'p', harness: 'h' });
    const reference = await forkWorker<{ broadcast: string }, { port: number }>(
      join(import.meta.dirname, 'lib/bare-broadcast.js'),
      null,
      'bare broadcast',
    );
    const referenceSubscribers = await openSubscribers(`ws://127.0.0.1:${reference.ready.port}`, 500);
    let round = 0;
    for (const [server, base, headers] of [
      ['bridge', bridge.url, auth],
      ['ship', ship.url, {}],
    ] as const) {
      for (const deflate of MODES) {
        const rssBefore = server === 'bridge' ? await settledRss(bridge.process.pid!) : 0;
        const subscribers = await openSubscribers(`${base.replace('http', 'ws')}/events`, 500, headers, { deflate });
        if (deflate !== subscribers[0]!.extensions.includes('permessage-deflate'))
          throw new Error(`${server} /events: deflate offered ${deflate}, extensions "${subscribers[0]!.extensions}"`);
        const rssAfter = server === 'bridge' ? await settledRss(bridge.process.pid!) : 0;
        const times: FanOutTimes[] = [];
        const referenceTimes: FanOutTimes[] = [];
        let frame = '';
        // Three untimed rounds first (the first broadcasts to a new set run cold code), then 25 timed: the
        // spreads of single rounds move severalfold from round to round on two cores, and the median of 9 did too.
        for (let i = 0; i < FAN_OUT_WARM_UP + FAN_OUT_ROUNDS; i++) {
          // An agent status change is the cheapest change a ship makes: what is timed is the fan-out.
          const description = `round ${round++}`;
          const measured = await fanOut(
            subscribers,
            () => post(`${ship.url}/workspaces/r0/w/agent/status`, { state: 'building', description }),
            (text) => {
              if (!text.includes(description)) return false;
              frame = text;
              return true;
            },
          );
          const referenceMeasured = await fanOut(
            referenceSubscribers,
            () => reference.call({ broadcast: frame }),
            () => true,
          );
          if (i < FAN_OUT_WARM_UP) continue;
          times.push(measured);
          referenceTimes.push(referenceMeasured);
        }
        // The measure: the spread after the first arrival, against the bare broadcast's. The time from
        // the trigger adds the change's way to the server (the POST to the ship, the ship's event, for the
        // bridge the ship→bridge hop), which the reference does not have: shown, not held to the bar.
        const spread = (runs: FanOutTimes[]) => median(runs.map((run) => run.spread));
        const total = (runs: FanOutTimes[]) => median(runs.map((run) => run.total));
        rows.push({
          name: `one change to 500 ${server} /events subscribers, spread after the first arrival (${modeLabel(deflate)})`,
          value: spread(times),
          reference: spread(referenceTimes),
          unit: 'ms',
          target: 1.5,
        });
        rows.push({
          name: `  the same from the change's POST to the ship to the last arrival`,
          value: total(times),
          reference: total(referenceTimes),
          unit: 'ms',
        });
        if (server === 'bridge')
          rows.push({
            name: `bridge RSS for 500 /events subscribers (${modeLabel(deflate)})`,
            value: (rssAfter - rssBefore) / MiB,
            unit: 'MiB',
            absoluteLimit: 20,
          });
        await closeAll(subscribers);
      }
    }
    await closeAll(referenceSubscribers);
    await reference.stop();

    rows.push(...(await terminalsThroughTheBridge(bridge.url, ship.url, auth, root)));

    // Scale: 5 ships × 200 workspaces (clones copied on disk: the ships read them, the bridge lists them).
    const template = join(root, 'template');
    mkdirSync(template);
    execFileSync('git', ['clone', '--quiet', repoUrl, join(template, 'w0')]);
    for (let i = 1; i < 200; i++) cpSync(join(template, 'w0'), join(template, `w${i}`), { recursive: true });
    const rssFleetBefore = await settledRss(bridge.process.pid!);
    for (let s = 1; s <= 5; s++) {
      const fleet = join(root, `fleet-${s}`);
      mkdirSync(fleet, { recursive: true });
      cpSync(template, join(fleet, `repo-${s}`), { recursive: true });
      const scaled = await startShipProcess(fleet, `ship-${s}`);
      children.push(scaled);
      if ((await post(`${bridge.url}/ships`, { url: scaled.url }, auth)) !== 201)
        throw new Error(`ship-${s} registration failed`);
    }
    await sequential(`${bridge.url}/workspaces`, 3, auth);
    const agent = new http.Agent({ keepAlive: true });
    const count = JSON.parse(
      (await timedRequest(agent, new URL(`${bridge.url}/workspaces`), 'GET', undefined, auth)).text,
    ).length;
    agent.destroy();
    if (count < 1000) throw new Error(`expected 1000+ workspaces through the bridge, got ${count}`);
    // Spaced past the bridge's 500 ms single-flight memory, so every listing pays the full refresh of 5 ships.
    const fleetTimes: number[] = [];
    const fleetAgent = new http.Agent({ keepAlive: true });
    for (let i = 0; i < 12; i++) {
      await sleep(550);
      fleetTimes.push((await timedRequest(fleetAgent, new URL(`${bridge.url}/workspaces`), 'GET', undefined, auth)).ms);
    }
    fleetAgent.destroy();
    rows.push({
      name: 'bridge GET /workspaces, 5 ships × 200 workspaces, p50',
      value: median(fleetTimes),
      unit: 'ms',
      absoluteLimit: 100,
    });
    rows.push({
      name: 'bridge RSS growth for 5 ships × 200 workspaces',
      value: ((await settledRss(bridge.process.pid!)) - rssFleetBefore) / MiB,
      unit: 'MiB',
      absoluteLimit: 30,
    });
    rows.push(...(await fleetSync(bridge, auth, count)));
  } finally {
    for (const child of children.reverse()) await child.stop();
    // fleet-0 holds an activated workspace; the others hold none, so have no server to end
    endFleetTmux(join(root, 'fleet-0'));
    await rm(root, { recursive: true, force: true });
  }
  return rows;
}

/** Terminates `sockets` and gives the server a moment to see them go. */
async function closeAll(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === WebSocket.CLOSED) return resolve();
          socket.once('close', () => resolve());
          socket.terminate();
        }),
    ),
  );
  await sleep(500);
}

const activeOnShip = async (bridgeUrl: string, auth: Record<string, string>, name: string) => {
  if ((await post(`${bridgeUrl}/workspaces`, { ship: 'ship-0', repoName: 'r0', name, branch: 'main' }, auth)) !== 201)
    throw new Error(`create ${name} failed`);
  if ((await post(`${bridgeUrl}/workspaces/r0/${name}/activate`, undefined, auth)) !== 200)
    throw new Error(`activate ${name} failed`);
};

/**
 * Keystroke echo and `cat` of 4 MB through the bridge's terminal proxy, against the same straight to the
 * ship, each mode in turn (one terminal per session: two workspaces, one per path). The bridge↔ship hop
 * never offers deflate; the mode is the client's.
 */
async function terminalsThroughTheBridge(
  bridgeUrl: string,
  shipUrl: string,
  auth: Record<string, string>,
  root: string,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  await activeOnShip(bridgeUrl, auth, 'via-bridge');
  await activeOnShip(bridgeUrl, auth, 'direct');
  const file = join(root, 'bridge-cat.txt');
  const lines = Array.from(
    { length: 40_000 },
    (_, i) => `\x1b[3${i % 8}m${String(i).padStart(8, '0')} ${'bridge terminal bench '.repeat(4)}\x1b[0m`,
  );
  for (const deflate of MODES) {
    const paths = {
      bridge: await BenchTerminal.open(
        `${bridgeUrl.replace('http', 'ws')}/workspaces/r0/via-bridge/terminal`,
        120,
        40,
        auth,
        { deflate },
      ),
      ship: await BenchTerminal.open(
        `${shipUrl.replace('http', 'ws')}/workspaces/r0/direct/terminal`,
        120,
        40,
        {},
        { deflate },
      ),
    };
    try {
      for (const terminal of Object.values(paths)) {
        if (deflate !== terminal.extensions.includes('permessage-deflate'))
          throw new Error(`terminal: deflate offered ${deflate}, extensions "${terminal.extensions}"`);
        await terminal.until(() => /[$#] ?$/m.test(terminal.screen.text()));
      }
      const echo = { bridge: [] as number[], ship: [] as number[] };
      const cat = { bridge: [] as number[], ship: [] as number[] };
      for (let round = 0; round < 4; round++) {
        const order = round % 2 ? (['ship', 'bridge'] as const) : (['bridge', 'ship'] as const);
        for (const path of order) {
          const terminal = paths[path];
          const marker = `CAT-${deflate}-${round}-${path}`;
          await writeFile(file, `${lines.join('\n')}\n${marker}\n`);
          terminal.send({ type: 'input', data: 'clear\r' });
          await terminal.until(() => !terminal.screen.text().includes('CAT-'));
          await sleep(200);
          const started = performance.now();
          terminal.send({ type: 'input', data: `cat ${file}\r` });
          await terminal.until(() => terminal.screen.text().includes(marker), 120_000);
          cat[path].push(performance.now() - started);
          terminal.send({ type: 'input', data: 'clear; cat\r' });
          await sleep(300);
          echo[path].push(...(await typeMarkers(terminal, (i) => i < 50, 25)));
          terminal.send({ type: 'input', data: '\u0003' });
          await sleep(200);
        }
      }
      const label = modeLabel(deflate);
      rows.push({
        name: `keystroke echo through the bridge vs straight to the ship, p50 (${label})`,
        value: median(echo.bridge),
        reference: median(echo.ship),
        unit: 'ms',
      });
      rows.push({
        name: `keystroke echo through the bridge vs straight to the ship, p99 (${label})`,
        value: percentile(echo.bridge, 99),
        reference: percentile(echo.ship, 99),
        unit: 'ms',
      });
      rows.push({
        name: `cat 4 MB in 120×40 through the bridge vs straight to the ship (${label})`,
        value: median(cat.bridge),
        reference: median(cat.ship),
        unit: 'ms',
      });
    } finally {
      for (const terminal of Object.values(paths)) await terminal.close();
    }
  }
  return rows;
}

/**
 * The bridge's aggregate `sync` of the whole fleet: its size on the wire each way, and a broadcast of it to
 * 500 subscribers (a ship deregistered, then registered again: each publishes one sync), timed until all
 * have it, with the CPU the bridge spent per broadcast.
 */
async function fleetSync(
  bridge: Child & { token: string },
  auth: Record<string, string>,
  workspaces: number,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const eventsUrl = `${bridge.url.replace('http', 'ws')}/events`;
  const onWire = new Map<boolean, number>();
  for (const deflate of MODES) {
    const tap = new WireTap();
    const [socket] = await openSubscribers(eventsUrl, 1, auth, { deflate, tap });
    onWire.set(deflate, tap.messages[0]!.wireBytes);
    if (deflate && !tap.messages[0]!.compressed)
      process.stderr.write('the fleet sync came uncompressed with deflate negotiated\n');
    await closeAll([socket!]);
  }
  rows.push({
    name: `bridge sync of ${workspaces} workspaces on the wire: deflate offered vs not`,
    value: onWire.get(true)!,
    reference: onWire.get(false)!,
    unit: 'B',
    target: 0.5,
  });

  const shipUrl = (
    (await (await fetch(`${bridge.url}/ships`, { headers: auth })).json()) as Array<{ name: string; url: string }>
  ).find((ship) => ship.name === 'ship-5')!.url;
  const times = new Map<boolean, number[]>();
  const cpu = new Map<boolean, number[]>();
  for (const deflate of MODES) {
    const subscribers = await openSubscribers(eventsUrl, 500, auth, { deflate });
    times.set(deflate, []);
    cpu.set(deflate, []);
    for (let i = 0; i < 6; i++) {
      const trigger =
        i % 2 === 0
          ? () => fetch(`${bridge.url}/ships/ship-5`, { method: 'DELETE', headers: auth }).then((r) => r.text())
          : () => post(`${bridge.url}/ships`, { url: shipUrl }, auth);
      const before = cpuMs(bridge.process.pid!);
      times.get(deflate)!.push((await fanOut(subscribers, trigger, (text) => text.startsWith('{"type":"sync"'))).total);
      await sleep(500);
      cpu.get(deflate)!.push(cpuMs(bridge.process.pid!) - before);
    }
    await closeAll(subscribers);
  }
  rows.push({
    name: `sync of ${workspaces - 200}–${workspaces} workspaces to 500 bridge subscribers: deflate offered vs not`,
    value: median(times.get(true)!),
    reference: median(times.get(false)!),
    unit: 'ms',
  });
  rows.push({
    name: '  bridge CPU per such broadcast: deflate offered vs not',
    value: median(cpu.get(true)!),
    reference: median(cpu.get(false)!),
    unit: 'ms',
  });
  // What 500 sockets keep once each was sent one compressed sync (ws keeps a socket's zlib stream for its
  // life), on a bare ws server with the servers' negotiation in its own process (a whole bridge's RSS moves
  // too much with its heap to show it), against the same sync sent uncompressed.
  const memory = { compressed: await deflateMemory(true), uncompressed: await deflateMemory(false) };
  rows.push({
    name: 'memory of 500 sockets sent one 1,000-workspace sync: compressed vs not',
    value: memory.compressed / MiB,
    reference: memory.uncompressed / MiB,
    unit: 'MiB',
  });
  return rows;
}

/** RSS growth of a bare ws server process (bench/lib/deflate-memory.ts, `perMessageDeflate` as given) once 500 deflate-offering clients each received one sync. */
async function deflateMemory(perMessageDeflate: unknown): Promise<number> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', join(import.meta.dirname, 'lib/deflate-memory.js'), JSON.stringify(perMessageDeflate)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = () =>
    new Promise<number>((resolve) =>
      child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
    );
  try {
    const port = await line();
    const sockets = await openSubscribers(`ws://127.0.0.1:${port}`, 500, {}, { deflate: true });
    await sleep(1000);
    const growth = line();
    child.kill('SIGUSR2');
    const bytes = await growth;
    await closeAll(sockets);
    return bytes;
  } finally {
    child.kill();
  }
}
