// The soak (S1, and its X11/X12 variants): a bridge and a ship as real processes under steady mixed load for
// `minutes`: 24 terminals streaming ~8 KB/s of coloured text each through the bridge, one interactive probe
// through the bridge and one straight to the ship (typing a marker every 500 ms), 300 event subscribers
// following agent-status changes made 5 times a second, and routed HTTP at 100 req/s. `hog` adds a process
// keeping one core busy (X11: bars hold at half the CPU); `hostile` adds the abusive clients of X12 (20 event
// subscribers that never read, a terminal flooding resize and resync requests, 50 slowloris connections).
// Returns the measurements; bench/soak.ts prints them, bench/run.ts holds them to their bars.
//
// The status ticks are posted one after another (the next only once the previous answered), so the order
// the ship applies them in is the order they were sent, and "out of order" or "lost" is the product's fault,
// never the driver's; a post that fails is counted apart and its event is not expected.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { TerminalScreen, type TerminalServerFrame } from '../protocol/index.js';
import { makeBenchRemote } from './lib/fixtures.js';
import { percentile, timedRequest } from './lib/load.js';
import { freePort } from './lib/ports.js';
import { endFleetTmux, rssBytes, startBridgeProcess, startShipProcess, type Child } from './lib/processes.js';
import { tmuxSocketFor } from '../ship/server.js';

export interface SoakOptions {
  minutes: number;
  hog?: boolean;
  hostile?: boolean;
}

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

export interface SoakReport {
  options: SoakOptions;
  unexpectedCloses: number;
  ticksPosted: number;
  ticksFailed: number;
  eventsDelivered: number;
  eventsExpected: number;
  eventsOutOfOrder: number;
  /** Probe echo through the bridge, and straight to the ship (ms). */
  echo: number[];
  directEcho: number[];
  routed: number[];
  routedFailed: number;
  driverLoop: { p50: number; p99: number };
  /** Each server's own event-loop delay over its whole life (null: it did not exit cleanly). */
  bridgeLoop: LoopDelay | null;
  shipLoop: LoopDelay | null;
  rss: Array<{ minute: number; bridge: number; ship: number }>;
  hostileOutcome: { upgraded: number; closedByBridge: number; floodClosed: boolean } | null;
  failedDeactivations: number;
  leftoverSessions: string;
}

const TERMINALS = 24;
const SUBSCRIBERS = 300;
const MiB = 1024 * 1024;
const TICK_MS = 200;
const GENERATOR =
  "exec 3< <(sleep 1000000); while :; do for i in 0 1 2 3 4 5 6 7 8 9; do printf '\\e[3%dmline %05d %s\\e[0m\\n' $i $RANDOM xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done; read -t 0.1 -u 3; done\r";

interface Terminal {
  socket: WebSocket;
  screen: TerminalScreen;
}

/** Least-squares slope (MiB/min) over the second half: two end points alone swing with wherever a GC landed. */
export function rssSlope(rss: SoakReport['rss'], key: 'bridge' | 'ship'): number {
  const half = rss.slice(Math.floor(rss.length / 2));
  if (half.length < 2) return 0;
  const meanX = half.reduce((sum, point) => sum + point.minute, 0) / half.length;
  const meanY = half.reduce((sum, point) => sum + point[key], 0) / half.length;
  const covariance = half.reduce((sum, point) => sum + (point.minute - meanX) * (point[key] - meanY), 0);
  const variance = half.reduce((sum, point) => sum + (point.minute - meanX) ** 2, 0);
  return covariance / variance;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const root = await mkdtemp(join(tmpdir(), 'svc-soak-'));
  const children: Child[] = [];
  let hog: ChildProcess | null = null;
  let stopping = false;
  const counters = { unexpected: 0 };

  async function openTerminal(url: string, count = true): Promise<Terminal> {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    const terminal: Terminal = { socket, screen: new TerminalScreen() };
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as TerminalServerFrame;
      if (frame.type === 'exit' || frame.type === 'history') return;
      const result = terminal.screen.apply(frame);
      if (result.resync) socket.send(JSON.stringify({ type: 'resync' }));
      if (result.ack !== undefined) socket.send(JSON.stringify({ type: 'ack', seq: result.ack }));
    });
    socket.on('close', () => {
      if (!stopping && count) counters.unexpected++;
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'init', cols: 100, rows: 30 }));
    return terminal;
  }

  try {
    const { url: repoUrl } = makeBenchRemote(root, 10);
    // Each server reports its own event-loop delay when it exits (bench/lib/loop-delay-probe.ts).
    const probed = (who: string) => ({
      nodeArgs: [`--import=${pathToFileURL(join(import.meta.dirname, 'lib', 'loop-delay-probe.js')).href}`],
      env: { SVC_LOOP_DELAY_FILE: join(root, `${who}-loop-delay.json`) },
    });
    const bridge = await startBridgeProcess(join(root, 'bridge'), await freePort(), probed('bridge'));
    children.push(bridge);
    const ship = await startShipProcess(join(root, 'fleet'), 'soak', probed('ship'));
    children.push(ship);
    const auth = { authorization: `Bearer ${bridge.token}` };
    const post = async (url: string, body?: unknown) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${url}: ${response.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    await post(`${bridge.url}/ships`, { url: ship.url });
    await post(`${bridge.url}/repos`, { name: 'soak', url: repoUrl });
    // w0: the probe through the bridge; w1…w24: the streams; wd: a second probe straight to the ship, which
    // tells the bridge's share of the echo latency from the ship's; wr: the hostile resize/resync flood.
    const names = [
      ...Array.from({ length: TERMINALS + 1 }, (_, i) => `w${i}`),
      'wd',
      ...(options.hostile ? ['wr'] : []),
    ];
    for (const name of names) {
      await post(`${bridge.url}/workspaces`, { ship: 'soak', repoName: 'soak', name, branch: 'main' });
      await post(`${bridge.url}/workspaces/soak/${name}/activate`);
    }
    await post(`${ship.url}/workspaces/soak/w0/agent/init`, { model: 'm', provider: 'p', harness: 'h' });
    const wsBase = bridge.url.replace(/^http/, 'ws');
    const terminalUrl = async (name: string) =>
      `${wsBase}/workspaces/soak/${name}/terminal?ticket=${(await post(`${bridge.url}/auth/ws-ticket`)).ticket as string}`;

    const streams: Terminal[] = [];
    for (let i = 1; i <= TERMINALS; i++) {
      const terminal = await openTerminal(await terminalUrl(`w${i}`));
      streams.push(terminal);
      await sleep(200);
      // ~8 KB/s of coloured text per terminal, paced with a builtin read timeout (no process per line).
      terminal.socket.send(JSON.stringify({ type: 'input', data: GENERATOR }));
    }
    const probe = await openTerminal(await terminalUrl('w0'));
    const directProbe = await openTerminal(`${ship.url.replace(/^http/, 'ws')}/workspaces/soak/wd/terminal`);
    await sleep(500);

    // Event subscribers: each checks that the status counter only ever increases.
    let outOfOrder = 0;
    let delivered = 0;
    const subscribers: WebSocket[] = [];
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const socket = new WebSocket(`${wsBase}/events`, { headers: auth, perMessageDeflate: false });
      let last = -1;
      socket.on('message', (data) => {
        const match = /"description":"tick (\d+)"/.exec(data.toString());
        if (!match) return;
        const value = Number(match[1]);
        if (value <= last) outOfOrder++;
        last = value;
        delivered++;
      });
      socket.on('close', () => {
        if (!stopping) counters.unexpected++;
      });
      subscribers.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
    }

    // X12: clients that abuse the servers while everyone else is measured.
    const hostile = {
      neverReading: [] as Socket[],
      slowloris: [] as Socket[],
      floodTimer: null as NodeJS.Timeout | null,
      floodClosed: false,
    };
    if (options.hostile) {
      const { hostname, port } = new URL(bridge.url);
      for (let i = 0; i < 20; i++) {
        // A genuine handshake, then the socket is never read again: events pile up at the bridge.
        const socket = connect(Number(port), hostname);
        socket.on('error', () => undefined);
        socket.write(
          `GET /events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: ${Buffer.from(`never-reading-${i}`.padEnd(16, '.')).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
            `Authorization: ${auth.authorization}\r\n\r\n`,
        );
        socket.pause();
        hostile.neverReading.push(socket);
      }
      const slowloris = () => {
        const socket = connect(Number(port), hostname);
        socket.on('error', () => undefined);
        socket.write(`GET /workspaces HTTP/1.1\r\nHost: ${hostname}\r\n`);
        const drip = setInterval(() => socket.write('X-Drip: 1\r\n'), 5000);
        socket.on('close', () => {
          clearInterval(drip);
          hostile.slowloris.splice(hostile.slowloris.indexOf(socket), 1);
          if (!stopping) slowloris();
        });
        hostile.slowloris.push(socket);
      };
      for (let i = 0; i < 50; i++) slowloris();
      const flooder = await openTerminal(await terminalUrl('wr'), false);
      flooder.socket.on('close', () => (hostile.floodClosed = true));
      let flip = 0;
      hostile.floodTimer = setInterval(() => {
        flip++;
        flooder.socket.send(JSON.stringify({ type: 'resize', cols: flip % 2 ? 100 : 120, rows: flip % 2 ? 30 : 40 }));
        if (flip % 2 === 0) flooder.socket.send(JSON.stringify({ type: 'resync' }));
      }, 10);
    }
    // A busy loop at normal priority, like stress-ng's one CPU worker.
    if (options.hog) hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    const driverDelay = monitorEventLoopDelay({ resolution: 1 });
    driverDelay.enable();
    const echo: number[] = [];
    const directEcho: number[] = [];
    const routed: number[] = [];
    let routedFailed = 0;
    const rss: SoakReport['rss'] = [];
    const started = Date.now();
    const deadline = started + options.minutes * 60_000;
    const agent = new http.Agent({ keepAlive: true });

    // Ticks one after another, every 200 ms while posts keep up; a slow post delays the next, never reorders.
    const ticks = { posted: 0, failed: 0 };
    const ticking = (async () => {
      let next = 0;
      while (Date.now() < deadline) {
        const due = performance.now() + TICK_MS;
        try {
          await post(`${ship.url}/workspaces/soak/w0/agent/status`, {
            state: 'building',
            description: `tick ${++next}`,
          });
          ticks.posted++;
        } catch {
          ticks.failed++;
        }
        await sleep(Math.max(0, due - performance.now()));
      }
    })();
    const timers = [
      setInterval(() => {
        void timedRequest(agent, new URL(`${bridge.url}/workspaces/soak/w1`), 'GET', undefined, auth).then(
          (reply) => (reply.status === 200 ? routed.push(reply.ms) : routedFailed++),
          () => routedFailed++,
        );
      }, 10),
      setInterval(() => {
        rss.push({
          minute: (Date.now() - started) / 60_000,
          bridge: rssBytes(bridge.process.pid!) / MiB,
          ship: rssBytes(ship.process.pid!) / MiB,
        });
      }, 10_000),
    ];
    let marker = 0;
    const type = async (terminal: Terminal, samples: number[]) => {
      const text = `probe-${++marker}`;
      const sent = performance.now();
      terminal.socket.send(JSON.stringify({ type: 'input', data: `${text}` }));
      const until = performance.now() + 5000;
      while (!terminal.screen.text().includes(text) && performance.now() < until) await sleep(1);
      samples.push(performance.now() - sent);
      terminal.socket.send(JSON.stringify({ type: 'input', data: '\u0015' })); // clear the line (Ctrl-U)
    };
    while (Date.now() < deadline) {
      await type(probe, echo);
      await sleep(250);
      await type(directProbe, directEcho);
      await sleep(250);
    }
    await ticking;
    for (const timer of timers) clearInterval(timer);
    await sleep(1000);
    stopping = true;
    driverDelay.disable();
    if (hostile.floodTimer) clearInterval(hostile.floodTimer);
    // Read what the never-reading subscribers were sent: the ones the bridge gave up on end there.
    const ended = new Set<Socket>();
    let upgraded = 0;
    for (const socket of hostile.neverReading) {
      socket.once('data', (chunk: Buffer) => {
        if (chunk.toString('latin1').startsWith('HTTP/1.1 101')) upgraded++;
      });
      socket.once('end', () => ended.add(socket));
      socket.once('close', () => ended.add(socket));
      socket.resume();
    }
    await sleep(options.hostile ? 2000 : 0);
    for (const socket of [...hostile.neverReading, ...hostile.slowloris]) socket.destroy();
    // Read before the deactivations below end every terminal, the flooder's included.
    const hostileOutcome = options.hostile
      ? { upgraded, closedByBridge: ended.size, floodClosed: hostile.floodClosed }
      : null;

    for (const socket of subscribers) socket.close();
    for (const terminal of [...streams, probe, directProbe]) terminal.socket.close();
    agent.destroy();
    let failedDeactivations = 0;
    for (const name of names)
      await post(`${bridge.url}/workspaces/soak/${name}/deactivate`).catch(() => failedDeactivations++);
    let leftoverSessions = 'none';
    try {
      leftoverSessions =
        execFileSync('tmux', ['-L', tmuxSocketFor(join(root, 'fleet')), 'list-sessions', '-F', '#{session_name}'], {
          encoding: 'utf8',
        })
          .split('\n')
          .filter((name) => name && name !== 'svc-control')
          .join(', ') || 'none';
    } catch {
      leftoverSessions = 'none';
    }
    for (const child of children.splice(0).reverse()) await child.stop();
    const loopDelay = (who: string): LoopDelay | null => {
      try {
        return JSON.parse(readFileSync(join(root, `${who}-loop-delay.json`), 'utf8')) as LoopDelay;
      } catch {
        return null; // the process did not exit cleanly
      }
    };
    return {
      options,
      unexpectedCloses: counters.unexpected,
      ticksPosted: ticks.posted,
      ticksFailed: ticks.failed,
      eventsDelivered: delivered,
      eventsExpected: ticks.posted * SUBSCRIBERS,
      eventsOutOfOrder: outOfOrder,
      echo,
      directEcho,
      routed,
      routedFailed,
      driverLoop: { p50: driverDelay.percentile(50) / 1e6, p99: driverDelay.percentile(99) / 1e6 },
      bridgeLoop: loopDelay('bridge'),
      shipLoop: loopDelay('ship'),
      rss,
      hostileOutcome,
      failedDeactivations,
      leftoverSessions,
    };
  } finally {
    hog?.kill('SIGKILL');
    for (const child of children.reverse()) await child.stop();
    endFleetTmux(join(root, 'fleet'));
    await rm(root, { recursive: true, force: true });
  }
}

/** The report as the table bench/RESULTS.md keeps. */
export function soakTable(report: SoakReport): string {
  const p = (values: number[], q: number) => percentile(values, q).toFixed(1);
  const loop = (delay: LoopDelay | null) => (delay ? `${delay.p50} / ${delay.p99} / ${delay.max}` : 'not reported');
  const rssRow = (key: 'bridge' | 'ship') =>
    `${report.rss[0]?.[key].toFixed(0)} → ${report.rss.at(-1)?.[key].toFixed(0)}, ${rssSlope(report.rss, key).toFixed(2)}`;
  const hostile = report.hostileOutcome;
  const rows = [
    ['minutes', report.options.minutes.toFixed(1)],
    ['one core kept busy by another process', report.options.hog ? 'yes' : 'no'],
    [
      'abusive clients (20 never-reading subscribers, a resize/resync flood, 50 slowloris)',
      hostile
        ? `yes: never-reading upgraded ${hostile.upgraded} / 20, then closed by the bridge ${hostile.closedByBridge} / 20; flooding terminal closed ${hostile.floodClosed ? 'yes' : 'no'}`
        : 'no',
    ],
    ['unexpected closes (terminals + subscribers)', String(report.unexpectedCloses)],
    ['status ticks posted / failed (one after another)', `${report.ticksPosted} / ${report.ticksFailed}`],
    [
      'events delivered / expected (300 subscribers × ticks posted)',
      `${report.eventsDelivered} / ${report.eventsExpected} (${((report.eventsDelivered / report.eventsExpected) * 100).toFixed(2)}%)`,
    ],
    ['events out of order', String(report.eventsOutOfOrder)],
    ['probe echo through the bridge p50 / p99 (ms)', `${p(report.echo, 50)} / ${p(report.echo, 99)}`],
    ['probe echo straight to the ship p50 / p99 (ms)', `${p(report.directEcho, 50)} / ${p(report.directEcho, 99)}`],
    [
      'routed GET p50 / p99 at 100 req/s (ms); failed',
      `${percentile(report.routed, 50).toFixed(2)} / ${percentile(report.routed, 99).toFixed(2)}; ${report.routedFailed}`,
    ],
    [
      'load driver event-loop delay p50 / p99 (ms, 1 ms floor)',
      `${report.driverLoop.p50.toFixed(1)} / ${report.driverLoop.p99.toFixed(1)}`,
    ],
    ['bridge event-loop delay p50 / p99 / max over its life (ms)', loop(report.bridgeLoop)],
    ['ship event-loop delay p50 / p99 / max over its life (ms)', loop(report.shipLoop)],
    ['bridge RSS first → last (MiB), slope over the second half (MiB/min)', rssRow('bridge')],
    ['ship RSS first → last (MiB), slope over the second half (MiB/min)', rssRow('ship')],
    ['failed deactivations at the end', String(report.failedDeactivations)],
    ['workspace sessions left after deactivating all', report.leftoverSessions],
  ];
  return `| soak | value |\n|---|---|\n${rows.map(([name, value]) => `| ${name} | ${value} |`).join('\n')}`;
}
