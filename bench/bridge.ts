// Bridge benchmarks (issue: the bridge). Routing overhead against calling the ship directly (interleaved,
// concurrency 1 and 16); event fan-out of one change to 500 subscribers against a minimal `ws` broadcast of
// the same frame, and the RSS those subscribers cost; and a fleet of 5 ships × 200 workspaces listed
// through the bridge, with the bridge's RSS growth.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket, { WebSocketServer } from 'ws';
import { makeBenchRemote } from './lib/fixtures.js';
import { median, runLoad, sequential, timedRequest, type LoadResult } from './lib/load.js';
import { cpuPerRequest } from './lib/cpu.js';
import { freePort } from './lib/ports.js';
import { endFleetTmux, rssBytes, startBareProxy, startBridgeProcess, startShipProcess, type Child } from './lib/processes.js';
import type { BenchRow } from './report.js';

const MiB = 1024 * 1024;

type LoadRun = { result: LoadResult; micros: Record<string, number> };

/** RSS once it has stopped moving (within 1 MiB over a second): a start-up's memory settles first. */
async function settledRss(pid: number): Promise<number> {
  let previous = rssBytes(pid);
  for (let i = 0; i < 30; i++) {
    await sleep(1000);
    const current = rssBytes(pid);
    if (Math.abs(current - previous) < MiB) return current;
    previous = current;
  }
  return previous;
}

async function post(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.text();
  return response.status;
}

async function openSubscribers(url: string, count: number, headers: Record<string, string> = {}): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, () =>
        new Promise<WebSocket>((resolve, reject) => {
          const socket = new WebSocket(url, { perMessageDeflate: false, headers });
          socket.once('message', () => resolve(socket));
          socket.once('error', reject);
        }),
      ),
    );
    sockets.push(...batch);
  }
  return sockets;
}

/** Time from `trigger` until every socket has received one more message (that passes `accept`). */
async function fanOut(sockets: WebSocket[], trigger: () => void | Promise<unknown>, accept: (text: string) => boolean): Promise<number> {
  let remaining = sockets.length;
  const done = new Promise<void>((resolve) => {
    for (const socket of sockets) {
      const onMessage = (data: WebSocket.RawData) => {
        if (!accept(data.toString())) return;
        socket.off('message', onMessage);
        if (--remaining === 0) resolve();
      };
      socket.on('message', onMessage);
    }
  });
  const started = performance.now();
  await trigger();
  await done;
  return performance.now() - started;
}

export async function benchBridge(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const rows: BenchRow[] = [];
  const { url: repoUrl } = makeBenchRemote(root, 20);
  const children: Child[] = [];
  try {
    const bridge = await startBridgeProcess(join(root, 'bridge'), await freePort());
    children.push(bridge);
    // Authentication stays on: what is measured includes the guard (a cached session lookup).
    const auth = { authorization: `Bearer ${bridge.token}` };
    const ship = await startShipProcess(join(root, 'fleet-0'), 'ship-0');
    children.push(ship);
    if ((await post(`${bridge.url}/ships`, { url: ship.url }, auth)) !== 201) throw new Error('ship registration failed');
    await post(`${bridge.url}/repos`, { name: 'r0', url: repoUrl }, auth);
    if ((await post(`${bridge.url}/workspaces`, { ship: 'ship-0', repoName: 'r0', name: 'w', branch: 'main' }, auth)) !== 201) throw new Error('create failed');


    // Routing overhead, with its floor: a bare fastify pass-through to the same ship, measured in the same
    // interleaved rounds (what any Node HTTP hop costs on this machine). One untimed round first: the first
    // few hundred calls of each process run cold code (the ship directly takes 0.40 ms then, 0.12 ms after).
    const floor = await startBareProxy(ship.url);
    children.push(floor);
    const targets = { direct: `${ship.url}/workspaces/r0/w`, routed: `${bridge.url}/workspaces/r0/w`, floor: `${floor.url}/workspaces/r0/w` };
    const headersFor = (target: keyof typeof targets) => (target === 'routed' ? auth : {});
    for (const target of ['direct', 'routed', 'floor'] as const) {
      await sequential(targets[target], 250, headersFor(target));
      await runLoad(targets[target], { concurrency: 16, durationMs: 500, headers: headersFor(target) });
    }
    const sequentialTimes = { direct: [] as number[], routed: [] as number[], floor: [] as number[] };
    for (let round = 0; round < 4; round++) {
      for (const target of ['direct', 'routed', 'floor'] as const) sequentialTimes[target].push(...(await sequential(targets[target], 250, headersFor(target))));
    }
    const c1Direct = median(sequentialTimes.direct);
    rows.push({ name: 'routed GET /workspaces/:r/:n, c1, p50 added by the bridge', value: median(sequentialTimes.routed) - c1Direct, unit: 'ms', absoluteLimit: 0.5 });
    rows.push({ name: '  floor: bare fastify pass-through, c1, p50 added', value: median(sequentialTimes.floor) - c1Direct, unit: 'ms' });

    // Concurrency 16, with the CPU each process spends per request (the load generator is this process).
    const pids = { bridge: bridge.process.pid!, floor: floor.process.pid!, ship: ship.process.pid!, load: process.pid };
    const loaded = { direct: [] as LoadRun[], routed: [] as LoadRun[], floor: [] as LoadRun[] };
    for (let round = 0; round < 2; round++) {
      for (const target of ['direct', 'routed', 'floor'] as const) {
        const run = () => runLoad(targets[target], { concurrency: 16, durationMs: 2000, headers: headersFor(target) });
        loaded[target].push(await cpuPerRequest(pids, run, (result) => result.requests));
      }
    }
    const p50Of = (runs: LoadRun[]) => median(runs.map((run) => run.result.p50));
    const microsOf = (runs: LoadRun[], process: keyof typeof pids) => median(runs.map((run) => run.micros[process]!));
    rows.push({ name: 'routed GET /workspaces/:r/:n, c16, p50 vs the ship directly', value: p50Of(loaded.routed), reference: p50Of(loaded.direct), unit: 'ms', target: 1.5 });
    rows.push({ name: '  floor: bare fastify pass-through, c16, p50 vs the ship directly', value: p50Of(loaded.floor), reference: p50Of(loaded.direct), unit: 'ms' });
    rows.push({ name: '  CPU per request at c16: the bridge vs the ship', value: microsOf(loaded.routed, 'bridge'), reference: microsOf(loaded.direct, 'ship'), unit: 'µs' });
    rows.push({ name: '  CPU per request at c16: the floor vs the ship', value: microsOf(loaded.floor, 'floor'), reference: microsOf(loaded.direct, 'ship'), unit: 'µs' });
    // Little's law at a fixed concurrency: the latency ratio is the inverse throughput ratio, and the cores cap
    // the hop's throughput at cores ÷ (CPU per request of load + hop + ship). No hop as cheap as the floor can
    // do better than this on this machine.
    const cores = availableParallelism();
    const directRate = median(loaded.direct.map((run) => run.result.perSecond));
    const floorPath = microsOf(loaded.floor, 'load') + microsOf(loaded.floor, 'floor') + microsOf(loaded.floor, 'ship');
    rows.push({ name: `  c16 lowest ratio ${cores} cores allow a hop as cheap as the floor`, value: (directRate * floorPath) / 1e6 / cores, unit: '×' });
    await floor.stop();

    // Event fan-out to 500 subscribers; reference: a bare ws server broadcasting the same frame.
    await post(`${ship.url}/workspaces/r0/w/activate`);
    await post(`${ship.url}/workspaces/r0/w/agent/init`, { model: 'm', provider: 'p', harness: 'h' });
    const rssBefore = await settledRss(bridge.process.pid!);
    const subscribers = await openSubscribers(`${bridge.url.replace('http', 'ws')}/events`, 500, auth);
    const rssAfter = await settledRss(bridge.process.pid!);
    const reference = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
    await new Promise((resolve) => reference.once('listening', resolve));
    const referenceUrl = `ws://127.0.0.1:${(reference.address() as { port: number }).port}`;
    reference.on('connection', (socket) => socket.send('{"type":"hello"}'));
    const referenceSubscribers = await openSubscribers(referenceUrl, 500);
    const bridgeTimes: number[] = [];
    const referenceTimes: number[] = [];
    let frame = '';
    for (let round = 0; round < 9; round++) {
      // An agent status change is the cheapest change a ship makes: what is timed is the fan-out.
      const description = `round ${round}`;
      bridgeTimes.push(
        await fanOut(subscribers, () => post(`${ship.url}/workspaces/r0/w/agent/status`, { state: 'building', description }), (text) => {
          if (!text.includes(description)) return false;
          frame = text;
          return true;
        }),
      );
      referenceTimes.push(await fanOut(referenceSubscribers, () => reference.clients.forEach((client) => client.send(frame)), () => true));
    }
    rows.push({ name: 'one change to 500 /events subscribers', value: median(bridgeTimes), reference: median(referenceTimes), unit: 'ms', target: 1.5 });
    rows.push({ name: 'bridge RSS for 500 /events subscribers', value: (rssAfter - rssBefore) / MiB, unit: 'MiB', absoluteLimit: 20 });
    for (const socket of [...subscribers, ...referenceSubscribers]) socket.terminate();
    reference.close();

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
      if ((await post(`${bridge.url}/ships`, { url: scaled.url }, auth)) !== 201) throw new Error(`ship-${s} registration failed`);
    }
    await sequential(`${bridge.url}/workspaces`, 3, auth);
    const agent = new http.Agent({ keepAlive: true });
    const count = JSON.parse((await timedRequest(agent, new URL(`${bridge.url}/workspaces`), 'GET', undefined, auth)).text).length;
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
    rows.push({ name: 'bridge GET /workspaces, 5 ships × 200 workspaces, p50', value: median(fleetTimes), unit: 'ms', absoluteLimit: 100 });
    rows.push({ name: 'bridge RSS growth for 5 ships × 200 workspaces', value: ((await settledRss(bridge.process.pid!)) - rssFleetBefore) / MiB, unit: 'MiB', absoluteLimit: 30 });
  } finally {
    for (const child of children.reverse()) await child.stop();
    // fleet-0 holds an activated workspace; the others hold none, so have no server to end
    endFleetTmux(join(root, 'fleet-0'));
    await rm(root, { recursive: true, force: true });
  }
  return rows;
}
