// Terminal benchmarks (issue: terminals). Throughput: `cat` of 4 MB and 16 MB of mixed text and ANSI colour
// in an attached 120×40 session until the client has reconstructed the final screen, against the same
// output in a bare tmux session polled with capture-pane, interleaved in the same run. Latency: single
// keys typed into `cat`, time until the echo is on the reconstructed screen. Every terminal measurement runs
// twice, interleaved: a client offering permessage-deflate, as every browser does, and one that does not
// (issue #18); and a 240×70 grid frame's size on the wire is measured both ways.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeBenchRemote } from './lib/fixtures.js';
import { median, percentile, timedRequest } from './lib/load.js';
import { startShipProcess } from './lib/processes.js';
import { BenchTerminal, modeLabel, typeMarkers } from './lib/terminal-client.js';
import { WireTap } from './lib/wire-tap.js';
import { cpuMs, tmuxServerPid } from './lib/cpu.js';
import { tmuxSocketFor } from '../ship/server.js';
import { realpathSync } from 'node:fs';
import type { BenchRow } from './report.js';
import http from 'node:http';

const COLS = 120;
const ROWS = 40;

/** Mixed text and colour, ending with a unique marker line. */
export function mixedOutput(bytes: number, marker: string): string {
  const words = ['alpha', 'beta', 'γάμμα', 'delta', '漢字', 'epsilon', 'zeta', 'eta', 'theta'];
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const colour =
      i % 3 === 0
        ? `\x1b[3${i % 8}m`
        : i % 3 === 1
          ? `\x1b[38;5;${i % 256}m`
          : `\x1b[38;2;${i % 256};${(i * 7) % 256};${(i * 13) % 256}m`;
    const text = Array.from({ length: 10 }, (_, w) => words[(i + w) % words.length]).join(' ');
    const line = `${colour}${String(i).padStart(8, '0')} ${text}\x1b[0m ${'-'.repeat(i % 40)}`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  lines.push(marker);
  return `${lines.join('\n')}\n`;
}

const tmux = (socket: string, ...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

async function bareTmuxRun(socket: string, file: string, marker: string): Promise<number> {
  tmux(socket, 'send-keys', '-t', '=bare:', 'clear', 'Enter');
  await sleep(200);
  const started = performance.now();
  tmux(socket, 'send-keys', '-t', '=bare:', `cat ${file}`, 'Enter');
  for (;;) {
    const screen = tmux(socket, 'capture-pane', '-p', '-t', '=bare:');
    if (screen.includes(marker)) return performance.now() - started;
    await sleep(5);
  }
}

/** Whether the client offers permessage-deflate: without, then as a browser. */
const MODES = [false, true] as const;
type Mode = (typeof MODES)[number];

const cpuSpent = { ship: 0, client: 0, tmux: 0 };

/** A terminal on a fresh active workspace `b/<name>`, at its prompt; deflate checked as negotiated when offered. */
async function openTerminal(
  agent: http.Agent,
  shipUrl: string,
  repoUrl: string,
  name: string,
  deflate: Mode,
  cols = COLS,
  rows = ROWS,
): Promise<BenchTerminal> {
  const create = await timedRequest(
    agent,
    new URL(`${shipUrl}/workspaces`),
    'POST',
    JSON.stringify({ url: repoUrl, repoName: 'b', name, branch: 'main' }),
  );
  if (create.status !== 201) throw new Error(`create answered ${create.status}`);
  await timedRequest(agent, new URL(`${shipUrl}/workspaces/b/${name}/activate`), 'POST');
  const terminal = await BenchTerminal.open(
    `${shipUrl.replace('http', 'ws')}/workspaces/b/${name}/terminal`,
    cols,
    rows,
    {},
    { deflate },
  );
  if (deflate !== terminal.extensions.includes('permessage-deflate'))
    throw new Error(`deflate ${deflate ? 'not ' : ''}negotiated: "${terminal.extensions}"`);
  await terminal.until(() => /[$#] ?$/m.test(terminal.screen.text()));
  return terminal;
}

async function svcRun(
  terminal: BenchTerminal,
  file: string,
  marker: string,
  pids: { ship: number; tmux: number | null },
): Promise<number> {
  terminal.send({ type: 'input', data: 'clear\r' });
  await terminal.until(() => !terminal.screen.text().includes('MARK-'));
  await sleep(200);
  const before = { ship: cpuMs(pids.ship), client: process.cpuUsage(), tmux: pids.tmux ? cpuMs(pids.tmux) : 0 };
  const started = performance.now();
  terminal.send({ type: 'input', data: `cat ${file}\r` });
  await terminal.until(() => terminal.screen.text().includes(marker), 120_000);
  const elapsed = performance.now() - started;
  const client = process.cpuUsage(before.client);
  cpuSpent.ship += cpuMs(pids.ship) - before.ship;
  cpuSpent.client += (client.user + client.system) / 1000;
  cpuSpent.tmux += pids.tmux ? cpuMs(pids.tmux) - before.tmux : 0;
  return elapsed;
}

export async function benchTerminal(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const rows: BenchRow[] = [];
  const { url } = makeBenchRemote(root, 8);
  const ship = await startShipProcess(join(root, 'fleet'));
  const socket = `svc-bench-bare-${process.pid}`;
  const agent = new http.Agent({ keepAlive: true });
  const terminals: BenchTerminal[] = [];
  try {
    // One workspace per mode, both attached for the whole run: rounds alternate between them.
    const byMode = new Map<Mode, BenchTerminal>();
    for (const deflate of MODES) {
      const terminal = await openTerminal(agent, ship.url, url, deflate ? 'tz' : 't', deflate);
      terminals.push(terminal);
      byMode.set(deflate, terminal);
    }
    execFileSync(
      'tmux',
      [
        '-L',
        socket,
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-s',
        'bare',
        '-x',
        String(COLS),
        '-y',
        String(ROWS),
        'bash --noprofile --norc',
      ],
      {
        env: { ...process.env, LANG: 'C.UTF-8' },
      },
    );
    tmux(socket, 'set-option', '-g', 'status', 'off');

    const pids = { ship: ship.process.pid!, tmux: tmuxServerPid(tmuxSocketFor(realpathSync(join(root, 'fleet')))) };
    const bareTmuxPid = tmuxServerPid(socket);
    for (const megabytes of [4, 16]) {
      const svcTimes = new Map<Mode, number[]>(MODES.map((mode) => [mode, []]));
      const cpu = new Map<Mode, typeof cpuSpent>(MODES.map((mode) => [mode, { ship: 0, client: 0, tmux: 0 }]));
      const bareTimes: number[] = [];
      let bareTmuxCpu = 0;
      // Six rounds: the bare run and each mode take each of the three positions twice. A median of three
      // moved too much between runs of the same code, bare tmux's alone included (bench/RESULTS.md).
      for (let round = 0; round < (Number(process.env.SVC_BENCH_ROUNDS) || 6); round++) {
        const marker = `MARK-${megabytes}-${round}-${Date.now()}`;
        const file = join(root, `out-${megabytes}-${round}.txt`);
        await writeFile(file, mixedOutput(megabytes * 1024 * 1024, marker));
        // The bare run and each mode take every position in turn.
        const runs: Array<'bare' | Mode> = ['bare', ...MODES];
        for (let turn = 0; turn < round % runs.length; turn++) runs.push(runs.shift()!);
        for (const run of runs) {
          if (run === 'bare') {
            const before = bareTmuxPid ? cpuMs(bareTmuxPid) : 0;
            bareTimes.push(await bareTmuxRun(socket, file, marker));
            bareTmuxCpu += bareTmuxPid ? cpuMs(bareTmuxPid) - before : 0;
            continue;
          }
          Object.assign(cpuSpent, { ship: 0, client: 0, tmux: 0 });
          svcTimes.get(run)!.push(await svcRun(byMode.get(run)!, file, marker, pids));
          const spent = cpu.get(run)!;
          for (const key of ['ship', 'client', 'tmux'] as const) spent[key] += cpuSpent[key];
        }
      }
      if (process.env.SVC_BENCH_VERBOSE) {
        for (const mode of MODES) {
          const times = svcTimes.get(mode)!;
          const perRun = Object.entries(cpu.get(mode)!)
            .map(([who, ms]) => `${who} ${Math.round(ms / times.length)} ms`)
            .join(', ');
          process.stderr.write(
            `${megabytes} MB (${modeLabel(mode)}): svc ${times.map(Math.round)} bare ${bareTimes.map(Math.round)}; CPU per svc run: ${perRun}; bare tmux per run ${Math.round(bareTmuxCpu / bareTimes.length)} ms\n`,
          );
        }
      }
      for (const mode of MODES) {
        rows.push({
          name: `cat ${megabytes} MB in 120×40 to the reconstructed screen vs bare tmux (${modeLabel(mode)})`,
          value: median(svcTimes.get(mode)!),
          reference: median(bareTimes),
          unit: 'ms',
          target: megabytes === 4 ? 1.25 : 1.1,
        });
      }
    }

    // Keystroke latency: `cat` echoes each key (tty echo) on one line; blocks of 50 keys alternate between
    // the modes so both see the same machine.
    for (const terminal of byMode.values()) terminal.send({ type: 'input', data: 'clear; cat\r' });
    await sleep(500);
    const latencies = new Map<Mode, number[]>(MODES.map((mode) => [mode, []]));
    for (let block = 0; block < 8; block++) {
      const mode = MODES[block % MODES.length]!;
      latencies.get(mode)!.push(...(await echoKeys(byMode.get(mode)!, 50)));
    }
    for (const terminal of byMode.values()) terminal.send({ type: 'input', data: '\u0003' });
    for (const mode of MODES) {
      rows.push({
        name: `keystroke echo into cat, p50 (${modeLabel(mode)})`,
        value: median(latencies.get(mode)!),
        unit: 'ms',
        absoluteLimit: 3,
      });
      rows.push({
        name: `keystroke echo into cat, p99 (${modeLabel(mode)})`,
        value: percentile(latencies.get(mode)!, 99),
        unit: 'ms',
        absoluteLimit: 10,
      });
    }
    rows.push(...(await gridOnTheWire(agent, ship.url, url, root)));
    rows.push(...(await hostileNeighbour(ship.url, url, byMode)));
  } finally {
    for (const terminal of terminals) void terminal.close();
    agent.destroy();
    try {
      tmux(socket, 'kill-server');
    } catch {
      // not started
    }
    for (const name of ['t', 'tz', 'grid'])
      await timedRequest(new http.Agent(), new URL(`${ship.url}/workspaces/b/${name}/deactivate`), 'POST').catch(
        () => undefined,
      );
    await ship.stop();
    await rm(root, { recursive: true, force: true });
  }
  return rows;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';

/** `count` single letters typed on a fresh line, each timed until the line on the screen ends with all so far. */
async function echoKeys(terminal: BenchTerminal, count: number): Promise<number[]> {
  terminal.send({ type: 'input', data: '\r' });
  await sleep(100);
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const expected = ALPHABET.repeat(Math.ceil((i + 1) / ALPHABET.length)).slice(0, i + 1);
    const started = performance.now();
    terminal.send({ type: 'input', data: ALPHABET[i % ALPHABET.length]! });
    await terminal.until(() => terminal.screen.rowText(terminal.screen.cursor.y).trimEnd().endsWith(expected), 5000);
    latencies.push(performance.now() - started);
    await sleep(5);
  }
  return latencies;
}

/**
 * A full 240×70 `grid` of a screen of coloured text, as each mode receives it on the wire: the screen is
 * filled by one connection, then a connection of each mode opens at the same size and gets it as a full
 * snapshot. Compression has to pay here (the target keeps it on for large frames).
 */
async function gridOnTheWire(agent: http.Agent, shipUrl: string, repoUrl: string, root: string): Promise<BenchRow[]> {
  const [cols, rows] = [240, 70];
  const filler = await openTerminal(agent, shipUrl, repoUrl, 'grid', false, cols, rows);
  const marker = `GRID-${Date.now()}`;
  const file = join(root, 'grid.txt');
  // Lines longer than 120 columns: the mixed words twice over, in colour.
  await writeFile(
    file,
    mixedOutput(40 * 1024, marker)
      .split('\n')
      .map((line) => `${line} ${line}`)
      .join('\n'),
  );
  filler.send({ type: 'input', data: `clear; cat ${file}\r` });
  await filler.until(() => filler.screen.text().includes(marker));
  await filler.close();
  const bytes = new Map<Mode, { wireBytes: number; compressed: boolean }>();
  for (const deflate of MODES) {
    const tap = new WireTap();
    const terminal = await BenchTerminal.open(
      `${shipUrl.replace('http', 'ws')}/workspaces/b/grid/terminal`,
      cols,
      rows,
      {},
      { deflate, tap },
    );
    // The emulator's blank screen goes first; the frame that brings the marker is the screen's grid.
    await terminal.until(() => terminal.screen.text().includes(marker));
    const grid = tap.messages.at(-1)!;
    if (process.env.SVC_BENCH_VERBOSE)
      process.stderr.write(`240×70 (${modeLabel(deflate)}): ${JSON.stringify(tap.messages)}\n`);
    bytes.set(deflate, grid);
    await terminal.close();
  }
  if (!bytes.get(true)!.compressed) process.stderr.write('the 240×70 grid came uncompressed with deflate negotiated\n');
  return [
    {
      name: '240×70 grid of coloured text on the wire: deflate offered vs not',
      value: bytes.get(true)!.wireBytes,
      reference: bytes.get(false)!.wireBytes,
      unit: 'B',
      target: 0.5,
    },
  ];
}

/**
 * docs/security.md H11: a neighbouring workspace prints escape sequences with huge repeat counts (REP, IL and
 * a scroll region) 50 times a second while keys are typed here and the ship's status route is polled. The
 * emulator work they cause must not stall this terminal or the ship.
 */
async function hostileNeighbour(
  shipUrl: string,
  repoUrl: string,
  byMode: Map<Mode, BenchTerminal>,
): Promise<BenchRow[]> {
  const agent = new http.Agent({ keepAlive: true });
  await timedRequest(
    agent,
    new URL(`${shipUrl}/workspaces`),
    'POST',
    JSON.stringify({ url: repoUrl, repoName: 'b', name: 'hostile', branch: 'main' }),
  );
  await timedRequest(agent, new URL(`${shipUrl}/workspaces/b/hostile/activate`), 'POST');
  const hostile = await BenchTerminal.open(
    `${shipUrl.replace('http', 'ws')}/workspaces/b/hostile/terminal`,
    COLS,
    ROWS,
  );
  try {
    await hostile.until(() => /[$#] ?$/m.test(hostile.screen.text()));
    hostile.send({
      type: 'input',
      data: "exec 3< <(sleep 1000000); while :; do printf 'a\\033[100000000b\\033[1;40r\\033[100000000L\\033[2000000000b'; read -t 0.02 -u 3; done\r",
    });
    await sleep(500);
    for (const terminal of byMode.values()) terminal.send({ type: 'input', data: 'clear; cat\r' });
    await sleep(300);
    const echo = new Map<Mode, number[]>(MODES.map((mode) => [mode, []]));
    const routed: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        routed.push(
          await timedRequest(agent, new URL(`${shipUrl}/workspaces/b/t`), 'GET').then(
            (reply) => reply.ms,
            () => Infinity,
          ),
        );
        await sleep(10);
      }
    })();
    try {
      // Blocks of 20 markers, alternating between the modes: 200 each.
      for (let block = 0; block < 20; block++) {
        const mode = MODES[block % MODES.length]!;
        echo.get(mode)!.push(...(await typeMarkers(byMode.get(mode)!, (i) => i < 20, 20)));
      }
    } finally {
      polling = false;
      await poller;
    }
    for (const terminal of byMode.values()) terminal.send({ type: 'input', data: '\u0003' });
    return [
      ...MODES.map((mode) => ({
        name: `keystroke echo beside a workspace printing hostile CSI, p99 (${modeLabel(mode)})`,
        value: percentile(echo.get(mode)!, 99),
        unit: 'ms',
        absoluteLimit: 50,
      })),
      {
        name: 'ship GET /workspaces/:r/:n beside it, p99',
        value: percentile(routed, 99),
        unit: 'ms',
        absoluteLimit: 50,
      },
    ];
  } finally {
    await hostile.close();
    await timedRequest(agent, new URL(`${shipUrl}/workspaces/b/hostile/deactivate`), 'POST').catch(() => undefined);
    agent.destroy();
  }
}
