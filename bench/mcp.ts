// MCP (issue #16 speed): what an agent's status report costs, measured the way an agent's harness sends it
// (a raw JSON-RPC `tools/call` POST with the workspace's MCP token, on a ship with SVC_BRIDGE_TOKEN set) and
// the way a browser sees it (a `workspace.agent_status_changed` frame on a compressed `/events` WebSocket).
// - End to end, one active workspace: send → matching event, p50/p99, with two same-run references: the
//   HTTP route `POST …/agent/status` (the same service method without MCP) and a plain `GET …/:r/:n`.
// - 200 active workspaces on one ship: keystroke echo into `cat` in one more workspace while 50 agent_status
//   calls a second (open loop) are spread over the 200, against the same terminal with no calls; rounds
//   alternate so both see the same machine noise.
import { execFile } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import WebSocket from 'ws';
import { tmuxSocketFor } from '../ship/server.js';
import { sessionName } from '../ship/sessions/session-names.js';
import { cpuMs } from './lib/cpu.js';
import { makeBenchRemote } from './lib/fixtures.js';
import { median, percentile, timedRequest } from './lib/load.js';
import { endFleetTmux, rssBytes, startShipProcess, type Child } from './lib/processes.js';
import { BenchTerminal, typeMarkers } from './lib/terminal-client.js';
import type { BenchRow } from './report.js';

const CALLS = Number(process.env.SVC_BENCH_MCP_CALLS) || 300;
const WARM_UP = 50;
const LOADED_WORKSPACES = Number(process.env.SVC_BENCH_MCP_WORKSPACES) || 200;
const CALLS_PER_SECOND = 50;
const ROUND_MS = 10_000;
const ROUNDS = Number(process.env.SVC_BENCH_ROUNDS) || 3;
/** Creations and activations at once: each is a git clone or a tmux new-session, and the machine has 2 cores. */
const SETUP_CONCURRENCY = 4;
const BRIDGE_TOKEN = 'bench-bridge-token-mcp-0123456789abcdef';
const AUTH = { authorization: `Bearer ${BRIDGE_TOKEN}` };
/** What an MCP client sends on every POST after initialize (Streamable HTTP, protocol 2025-06-18). */
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const INIT = { model: 'bench-model', provider: 'bench', harness: 'bench' };

const execFileAsync = promisify(execFile);

/** Runs `work` over `items`, `concurrency` at a time, results in order. */
async function inPool<T, R>(items: T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

/** The ship's HTTP API as the bridge calls it (bridge token, keep-alive). */
class ShipClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  constructor(readonly url: string) {}

  async send(method: string, path: string, body?: unknown, expected = 200): Promise<{ ms: number; text: string }> {
    const reply = await timedRequest(
      this.agent,
      new URL(this.url + path),
      method,
      body === undefined ? undefined : JSON.stringify(body),
      AUTH,
    );
    if (reply.status !== expected)
      throw new Error(`${method} ${path} answered ${reply.status}: ${reply.text.slice(0, 300)}`);
    return reply;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** One workspace's MCP endpoint and the token its session was given. */
interface Seat {
  repo: string;
  name: string;
  url: URL;
  authorization: string;
}

/** The token an agent's shell in the workspace sees, read from the session environment on the ship's tmux socket. */
async function seatFor(shipUrl: string, fleet: string, repo: string, name: string): Promise<Seat> {
  const { stdout } = await execFileAsync('tmux', [
    '-L',
    tmuxSocketFor(fleet),
    'show-environment',
    '-t',
    `=${sessionName(repo, name)}`,
    'SVC_MCP_TOKEN',
  ]);
  const token = stdout.trim().replace(/^SVC_MCP_TOKEN=/, '');
  if (!/^[A-Za-z0-9_-]{20,}$/.test(token)) throw new Error(`no MCP token in the session of ${repo}/${name}: ${stdout}`);
  return { repo, name, url: new URL(`${shipUrl}/workspaces/${repo}/${name}/mcp`), authorization: `Bearer ${token}` };
}

let rpcId = 0;

/** A raw `tools/call` POST answered as JSON; the answer time in ms. A tool error or HTTP error throws. */
async function callTool(agent: http.Agent, seat: Seat, name: string, args: Record<string, unknown>): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } });
  const reply = await timedRequest(agent, seat.url, 'POST', body, {
    ...MCP_HEADERS,
    authorization: seat.authorization,
  });
  const answer = reply.status === 200 ? (JSON.parse(reply.text) as { result?: { isError?: boolean } }) : null;
  if (!answer?.result || answer.result.isError)
    throw new Error(`${name} on ${seat.repo}/${seat.name} answered ${reply.status}: ${reply.text.slice(0, 300)}`);
  return reply.ms;
}

/** A `/events` subscriber with permessage-deflate on, as browsers connect: when each awaited status arrives. */
class StatusEvents {
  received = 0;
  private readonly waiting = new Map<string, (at: number) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const at = performance.now();
      const event = JSON.parse(data.toString()) as {
        type: string;
        workspace?: { agent?: { description?: string } | null };
      };
      if (event.type !== 'workspace.agent_status_changed') return;
      this.received++;
      const description = event.workspace?.agent?.description;
      const arrived = description === undefined ? undefined : this.waiting.get(description);
      if (!arrived) return;
      this.waiting.delete(description!);
      arrived(at);
    });
  }

  static async open(shipUrl: string): Promise<StatusEvents> {
    const socket = new WebSocket(`${shipUrl.replace('http', 'ws')}/events`, { perMessageDeflate: true, headers: AUTH });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new StatusEvents(socket);
  }

  /** When the status with this (unique) description arrives; register before sending it. */
  arrival(description: string, timeoutMs = 10_000): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(description);
        reject(new Error(`no agent_status_changed event for "${description}" within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(description, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }

  close(): void {
    this.socket.close();
  }
}

async function createActive(ship: ShipClient, remote: string, repo: string, name: string): Promise<void> {
  await ship.send('POST', '/workspaces', { url: remote, repoName: repo, name, branch: 'main' }, 201);
  await ship.send('POST', `/workspaces/${repo}/${name}/activate`);
}

interface EndToEnd {
  mcpEvent: number[];
  mcpAnswer: number[];
  routeEvent: number[];
  get: number[];
  cpuMicros: { mcp: number; route: number };
}

/** Interleaved per iteration: MCP tools/call → event, the HTTP route → event, a GET of the workspace. */
async function endToEnd(ship: ShipClient, seat: Seat, events: StatusEvents, shipPid: number): Promise<EndToEnd> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const result: EndToEnd = { mcpEvent: [], mcpAnswer: [], routeEvent: [], get: [], cpuMicros: { mcp: 0, route: 0 } };
  const statusPath = `/workspaces/${seat.repo}/${seat.name}`;
  let sequence = 0;
  const viaMcp = async () => {
    const description = `e2e mcp ${sequence++}`;
    const arrived = events.arrival(description);
    const started = performance.now();
    const [answerMs, at] = await Promise.all([
      callTool(agent, seat, 'agent_status', { state: 'building', description }),
      arrived,
    ]);
    return { answerMs, eventMs: at - started };
  };
  const viaRoute = async () => {
    const description = `e2e route ${sequence++}`;
    const arrived = events.arrival(description);
    const started = performance.now();
    const [, at] = await Promise.all([
      ship.send('POST', `${statusPath}/agent/status`, { state: 'building', description }),
      arrived,
    ]);
    return at - started;
  };
  try {
    for (let i = 0; i < WARM_UP + CALLS; i++) {
      const mcp = await viaMcp();
      const route = await viaRoute();
      const get = await ship.send('GET', statusPath);
      if (i < WARM_UP) continue;
      result.mcpEvent.push(mcp.eventMs);
      result.mcpAnswer.push(mcp.answerMs);
      result.routeEvent.push(route);
      result.get.push(get.ms);
    }
    // Ship CPU per call, each path on its own (CPU time is read in 10 ms ticks: CALLS calls per figure).
    const cpuPerCall = async (one: () => Promise<unknown>) => {
      const before = cpuMs(shipPid);
      for (let i = 0; i < CALLS; i++) await one();
      return ((cpuMs(shipPid) - before) * 1000) / CALLS;
    };
    result.cpuMicros.mcp = await cpuPerCall(viaMcp);
    result.cpuMicros.route = await cpuPerCall(viaRoute);
    return result;
  } finally {
    agent.destroy();
  }
}

/** Echo latency of markers typed for `ms`, 15 to a line. */
function typeFor(terminal: BenchTerminal, ms: number): Promise<number[]> {
  const deadline = performance.now() + ms;
  return typeMarkers(terminal, () => performance.now() < deadline, 15);
}

let loadSequence = 0;

interface LoadRun<T> {
  value: T;
  answers: number[];
  arrivals: number[];
  sent: number;
  failed: number;
  seconds: number;
}

/** Runs `work` while agent_status is called CALLS_PER_SECOND times a second round-robin over `seats`, whatever the answers take. */
async function underMcpLoad<T>(seats: Seat[], events: StatusEvents, work: () => Promise<T>): Promise<LoadRun<T>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const answers: number[] = [];
  const arrivals: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  let failed = 0;
  const fire = () => {
    const sequence = loadSequence++;
    const seat = seats[sequence % seats.length]!;
    const description = `load ${sequence}`;
    const arrived = events.arrival(description);
    const started = performance.now();
    const call = Promise.all([callTool(agent, seat, 'agent_status', { state: 'building', description }), arrived]).then(
      ([answerMs, at]) => {
        answers.push(answerMs);
        arrivals.push(at - started);
      },
      () => void failed++,
    );
    inFlight.add(call);
    void call.finally(() => inFlight.delete(call));
  };
  const started = performance.now();
  // Paced on the clock, not on timer ticks: a late tick sends what is due, so the rate holds under load.
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) * CALLS_PER_SECOND) / 1000) + 1;
    for (; sent < due; sent++) fire();
  }, 1000 / CALLS_PER_SECOND);
  try {
    const value = await work();
    return { value, answers, arrivals, sent, failed, seconds: (performance.now() - started) / 1000 };
  } finally {
    clearInterval(timer);
    await Promise.all(inFlight);
    agent.destroy();
  }
}

export async function benchMcp(): Promise<BenchRow[]> {
  const root = realpathSync(await mkdtemp(join(tmpdir(), 'svc-bench-mcp-')));
  const fleet = join(root, 'fleet');
  mkdirSync(join(root, 'remote'));
  const { url: remote } = makeBenchRemote(join(root, 'remote'), 20);
  const verbose = (line: string) => void (process.env.SVC_BENCH_VERBOSE && process.stderr.write(`${line}\n`));
  let child: Child | undefined;
  let ship: ShipClient | undefined;
  let events: StatusEvents | undefined;
  let terminal: BenchTerminal | undefined;
  try {
    child = await startShipProcess(fleet, 'bench-mcp', { env: { SVC_BRIDGE_TOKEN: BRIDGE_TOKEN } });
    const shipPid = child.process.pid!;
    ship = new ShipClient(child.url);
    events = await StatusEvents.open(child.url);

    // 1. End to end on a ship with one active workspace.
    await createActive(ship, remote, 'b', 'one');
    const one = await seatFor(child.url, fleet, 'b', 'one');
    const initAgent = new http.Agent({ keepAlive: true, maxSockets: SETUP_CONCURRENCY });
    await callTool(initAgent, one, 'agent_init', INIT);
    const e2e = await endToEnd(ship, one, events, shipPid);
    const p = (values: number[]) =>
      `p50 ${median(values).toFixed(2)} p99 ${percentile(values, 99).toFixed(2)} max ${Math.max(...values).toFixed(2)}`;
    verbose(
      `e2e mcp→event ${p(e2e.mcpEvent)}\ne2e mcp answer ${p(e2e.mcpAnswer)}\ne2e route→event ${p(e2e.routeEvent)}\nGET ${p(e2e.get)}`,
    );
    verbose(`ship CPU per call: mcp ${e2e.cpuMicros.mcp.toFixed(0)} µs, route ${e2e.cpuMicros.route.toFixed(0)} µs`);

    // 2. LOADED_WORKSPACES more active workspaces, each agent initialized, and a terminal in `cat` in one more.
    const names = Array.from({ length: LOADED_WORKSPACES }, (_, i) => `w${String(i).padStart(3, '0')}`);
    let mark = performance.now();
    await inPool(names, SETUP_CONCURRENCY, (name) =>
      ship!.send('POST', '/workspaces', { url: remote, repoName: 'm', name, branch: 'main' }, 201),
    );
    const created = performance.now() - mark;
    mark = performance.now();
    await inPool(names, SETUP_CONCURRENCY, (name) => ship!.send('POST', `/workspaces/m/${name}/activate`));
    const activated = performance.now() - mark;
    const seats = await inPool(names, SETUP_CONCURRENCY * 2, (name) => seatFor(child!.url, fleet, 'm', name));
    await inPool(seats, SETUP_CONCURRENCY, (seat) => callTool(initAgent, seat, 'agent_init', INIT));
    initAgent.destroy();
    verbose(
      `${LOADED_WORKSPACES} workspaces: created in ${(created / 1000).toFixed(1)} s, activated in ${(activated / 1000).toFixed(1)} s; ship RSS ${(rssBytes(shipPid) / 2 ** 20).toFixed(0)} MiB`,
    );

    await createActive(ship, remote, 'b', 'echo');
    terminal = await BenchTerminal.open(`${child.url.replace('http', 'ws')}/workspaces/b/echo/terminal`, 120, 40, AUTH);
    const screen = terminal;
    await screen.until(() => /[$#] ?$/m.test(screen.screen.text()));
    screen.send({ type: 'input', data: 'clear; cat\r' });
    await sleep(300);

    const echo = { idle: [] as number[], loaded: [] as number[] };
    const load = { answers: [] as number[], arrivals: [] as number[], sent: 0, failed: 0, seconds: 0, shipCpuMs: 0 };
    await typeFor(screen, 2000); // warm-up, not counted
    for (let round = 0; round < ROUNDS; round++) {
      const steps = [
        async () => echo.idle.push(...(await typeFor(screen, ROUND_MS))),
        async () => {
          const before = cpuMs(shipPid);
          const run = await underMcpLoad(seats, events!, () => typeFor(screen, ROUND_MS));
          load.shipCpuMs += cpuMs(shipPid) - before;
          echo.loaded.push(...run.value);
          load.answers.push(...run.answers);
          load.arrivals.push(...run.arrivals);
          load.sent += run.sent;
          load.failed += run.failed;
          load.seconds += run.seconds;
        },
      ];
      for (const step of round % 2 === 0 ? steps : steps.reverse()) await step();
    }
    if (load.failed > 0)
      throw new Error(`${load.failed} of ${load.sent} agent_status calls under load failed or never reached /events`);
    verbose(
      `echo idle ${p(echo.idle)} (${echo.idle.length} keys)\necho loaded ${p(echo.loaded)} (${echo.loaded.length} keys)\n` +
        `load: ${load.sent} calls in ${load.seconds.toFixed(1)} s (${(load.sent / load.seconds).toFixed(1)}/s), answer ${p(load.answers)}, →event ${p(load.arrivals)}\n` +
        `ship CPU under load ${((100 * load.shipCpuMs) / (load.seconds * 1000)).toFixed(0)}% of a core; RSS ${(rssBytes(shipPid) / 2 ** 20).toFixed(0)} MiB; events seen ${events.received}`,
    );

    return [
      {
        name: 'tools/call agent_status (raw HTTP, MCP token) → event on /events (deflate) p50, 1 active workspace (vs GET /workspaces/:r/:n p50)',
        value: median(e2e.mcpEvent),
        reference: median(e2e.get),
        unit: 'ms',
        absoluteLimit: 5,
      },
      {
        name: '  the same p99 (vs GET p99)',
        value: percentile(e2e.mcpEvent, 99),
        reference: percentile(e2e.get, 99),
        unit: 'ms',
      },
      {
        name: '  MCP → event p50 vs the HTTP route POST …/agent/status → event p50 (same service method, no MCP)',
        value: median(e2e.mcpEvent),
        reference: median(e2e.routeEvent),
        unit: 'ms',
      },
      {
        name: '  ship CPU per call: MCP tools/call vs the HTTP route',
        value: e2e.cpuMicros.mcp,
        reference: e2e.cpuMicros.route,
        unit: 'µs',
      },
      {
        name: `keystroke echo p99 while ${CALLS_PER_SECOND} agent_status calls/s over ${LOADED_WORKSPACES} active workspaces (vs no calls)`,
        value: percentile(echo.loaded, 99),
        reference: percentile(echo.idle, 99),
        unit: 'ms',
        absoluteLimit: 10,
      },
      {
        name: '  keystroke echo p50 (vs no calls)',
        value: median(echo.loaded),
        reference: median(echo.idle),
        unit: 'ms',
      },
      {
        name: `  agent_status → event p99 at ${CALLS_PER_SECOND}/s over ${LOADED_WORKSPACES} workspaces (vs 1 workspace, sequential)`,
        value: percentile(load.arrivals, 99),
        reference: percentile(e2e.mcpEvent, 99),
        unit: 'ms',
      },
    ];
  } finally {
    void terminal?.close();
    events?.close();
    ship?.close();
    await child?.stop();
    endFleetTmux(fleet);
    await rm(root, { recursive: true, force: true });
  }
}
