// Terminal benchmarks (issue: terminals). Throughput: `cat` of 4 MB and 16 MB of mixed text and ANSI colour
// in an attached 120×40 session until the client has reconstructed the final screen, against the same
// output in a bare tmux session polled with capture-pane, interleaved in the same run. Latency: single
// keys typed into `cat`, time until the echo is on the reconstructed screen.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeBenchRemote } from './lib/fixtures.js';
import { median, percentile, timedRequest } from './lib/load.js';
import { startShipProcess } from './lib/processes.js';
import { BenchTerminal } from './lib/terminal-client.js';
import { cpuMs, tmuxServerPid } from './lib/cpu.js';
import { tmuxSocketFor } from '../ship/server.js';
import { realpathSync } from 'node:fs';
import type { BenchRow } from './report.js';
import http from 'node:http';

const COLS = 120;
const ROWS = 40;

/** Mixed text and colour, ending with a unique marker line. */
function mixedOutput(bytes: number, marker: string): string {
  const words = ['alpha', 'beta', 'γάμμα', 'delta', '漢字', 'epsilon', 'zeta', 'eta', 'theta'];
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const colour = i % 3 === 0 ? `\x1b[3${i % 8}m` : i % 3 === 1 ? `\x1b[38;5;${i % 256}m` : `\x1b[38;2;${i % 256};${(i * 7) % 256};${(i * 13) % 256}m`;
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

const cpuSpent = { ship: 0, client: 0, tmux: 0 };

async function svcRun(terminal: BenchTerminal, file: string, marker: string, pids: { ship: number; tmux: number | null }): Promise<number> {
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
  let terminal: BenchTerminal | null = null;
  try {
    const create = await timedRequest(agent, new URL(`${ship.url}/workspaces`), 'POST', JSON.stringify({ url, repoName: 'b', name: 't', branch: 'main' }));
    if (create.status !== 201) throw new Error(`create answered ${create.status}`);
    await timedRequest(agent, new URL(`${ship.url}/workspaces/b/t/activate`), 'POST');
    terminal = await BenchTerminal.open(`${ship.url.replace('http', 'ws')}/workspaces/b/t/terminal`, COLS, ROWS);
    await terminal.until(() => /[$#] ?$/m.test(terminal!.screen.text()));
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'bare', '-x', String(COLS), '-y', String(ROWS), 'bash --noprofile --norc'], {
      env: { ...process.env, LANG: 'C.UTF-8' },
    });
    tmux(socket, 'set-option', '-g', 'status', 'off');

    const pids = { ship: ship.process.pid!, tmux: tmuxServerPid(tmuxSocketFor(realpathSync(join(root, 'fleet')))) };
    for (const megabytes of [4, 16]) {
      Object.assign(cpuSpent, { ship: 0, client: 0, tmux: 0 });
      const svcTimes: number[] = [];
      const bareTimes: number[] = [];
      for (let round = 0; round < (Number(process.env.SVC_BENCH_ROUNDS) || (megabytes === 4 ? 5 : 3)); round++) {
        const marker = `MARK-${megabytes}-${round}-${Date.now()}`;
        const file = join(root, `out-${megabytes}-${round}.txt`);
        await writeFile(file, mixedOutput(megabytes * 1024 * 1024, marker));
        if (round % 2 === 0) {
          svcTimes.push(await svcRun(terminal, file, marker, pids));
          bareTimes.push(await bareTmuxRun(socket, file, marker));
        } else {
          bareTimes.push(await bareTmuxRun(socket, file, marker));
          svcTimes.push(await svcRun(terminal, file, marker, pids));
        }
      }
      if (process.env.SVC_BENCH_VERBOSE) console.error(megabytes, 'MB svc', svcTimes.map(Math.round), 'bare', bareTimes.map(Math.round));
      if (process.env.SVC_BENCH_VERBOSE) {
        const cpu = Object.entries(cpuSpent).map(([who, ms]) => `${who} ${Math.round(ms / svcTimes.length)} ms`).join(', ');
        process.stderr.write(`${megabytes} MB: svc ${svcTimes.map(Math.round)} bare ${bareTimes.map(Math.round)}; CPU per svc run: ${cpu}\n`);
      }
      rows.push({
        name: `cat ${megabytes} MB in 120×40 to the reconstructed screen vs bare tmux`,
        value: median(svcTimes),
        reference: median(bareTimes),
        unit: 'ms',
        target: megabytes === 4 ? 1.25 : 1.1,
      });
    }

    // Keystroke latency: `cat` echoes each key (tty echo) on one line.
    terminal.send({ type: 'input', data: 'clear; cat\r' });
    await sleep(500);
    const latencies: number[] = [];
    const alphabet = 'abcdefghijklmnopqrstuvwxyz';
    for (let i = 0; i < 200; i++) {
      if (i > 0 && i % 100 === 0) {
        terminal.send({ type: 'input', data: '\r' });
        await sleep(100);
      }
      const key = alphabet[i % alphabet.length]!;
      const expected = Array.from({ length: (i % 100) + 1 }, (_, j) => alphabet[(i - (i % 100) + j) % alphabet.length]).join('');
      const started = performance.now();
      terminal.send({ type: 'input', data: key });
      await terminal.until(() => {
        const y = terminal!.screen.cursor.y;
        return terminal!.screen.rowText(y).trimEnd().endsWith(expected);
      }, 5000);
      latencies.push(performance.now() - started);
      await sleep(5);
    }
    terminal.send({ type: 'input', data: '\u0003' });
    rows.push({ name: 'keystroke echo into cat, p50', value: median(latencies), unit: 'ms', absoluteLimit: 3 });
    rows.push({ name: 'keystroke echo into cat, p99', value: percentile(latencies, 99), unit: 'ms', absoluteLimit: 10 });
    rows.push(...(await hostileNeighbour(ship.url, url, terminal)));
  } finally {
    terminal?.close();
    agent.destroy();
    try {
      tmux(socket, 'kill-server');
    } catch {
      // not started
    }
    await timedRequest(new http.Agent(), new URL(`${ship.url}/workspaces/b/t/deactivate`), 'POST').catch(() => undefined);
    await ship.stop();
    await rm(root, { recursive: true, force: true });
  }
  return rows;
}

/**
 * Security notes H11: a neighbouring workspace prints escape sequences with huge repeat counts (REP, IL and
 * a scroll region) 50 times a second while keys are typed here and the ship's status route is polled. The
 * emulator work they cause must not stall this terminal or the ship.
 */
async function hostileNeighbour(shipUrl: string, repoUrl: string, terminal: BenchTerminal): Promise<BenchRow[]> {
  const agent = new http.Agent({ keepAlive: true });
  await timedRequest(agent, new URL(`${shipUrl}/workspaces`), 'POST', JSON.stringify({ url: repoUrl, repoName: 'b', name: 'hostile', branch: 'main' }));
  await timedRequest(agent, new URL(`${shipUrl}/workspaces/b/hostile/activate`), 'POST');
  const hostile = await BenchTerminal.open(`${shipUrl.replace('http', 'ws')}/workspaces/b/hostile/terminal`, COLS, ROWS);
  try {
    await hostile.until(() => /[$#] ?$/m.test(hostile.screen.text()));
    hostile.send({
      type: 'input',
      data: "exec 3< <(sleep 1000000); while :; do printf 'a\\033[100000000b\\033[1;40r\\033[100000000L\\033[2000000000b'; read -t 0.02 -u 3; done\r",
    });
    await sleep(500);
    terminal.send({ type: 'input', data: 'clear; cat\r' });
    await sleep(300);
    const echo: number[] = [];
    const routed: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        routed.push(await timedRequest(agent, new URL(`${shipUrl}/workspaces/b/t`), 'GET').then((reply) => reply.ms, () => Infinity));
        await sleep(10);
      }
    })();
    try {
      for (let i = 0; i < 200; i++) {
        if (i > 0 && i % 20 === 0) {
          terminal.send({ type: 'input', data: '\r' });
          await sleep(50);
        }
        const marker = `k${i}z`;
        const started = performance.now();
        terminal.send({ type: 'input', data: marker });
        await terminal.until(() => terminal.screen.rowText(terminal.screen.cursor.y).includes(marker), 5000);
        echo.push(performance.now() - started);
        await sleep(5);
      }
    } finally {
      polling = false;
      await poller;
    }
    terminal.send({ type: 'input', data: '\u0003' });
    return [
      { name: 'keystroke echo beside a workspace printing hostile CSI, p99', value: percentile(echo, 99), unit: 'ms', absoluteLimit: 50 },
      { name: 'ship GET /workspaces/:r/:n beside it, p99', value: percentile(routed, 99), unit: 'ms', absoluteLimit: 50 },
    ];
  } finally {
    hostile.close();
    await timedRequest(agent, new URL(`${shipUrl}/workspaces/b/hostile/deactivate`), 'POST').catch(() => undefined);
    agent.destroy();
  }
}
