// Fleet scale (issue #18): a `svc bridge` process fronting 100 ships × 100 workspaces (10,000) with 500
// `/events` subscribers offering permessage-deflate as browsers do, against the issue's absolute targets;
// then the same at 10 ships, and how each figure grows from 10 to 100.
//
// What is measured is the bridge, in its own process (as a user starts it: default log level,
// authentication on), so its RSS and CPU are its own and `SVC_BENCH_BRIDGE_NODE_ARGS=--cpu-prof …` profiles
// it. Around it, each in a process of its own: the fake ships (bench/lib/fake-ship.ts: the real wire
// protocol, answers prebuilt, all in one process), the 500 subscribers (bench/lib/fleet-subscribers.ts), a
// probe subscriber connected before them (first in the bridge's send order, alone in its process), 3 real
// `svc ship` processes for routed calls, and this process, which times HTTP calls. Frame times cross
// processes on CLOCK_MONOTONIC (`process.hrtime`). SVC_BENCH_FLEET_SHIPS=100 runs one size,
// SVC_BENCH_FLEET_DEFLATE=0 subscribers that offer no compression, SVC_BENCH_VERBOSE=1 prints each phase.
//
// Rows, each against its target:
//   - register the fake ships, POST /ships one after another (≤ 10 s); again later with the 500
//     subscribers connected, where each registration publishes the aggregate `sync` to all of them;
//   - GET /workspaces p50, each call re-fetching every ship as the spec requires (≤ 100 ms);
//   - one agent-status change sent by one fake ship, until the last of 500 subscribers has it (≤ 50 ms);
//   - a ship's `sync` of 100 (its stream dropped, the bridge reconnecting), from the fake ship's send until
//     the aggregate `sync` reaches the probe (≤ 5 ms), until all 500 have it, and the bridge's own work for
//     it timed in this process with its classes (to the compressed frame a deflate subscriber gets);
//   - bridge RSS after everything is connected over its RSS before the first registration (≤ 100 MiB),
//     settled, and each read after a full GC (bench/lib/gc-on-signal.ts);
//   - routed GET /workspaces/:r/:n to a real ship, p99, while 20 fake ships reconnect at once (≤ 5 ms), from
//     the drop for at least 3 s and until the probe has the aggregate with all 20, against the same calls
//     on the quiet fleet just before; each routed call is followed by the same call to the ship directly,
//     whose p99 is the part of the tail that is the ship's and the machine's, not the bridge's.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Compile } from 'typebox/compile';
import { FleetEvent } from '../protocol/index.js';
import { frameOfSegments, segmentOf } from '../bridge/events/broadcast-frame.js';
import { ShipRegistry } from '../bridge/ships/registry.js';
import type { ShipsStore } from '../bridge/store/ships-store.js';
import { FakeShip, startFakeFleet, workspacesOf, type FleetHandle } from './lib/fake-ship.js';
import { startSubscribers, type SubscribersHandle, type Watch } from './lib/fleet-subscribers.js';
import { makeBenchRemote } from './lib/fixtures.js';
import { median, percentile } from './lib/load.js';
import { freePort } from './lib/ports.js';
import { rssBytes, settledRss, startBridgeProcess, startShipProcess, type Child } from './lib/processes.js';
import { cpuMs } from './lib/cpu.js';
import type { BenchRow } from './report.js';

const MiB = 1024 * 1024;
const WORKSPACES_PER_SHIP = 100;
const SUBSCRIBERS = 500;
const REAL_SHIPS = 3;
const STORM = 20;
/** Rounds of a ship's sync (drop, reconnect, sync) timed to the first and the last subscriber. */
const SYNC_ROUNDS = 15;
/** Routed calls during a reconnect storm run at least this long from the drop. */
const STORM_WINDOW_MS = 3000;
/** Subscribers offer permessage-deflate as browsers do; SVC_BENCH_FLEET_DEFLATE=0 compares without. */
const DEFLATE = process.env.SVC_BENCH_FLEET_DEFLATE !== '0';
const verbose = process.env.SVC_BENCH_VERBOSE === '1';
const log = (line: string) => verbose && process.stderr.write(`fleet: ${line}\n`);
const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6;

interface Figures {
  ships: number;
  registerMs: number;
  /** The same with the 500 subscribers connected, and until all of them have the last ship. */
  reregisterMs: number;
  reregisterDeliveredMs: number;
  listP50: number;
  listP99: number;
  listed: number;
  changeP50: number;
  changeMax: number;
  syncFirstP50: number;
  syncAllP50: number;
  syncInProcess: number;
  rssGrowthMiB: number;
  /** The same, each RSS read after a full garbage collection. */
  retainedGrowthMiB: number;
  routedQuietP99: number;
  /** The same calls to the real ship directly, each right after a routed one. */
  directQuietP99: number;
  directStormP99: number;
  routedStormP99: number;
  routedStormP50: number;
  stormCalls: number;
  stormShips: number;
  /** From the drop until the first subscriber, and until all 500, have the aggregate with every reconnected ship. */
  stormFirstMs: number;
  stormAllMs: number;
  /** Rounds in which not every subscriber had it within 2 minutes. */
  stormIncomplete: number;
  /** Routed calls answered other than 200 (quiet and storm). */
  routedFailures: number;
  subscriberCloses: Record<string, number>;
  bridgeCpuMs: Record<string, number>;
}

/** RSS after a full garbage collection in the bridge (bench/lib/gc-on-signal.ts), settled. */
async function retainedRss(pid: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  await sleep(500);
  process.kill(pid, 'SIGUSR2');
  return settledRss(pid);
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

/** One GET, timed; a transport failure is status 0 with its message (recorded, not thrown). */
function timedGet(
  agent: http.Agent,
  url: URL,
  headers: Record<string, string>,
): Promise<{ ms: number; status: number; text: string }> {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const failed = (error: Error) =>
      resolve({
        ms: ms(started, process.hrtime.bigint()),
        status: 0,
        text: `${error.message} (${(error as NodeJS.ErrnoException).code ?? ''})`,
      });
    const request = http.request(url, { agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', failed);
      response.on('end', () =>
        resolve({
          ms: ms(started, process.hrtime.bigint()),
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString(),
        }),
      );
    });
    request.on('error', failed);
    request.end();
  });
}

/** Routed calls that did not answer 200, by answer (reported with the rows, never hidden). */
const failures = new Map<string, number>();

/** A routed call's target through the bridge, and the same workspace on its ship directly. */
interface RoutedTarget {
  routed: URL;
  direct: URL;
}

/**
 * Sequential calls to `targets` (round robin) until `until()` holds, each routed call followed by the same
 * call to the ship directly: each routed call's latency, and the ship's own at the same moments (what of a
 * routed tail is the ship's, and the machine's).
 */
async function callWhile(
  agents: { routed: http.Agent; direct: http.Agent },
  targets: RoutedTarget[],
  headers: Record<string, string>,
  until: () => boolean,
): Promise<{ routed: number[]; direct: number[] }> {
  const times = { routed: [] as number[], direct: [] as number[] };
  for (let i = 0; !until(); i++) {
    const target = targets[i % targets.length]!;
    const result = await timedGet(agents.routed, target.routed, headers);
    if (result.status !== 200) {
      const answer = `${result.status} ${result.text}`;
      failures.set(answer, (failures.get(answer) ?? 0) + 1);
      log(`routed call: ${answer}`);
      await sleep(100);
    }
    times.routed.push(result.ms);
    times.direct.push((await timedGet(agents.direct, target.direct, {})).ms);
  }
  return times;
}

async function fleetAt(ships: number, root: string, repoUrl: string): Promise<Figures> {
  const dir = join(root, `fleet-${ships}`);
  mkdirSync(dir, { recursive: true });
  const children: Array<{ stop(): Promise<void> }> = [];
  failures.clear();
  try {
    // The bridge as a user starts it: default log level (info), authentication on.
    const gcOnSignal = pathToFileURL(join(import.meta.dirname, 'lib', 'gc-on-signal.js')).href;
    const bridge = await startBridgeProcess(join(dir, 'bridge'), await freePort(), {
      env: { SVC_LOG_LEVEL: 'info' },
      nodeArgs: ['--expose-gc', `--import=${gcOnSignal}`],
    });
    children.push(bridge);
    const pid = bridge.process.pid!;
    const auth = { authorization: `Bearer ${bridge.token}` };
    const real: Child[] = [];
    for (let i = 0; i < REAL_SHIPS; i++) {
      const fleetDirectory = join(dir, `real-${i}`);
      mkdirSync(join(fleetDirectory, 'real'), { recursive: true });
      execFileSync('git', ['clone', '--quiet', repoUrl, join(fleetDirectory, 'real', `w${i}`)]);
      real.push(await startShipProcess(fleetDirectory, `real-${i}`));
      children.push(real[i]!);
    }
    const fakes: FleetHandle = await startFakeFleet(ships, WORKSPACES_PER_SHIP);
    children.push(fakes);

    const rssIdle = await settledRss(pid);
    const retainedIdle = await retainedRss(pid);
    for (const ship of real)
      if ((await post(`${bridge.url}/ships`, { url: ship.url }, auth)).status !== 201)
        throw new Error('real ship registration failed');
    const cpuBefore = cpuMs(pid);
    const registerStarted = performance.now();
    for (const ship of fakes.ships) {
      const answer = await post(`${bridge.url}/ships`, { url: ship.url }, auth);
      if (answer.status !== 201) throw new Error(`registering ${ship.name}: ${answer.status} ${answer.text}`);
    }
    const registerMs = performance.now() - registerStarted;
    const bridgeCpuMs: Record<string, number> = { register: cpuMs(pid) - cpuBefore };
    log(`${ships} ships registered in ${registerMs.toFixed(0)} ms, RSS ${(rssBytes(pid) / MiB).toFixed(0)} MiB`);

    // The probe subscriber connects first, so the bridge writes to it first, and alone in its process, so
    // its arrival times are the bridge's (the 500 share one process, which reads them all in turn).
    const eventsUrl = `${bridge.url.replace('http', 'ws')}/events`;
    const probe: SubscribersHandle = await startSubscribers(eventsUrl, 1, auth, DEFLATE);
    children.push(probe);
    const subscribers: SubscribersHandle = await startSubscribers(eventsUrl, SUBSCRIBERS, auth, DEFLATE);
    children.push(subscribers);
    const { extensions } = await subscribers.stats();
    if (DEFLATE !== extensions.includes('permessage-deflate'))
      throw new Error(`subscribers offered deflate: ${DEFLATE}; the bridge answered "${extensions}"`);
    const rssConnected = await settledRss(pid);
    const retainedConnected = await retainedRss(pid);
    log(
      `RSS idle ${(rssIdle / MiB).toFixed(0)} MiB, connected ${(rssConnected / MiB).toFixed(0)} MiB; after a full GC ${(retainedIdle / MiB).toFixed(0)} and ${(retainedConnected / MiB).toFixed(0)} MiB`,
    );

    // GET /workspaces: calls one after another, each a full refresh of every ship (nothing kept between).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const listUrl = new URL(`${bridge.url}/workspaces`);
    const expected = ships * WORKSPACES_PER_SHIP + REAL_SHIPS;
    const listTimes: number[] = [];
    let listed = 0;
    let before = cpuMs(pid);
    for (let i = 0; i < 23; i++) {
      const result = await timedGet(agent, listUrl, auth);
      if (result.status !== 200)
        throw new Error(`GET /workspaces answered ${result.status}: ${result.text.slice(0, 300)}`);
      listed = (JSON.parse(result.text) as unknown[]).length;
      if (listed !== expected) throw new Error(`GET /workspaces listed ${listed}, expected ${expected}`);
      if (i >= 3) listTimes.push(result.ms);
      await sleep(50);
    }
    bridgeCpuMs.list = (cpuMs(pid) - before) / 23;

    // One change from one fake ship to all 500 subscribers.
    const changeTimes: number[] = [];
    before = cpuMs(pid);
    for (let round = 0; round < 21; round++) {
      const description = `fleet change ${ships}-${round}`;
      await subscribers.arm({ kind: 'marker', marker: description });
      const sentAt = await fakes.emit(round % ships, 1 + (round % 50), description);
      const result = await subscribers.result(10_000);
      if (result.complete !== SUBSCRIBERS)
        throw new Error(`change reached ${result.complete} of ${SUBSCRIBERS} subscribers (${result.open} open)`);
      if (round > 0) changeTimes.push(ms(sentAt, result.last));
      await sleep(100);
    }
    bridgeCpuMs.change = (cpuMs(pid) - before) / 21;

    // A ship's sync: its stream dropped, the bridge reconnects (after its backoff) and the fake ship sends
    // `sync` on the new stream; timed from that send to the aggregate sync at the first and the last
    // subscriber. 15 rounds: the time to the first subscriber is bimodal on 2 cores (fast, or about twice that
    // when the probe's wake-ups and its inflate wait behind the 500 subscribers' process, which the bridge's
    // next writes wake; bench/RESULTS.md), and a median of 7 fell in either mode from run to run.
    const syncFirst: number[] = [];
    const syncAll: number[] = [];
    before = cpuMs(pid);
    for (let round = 0; round < SYNC_ROUNDS; round++) {
      const ship = (round * 7) % ships;
      const { syncs } = (await fakes.syncs([ship]))[0]!;
      const watch: Watch = {
        kind: 'syncWith',
        markers: [FakeShip.marker(fakes.ships[ship]!.name, syncs + 1)],
        prefix: 64 * 1024,
      };
      await probe.arm(watch);
      await subscribers.arm(watch);
      await fakes.drop([ship]);
      const probed = await probe.result(30_000);
      const result = await subscribers.result(30_000);
      const [after] = await fakes.syncs([ship]);
      if (after!.syncs !== syncs + 1)
        throw new Error(`ship ${ship} sent ${after!.syncs - syncs} syncs on reconnecting`);
      if (result.complete !== SUBSCRIBERS)
        log(`sync reached ${result.complete} of ${SUBSCRIBERS} (${result.open} open)`);
      syncFirst.push(ms(after!.lastSyncAt, probed.first));
      syncAll.push(ms(after!.lastSyncAt, result.last));
      log(`sync ${round}: to the probe ${syncFirst.at(-1)!.toFixed(2)} ms, to all ${syncAll.at(-1)!.toFixed(0)} ms`);
      await sleep(1000);
    }
    bridgeCpuMs.sync = (cpuMs(pid) - before) / SYNC_ROUNDS;

    // Routed calls to the real ships: on a quiet fleet, then while `storm` fake ships reconnect at once
    // (from the drop until every subscriber has had a sync for each of them, or 20 s).
    const targets = real.map((ship, i) => ({
      routed: new URL(`${bridge.url}/workspaces/real/w${i}`),
      direct: new URL(`${ship.url}/workspaces/real/w${i}`),
    }));
    const agents = { routed: agent, direct: new http.Agent({ keepAlive: true, maxSockets: 1 }) };
    await callWhile(
      agents,
      targets,
      auth,
      (
        (n) => () =>
          n-- <= 0
      )(300),
    );
    const quiet: number[] = [];
    const quietDirect: number[] = [];
    const stormTimes: number[] = [];
    const stormDirect: number[] = [];
    const stormFirst: number[] = [];
    const stormAll: number[] = [];
    let stormIncomplete = 0;
    const storm = Math.min(STORM, ships);
    before = cpuMs(pid);
    for (let round = 0; round < 3; round++) {
      const quietEnds = performance.now() + 2000;
      const quietCalls = await callWhile(agents, targets, auth, () => performance.now() > quietEnds);
      quiet.push(...quietCalls.routed);
      quietDirect.push(...quietCalls.direct);
      const stormShips = Array.from({ length: storm }, (_, i) => (round * storm + i) % ships);
      const syncsBefore = (await fakes.syncs(stormShips)).map((s) => s.syncs);
      // Done for a subscriber when a sync holds every dropped ship's next generation (syncs coalesce).
      const markers = stormShips.map((index, i) => FakeShip.marker(fakes.ships[index]!.name, syncsBefore[i]! + 1));
      const watch: Watch = { kind: 'syncWith', markers, prefix: 64 * 1024 };
      await probe.arm(watch);
      await subscribers.arm(watch);
      const dropped = performance.now();
      const droppedAt = process.hrtime.bigint();
      let probed = false;
      const probeWatch = probe.result(60_000).then((result) => {
        probed = true;
        return result;
      });
      await fakes.drop(stormShips);
      // Timed: from the drop until the first subscriber has the aggregate with all of them, and at least
      // STORM_WINDOW_MS (the bridge's reconnects, syncs and writes, not the 500 subscribers' own reading).
      const stormCalls = await callWhile(
        agents,
        targets,
        auth,
        () => probed && performance.now() - dropped >= STORM_WINDOW_MS,
      );
      stormTimes.push(...stormCalls.routed);
      stormDirect.push(...stormCalls.direct);
      const probeResult = await probeWatch;
      const result = await subscribers.result(120_000);
      if (probeResult.complete !== 1)
        throw new Error('the probe subscriber never had the aggregate with every reconnected ship');
      stormFirst.push(ms(droppedAt, probeResult.last));
      if (result.complete === result.open && result.open === SUBSCRIBERS) stormAll.push(ms(droppedAt, result.last));
      else stormIncomplete++;
      log(
        `storm ${round}: the probe had all ${storm} after ${ms(droppedAt, probeResult.last).toFixed(0)} ms; ${result.frames} syncs to the 500; ${result.complete}/${SUBSCRIBERS} had all after ${ms(droppedAt, result.last).toFixed(0)} ms; ${result.open} open`,
      );
      await sleep(1000);
    }
    bridgeCpuMs.storm = (cpuMs(pid) - before) / 3;
    agent.destroy();
    agents.direct.destroy();

    // Registration again, now with the 500 subscribers connected: each deregistration and registration
    // publishes the aggregate to all of them. Timed: the POST /ships loop, and until every subscriber has
    // the aggregate holding the last ship.
    await subscribers.arm({ kind: 'syncs', count: 1 });
    for (const ship of fakes.ships) {
      const response = await fetch(`${bridge.url}/ships/${ship.name}`, { method: 'DELETE', headers: auth });
      if (response.status !== 200)
        throw new Error(`deregistering ${ship.name}: ${response.status} ${await response.text()}`);
    }
    await subscribers.result(60_000);
    const last = fakes.ships.length - 1;
    const lastSyncs = (await fakes.syncs([last]))[0]!.syncs;
    await subscribers.arm({
      kind: 'syncWith',
      markers: [FakeShip.marker(fakes.ships[last]!.name, lastSyncs + 1)],
      prefix: 64 * 1024,
    });
    before = cpuMs(pid);
    const reregisterStarted = performance.now();
    for (const ship of fakes.ships) {
      const answer = await post(`${bridge.url}/ships`, { url: ship.url }, auth);
      if (answer.status !== 201) throw new Error(`registering ${ship.name} again: ${answer.status} ${answer.text}`);
    }
    const reregisterMs = performance.now() - reregisterStarted;
    const delivered = await subscribers.result(120_000);
    const reregisterDeliveredMs = performance.now() - reregisterStarted;
    bridgeCpuMs.reregister = cpuMs(pid) - before;
    log(
      `registered again with subscribers: ${reregisterMs.toFixed(0)} ms, delivered to ${delivered.complete}/${SUBSCRIBERS} after ${reregisterDeliveredMs.toFixed(0)} ms`,
    );
    const { closes } = await subscribers.stats();

    return {
      ships,
      registerMs,
      reregisterMs,
      reregisterDeliveredMs,
      listP50: median(listTimes),
      listP99: percentile(listTimes, 99),
      listed,
      changeP50: median(changeTimes),
      changeMax: Math.max(...changeTimes),
      syncFirstP50: median(syncFirst),
      syncAllP50: median(syncAll),
      syncInProcess: syncAppliedInProcess(ships),
      rssGrowthMiB: (rssConnected - rssIdle) / MiB,
      retainedGrowthMiB: (retainedConnected - retainedIdle) / MiB,
      routedQuietP99: percentile(quiet, 99),
      directQuietP99: percentile(quietDirect, 99),
      directStormP99: percentile(stormDirect, 99),
      routedStormP99: percentile(stormTimes, 99),
      routedStormP50: median(stormTimes),
      stormCalls: stormTimes.length,
      stormShips: storm,
      stormFirstMs: median(stormFirst),
      stormAllMs: stormAll.length ? median(stormAll) : NaN,
      stormIncomplete,
      routedFailures: [...failures.values()].reduce((sum, n) => sum + n, 0),
      subscriberCloses: closes,
      bridgeCpuMs,
    };
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

/**
 * What the bridge's event loop does with one ship's `sync` of 100, timed in this process with the bridge's
 * own classes (no ephemeral records): parse and validate the frame (ship-connection.ts), replace the ship's
 * view (ownership-index.ts), build the aggregate `sync` frame from the registry's kept segments and its
 * compressed copy, as a deflate subscriber gets it (registry.ts aggregateSegments, event-hub.ts,
 * broadcast-frame.ts). Median of 50, each a new generation of one ship's workspaces.
 */
function syncAppliedInProcess(ships: number): number {
  const check = Compile(FleetEvent);
  const registry = new ShipRegistry({} as ShipsStore);
  const names = Array.from({ length: ships }, (_, i) => `fake-${String(i).padStart(3, '0')}`);
  for (const name of names)
    registry.index.replaceView(name, JSON.parse(JSON.stringify(workspacesOf(name, WORKSPACES_PER_SHIP))) as never);
  const syncEnd = segmentOf('}');
  const times: number[] = [];
  for (let round = 0; round < 60; round++) {
    const ship = names[round % ships]!;
    const workspaces = workspacesOf(ship, WORKSPACES_PER_SHIP);
    workspaces[0] = { ...workspaces[0]!, branch: `generation-${round + 1}` };
    const text = JSON.stringify({ type: 'sync', ship, at: new Date().toISOString(), workspaces });
    const started = process.hrtime.bigint();
    const frame = JSON.parse(text) as { workspaces: never };
    if (!check.Check(frame)) throw new Error('invalid sync');
    registry.index.replaceView(ship, frame.workspaces);
    const start = segmentOf(`{"type":"sync","at":"${new Date().toISOString()}","workspaces":`);
    const compressed = frameOfSegments([start, ...registry.aggregateSegments(), syncEnd]).deflated();
    if (round >= 10) times.push(ms(started, process.hrtime.bigint()));
    if (compressed.length === 0) throw new Error('empty sync');
  }
  return median(times);
}

function rowsAt(f: Figures): BenchRow[] {
  const scale = `${f.ships} ships × ${WORKSPACES_PER_SHIP}`;
  const closes = Object.entries(f.subscriberCloses)
    .map(([code, n]) => `${n}×${code}`)
    .join(', ');
  return [
    {
      name: `fleet ${scale}: register ${f.ships} ships, POST /ships one after another`,
      value: f.registerMs,
      unit: 'ms',
      absoluteLimit: 10_000,
    },
    {
      name: `  the same with the 500 subscribers connected (each registration publishes the aggregate)`,
      value: f.reregisterMs,
      unit: 'ms',
      absoluteLimit: 10_000,
    },
    {
      name: `  until every subscriber has the aggregate with the last ship`,
      value: f.reregisterDeliveredMs,
      unit: 'ms',
    },
    {
      name: `fleet ${scale}: GET /workspaces (${f.listed} listed), p50`,
      value: f.listP50,
      unit: 'ms',
      absoluteLimit: 100,
    },
    {
      name: `fleet ${scale}: one change to 500 subscribers (${DEFLATE ? 'deflate offered' : 'no deflate'}), last arrival, p50`,
      value: f.changeP50,
      unit: 'ms',
      absoluteLimit: 50,
    },
    {
      name: `fleet ${scale}: a ship's sync of 100 to the first subscriber, p50`,
      value: f.syncFirstP50,
      unit: 'ms',
      absoluteLimit: 5,
    },
    { name: `  the same sync to all 500 subscribers, p50`, value: f.syncAllP50, unit: 'ms' },
    {
      name: `  the same sync applied in-process: validate, index, aggregate frame compressed, p50`,
      value: f.syncInProcess,
      unit: 'ms',
    },
    {
      name: `fleet ${scale}: bridge RSS growth over idle (ships + 500 subscribers), settled`,
      value: f.rssGrowthMiB,
      unit: 'MiB',
      absoluteLimit: 100,
    },
    {
      name: `  the same, each RSS read after a full GC (what the bridge holds)`,
      value: f.retainedGrowthMiB,
      unit: 'MiB',
    },
    {
      name: `fleet ${scale}: routed GET /workspaces/:r/:n p99 while ${f.stormShips} ships reconnect (${f.stormCalls} calls${f.routedFailures ? `, ${f.routedFailures} failed` : ''}) vs quiet`,
      value: f.routedStormP99,
      reference: f.routedQuietP99,
      unit: 'ms',
      absoluteLimit: 5,
    },
    {
      name: `  the real ship directly, p99, each call right after a routed one: while ${f.stormShips} ships reconnect vs quiet`,
      value: f.directStormP99,
      reference: f.directQuietP99,
      unit: 'ms',
    },
    {
      name: `  ${f.stormShips} reconnects until the first subscriber has the aggregate with all of them, p50`,
      value: f.stormFirstMs,
      unit: 'ms',
    },
    {
      name: `  … until all 500 have it, p50${f.stormIncomplete ? ` (${f.stormIncomplete} of 3 rounds not all within 2 min)` : ''}${closes ? `; subscriber closes ${closes}` : ''}`,
      value: f.stormAllMs,
      unit: 'ms',
    },
  ];
}

/** How each figure grows from the small fleet to the large one (×10 ships: linear is 10×). */
function growthRows(small: Figures, large: Figures): BenchRow[] {
  const label = `${small.ships}→${large.ships} ships`;
  const pairs: Array<[string, number, number, string]> = [
    ['registration, all ships', large.registerMs, small.registerMs, 'ms'],
    ['registration, per ship', large.registerMs / large.ships, small.registerMs / small.ships, 'ms'],
    [
      'registration with 500 subscribers, per ship',
      large.reregisterMs / large.ships,
      small.reregisterMs / small.ships,
      'ms',
    ],
    ['GET /workspaces p50', large.listP50, small.listP50, 'ms'],
    ['one change to 500 subscribers', large.changeP50, small.changeP50, 'ms'],
    ['a ship sync to the first subscriber', large.syncFirstP50, small.syncFirstP50, 'ms'],
    ['a ship sync to all 500 subscribers', large.syncAllP50, small.syncAllP50, 'ms'],
    ['a ship sync applied in-process', large.syncInProcess, small.syncInProcess, 'ms'],
    ['bridge RSS growth, settled', large.rssGrowthMiB, small.rssGrowthMiB, 'MiB'],
    ['bridge RSS growth after a full GC', large.retainedGrowthMiB, small.retainedGrowthMiB, 'MiB'],
    ['routed p99 during the reconnect storm', large.routedStormP99, small.routedStormP99, 'ms'],
    ['bridge CPU per GET /workspaces', large.bridgeCpuMs.list!, small.bridgeCpuMs.list!, 'ms'],
    ['bridge CPU per ship sync', large.bridgeCpuMs.sync!, small.bridgeCpuMs.sync!, 'ms'],
  ];
  return pairs.map(([what, value, reference, unit]) => ({ name: `growth ${label}: ${what}`, value, reference, unit }));
}

export async function benchFleet(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-fleet-'));
  try {
    const { url: repoUrl } = makeBenchRemote(root, 20);
    const scales = (process.env.SVC_BENCH_FLEET_SHIPS ?? '10,100').split(',').map(Number);
    const figures: Figures[] = [];
    for (const ships of scales) {
      figures.push(await fleetAt(ships, root, repoUrl));
      log(JSON.stringify(figures.at(-1)));
    }
    const rows = figures.flatMap(rowsAt);
    if (figures.length === 2) rows.push(...growthRows(figures[0]!, figures[1]!));
    return rows;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
