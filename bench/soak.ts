// `npm run soak` (not in CI; security notes §4.1): a bridge and a ship as real processes under steady mixed
// load for SVC_SOAK_MINUTES (default 10): 24 terminals streaming output through the bridge, one interactive
// probe typing a marker every 500 ms, 300 event subscribers following agent-status changes made 5 times a
// second, and routed HTTP at 100 req/s. Reports unexpected closes, event order, echo latency, routed
// latency and the RSS slope of both processes, and checks that nothing is left behind. SVC_SOAK_HOG=1 runs
// the same load beside a process that keeps one core busy the whole time (security notes X11: the bars hold
// at half the CPU, latency bars doubled). SVC_SOAK_HOSTILE=1 adds the abusive clients of X12: 20 event
// subscribers that never read, a terminal flooding resize and resync requests, and 50 slowloris connections
// kept open; everyone else's bars must not move.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { TerminalScreen, type TerminalServerFrame } from '../protocol/index.js';
import { makeBenchRemote } from './lib/fixtures.js';
import { percentile, timedRequest } from './lib/load.js';
import { freePort } from './lib/ports.js';
import { endFleetTmux, rssBytes, startBridgeProcess, startShipProcess, type Child } from './lib/processes.js';
import { tmuxSocketFor } from '../ship/server.js';

const MINUTES = Number(process.env.SVC_SOAK_MINUTES ?? 10);
const HOG = process.env.SVC_SOAK_HOG === '1';
const HOSTILE = process.env.SVC_SOAK_HOSTILE === '1';
const TERMINALS = 24;
const SUBSCRIBERS = 300;
const MiB = 1024 * 1024;
const GENERATOR =
  "exec 3< <(sleep 1000000); while :; do for i in 0 1 2 3 4 5 6 7 8 9; do printf '\\e[3%dmline %05d %s\\e[0m\\n' $i $RANDOM xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done; read -t 0.1 -u 3; done\r";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Terminal {
  socket: WebSocket;
  screen: TerminalScreen;
  closedUnexpectedly: boolean;
}

async function openTerminal(url: string, counters: { unexpected: number }): Promise<Terminal> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  const terminal: Terminal = { socket, screen: new TerminalScreen(), closedUnexpectedly: false };
  socket.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as TerminalServerFrame;
    if (frame.type === 'exit') return;
    const result = terminal.screen.apply(frame);
    if (result.resync) socket.send(JSON.stringify({ type: 'resync' }));
    if (result.ack !== undefined) socket.send(JSON.stringify({ type: 'ack', seq: result.ack }));
  });
  socket.on('close', () => {
    if (!stopping) {
      terminal.closedUnexpectedly = true;
      counters.unexpected++;
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'init', cols: 100, rows: 30 }));
  return terminal;
}

let stopping = false;

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'svc-soak-'));
  const children: Child[] = [];
  let hog: ChildProcess | null = null;
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
      const response = await fetch(url, { method: 'POST', headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const text = await response.text();
      if (!response.ok) throw new Error(`${url}: ${response.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    await post(`${bridge.url}/ships`, { url: ship.url });
    await post(`${bridge.url}/repos`, { name: 'soak', url: repoUrl });
    // w0: the probe through the bridge; w1…w24: the streams; wd: a second probe straight to the ship, which
    // tells the bridge's share of the echo latency from the ship's.
    const names = [...Array.from({ length: TERMINALS + 1 }, (_, i) => `w${i}`), 'wd', ...(HOSTILE ? ['wr'] : [])];
    for (const name of names) {
      await post(`${bridge.url}/workspaces`, { ship: 'soak', repoName: 'soak', name, branch: 'main' });
      await post(`${bridge.url}/workspaces/soak/${name}/activate`);
    }
    await post(`${ship.url}/workspaces/soak/w0/agent/init`, { model: 'm', provider: 'p', harness: 'h' });
    const wsBase = bridge.url.replace(/^http/, 'ws');
    const terminalUrl = async (name: string) => `${wsBase}/workspaces/soak/${name}/terminal?ticket=${(await post(`${bridge.url}/auth/ws-ticket`)).ticket as string}`;

    const counters = { unexpected: 0 };
    const streams: Terminal[] = [];
    for (let i = 1; i <= TERMINALS; i++) {
      const terminal = await openTerminal(await terminalUrl(`w${i}`), counters);
      streams.push(terminal);
      await sleep(200);
      // ~8 KB/s of coloured text per terminal, paced with a builtin read timeout (no process per line).
      terminal.socket.send(JSON.stringify({ type: 'input', data: GENERATOR }));
    }
    const probe = await openTerminal(await terminalUrl('w0'), counters);
    const directProbe = await openTerminal(`${ship.url.replace(/^http/, 'ws')}/workspaces/soak/wd/terminal`, counters);
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
    const hostile = { neverReading: [] as Socket[], slowloris: [] as Socket[], floodTimer: null as NodeJS.Timeout | null, floodClosed: false };
    if (HOSTILE) {
      const { hostname, port } = new URL(bridge.url);
      for (let i = 0; i < 20; i++) {
        // A genuine handshake, then the socket is never read again: events pile up at the bridge.
        const socket = connect(Number(port), hostname);
        socket.on('error', () => undefined);
        socket.write(`GET /events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${Buffer.from(`never-reading-${i}`.padEnd(16, '.')).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
          `Authorization: ${auth.authorization}\r\n\r\n`);
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
      const flooder = await openTerminal(await terminalUrl('wr'), { unexpected: 0 });
      flooder.socket.on('close', () => (hostile.floodClosed = true));
      let flip = 0;
      hostile.floodTimer = setInterval(() => {
        flip++;
        flooder.socket.send(JSON.stringify({ type: 'resize', cols: flip % 2 ? 100 : 120, rows: flip % 2 ? 30 : 40 }));
        if (flip % 2 === 0) flooder.socket.send(JSON.stringify({ type: 'resync' }));
      }, 10);
    }
    // A busy loop at normal priority, like stress-ng's one CPU worker.
    if (HOG) hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    const driverDelay = monitorEventLoopDelay({ resolution: 1 });
    driverDelay.enable();
    const echo: number[] = [];
    const routed: number[] = [];
    const rss: Array<{ minute: number; bridge: number; ship: number }> = [];
    const started = Date.now();
    const deadline = started + MINUTES * 60_000;
    let ticks = 0;
    const agent = new http.Agent({ keepAlive: true });
    const timers = [
      setInterval(() => {
        ticks++;
        void post(`${ship.url}/workspaces/soak/w0/agent/status`, { state: 'building', description: `tick ${ticks}` }).catch(() => undefined);
      }, 200),
      setInterval(() => {
        void timedRequest(agent, new URL(`${bridge.url}/workspaces/soak/w1`), 'GET', undefined, auth).then((r) => routed.push(r.ms), () => routed.push(Infinity));
      }, 10),
      setInterval(() => {
        rss.push({ minute: (Date.now() - started) / 60_000, bridge: rssBytes(bridge.process.pid!) / MiB, ship: rssBytes(ship.process.pid!) / MiB });
      }, 10_000),
    ];
    const directEcho: number[] = [];
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
    for (const timer of timers) clearInterval(timer);
    await sleep(1000);
    stopping = true;
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
    await sleep(HOSTILE ? 2000 : 0);
    const neverReadingClosed = ended.size;
    for (const socket of [...hostile.neverReading, ...hostile.slowloris]) socket.destroy();

    const expectedEvents = ticks * SUBSCRIBERS;
    // Least-squares slope over the second half: two end points alone swing with wherever a GC happened to land.
    const slope = (key: 'bridge' | 'ship') => {
      const half = rss.slice(Math.floor(rss.length / 2));
      if (half.length < 2) return 0;
      const meanX = half.reduce((sum, point) => sum + point.minute, 0) / half.length;
      const meanY = half.reduce((sum, point) => sum + point[key], 0) / half.length;
      const covariance = half.reduce((sum, point) => sum + (point.minute - meanX) * (point[key] - meanY), 0);
      const variance = half.reduce((sum, point) => sum + (point.minute - meanX) ** 2, 0);
      return covariance / variance;
    };
    const rows = [
      ['minutes', MINUTES.toFixed(1)],
      ['one core kept busy by another process', HOG ? 'yes' : 'no'],
      ['abusive clients (20 never-reading subscribers, a resize/resync flood, 50 slowloris)', HOSTILE ? `yes: never-reading upgraded ${upgraded} / 20, then closed by the bridge ${neverReadingClosed} / 20; flooding terminal closed ${hostile.floodClosed ? 'yes' : 'no'}` : 'no'],
      ['unexpected closes (terminals + subscribers)', String(counters.unexpected)],
      ['events delivered / expected (300 subscribers)', `${delivered} / ${expectedEvents} (${((delivered / expectedEvents) * 100).toFixed(2)}%)`],
      ['events out of order', String(outOfOrder)],
      ['probe echo p50 / p99 (ms)', `${percentile(echo, 50).toFixed(1)} / ${percentile(echo, 99).toFixed(1)}  (target p99 ≤ 50)`],
      ['probe echo straight to the ship p50 / p99 (ms)', `${percentile(directEcho, 50).toFixed(1)} / ${percentile(directEcho, 99).toFixed(1)}`],
      ['load driver event-loop delay p50 / p99 (ms, 1 ms floor)', `${(driverDelay.percentile(50) / 1e6).toFixed(1)} / ${(driverDelay.percentile(99) / 1e6).toFixed(1)}`],
      ['routed GET p50 / p99 at 100 req/s (ms)', `${percentile(routed, 50).toFixed(2)} / ${percentile(routed, 99).toFixed(2)}`],
      ['bridge RSS first → last (MiB), slope over the second half (MiB/min)', `${rss[0]?.bridge.toFixed(0)} → ${rss.at(-1)?.bridge.toFixed(0)}, ${slope('bridge').toFixed(2)}  (target < 1)`],
      ['ship RSS first → last (MiB), slope over the second half (MiB/min)', `${rss[0]?.ship.toFixed(0)} → ${rss.at(-1)?.ship.toFixed(0)}, ${slope('ship').toFixed(2)}  (target < 1)`],
    ];
    for (const socket of subscribers) socket.close();
    for (const terminal of [...streams, probe, directProbe]) terminal.socket.close();
    agent.destroy();
    let failedDeactivations = 0;
    for (const name of names) await post(`${bridge.url}/workspaces/soak/${name}/deactivate`).catch(() => failedDeactivations++);
    rows.push(['failed deactivations at the end', String(failedDeactivations)]);
    let leftover = 'none';
    try {
      leftover = execFileSync('tmux', ['-L', tmuxSocketFor(join(root, 'fleet')), 'list-sessions', '-F', '#{session_name}'], { encoding: 'utf8' })
        .split('\n')
        .filter((name) => name && name !== 'svc-control')
        .join(', ') || 'none';
    } catch {
      leftover = 'none';
    }
    rows.push(['workspace sessions left after deactivating all', leftover]);
    for (const child of children.splice(0).reverse()) await child.stop();
    for (const who of ['bridge', 'ship']) {
      let reported = 'not reported';
      try {
        const delay = JSON.parse(readFileSync(join(root, `${who}-loop-delay.json`), 'utf8')) as { p50: number; p99: number; max: number };
        reported = `${delay.p50} / ${delay.p99} / ${delay.max}  (target p99 ≤ 20)`;
      } catch {
        // the process did not exit cleanly
      }
      rows.push([`${who} event-loop delay p50 / p99 / max over the whole run (ms, 1 ms floor)`, reported]);
    }
    process.stdout.write(`\n| soak | value |\n|---|---|\n${rows.map(([name, value]) => `| ${name} | ${value} |`).join('\n')}\n`);
  } finally {
    hog?.kill('SIGKILL');
    for (const child of children.reverse()) await child.stop();
    endFleetTmux(join(root, 'fleet'));
    await rm(root, { recursive: true, force: true });
  }
}

await main();
