// Child processes for benchmarks: a real `svc ship` and the bare reference server, each in its own process so
// the load generator never shares their event loop.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmuxSocketFor } from '../../ship/server.js';

const ROOT = resolve(import.meta.dirname, '../../..');

export interface Child {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Extra node flags and environment for one child (the soak preloads its event-loop probe this way). */
export interface ChildOptions {
  nodeArgs?: string[];
  env?: Record<string, string>;
}

/** SVC_BENCH_SHIP_NODE_ARGS / SVC_BENCH_BRIDGE_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profile a run by hand. */
const nodeArgsFrom = (variable: string) => (process.env[variable] ?? '').split(' ').filter(Boolean);

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolveStop) => {
      if (child.exitCode !== null) return resolveStop();
      child.once('exit', () => resolveStop());
      child.kill('SIGTERM');
    });
}

const BENCH_ADMIN = { username: 'bench', email: 'bench@example.com', password: 'bench-password-1' };

/** A bridge with authentication on (its first admin from the environment) and that admin's session token. */
export async function startBridgeProcess(
  dataDirectory: string,
  port: number,
  options: ChildOptions = {},
): Promise<Child & { token: string }> {
  const nodeArgs = [...nodeArgsFrom('SVC_BENCH_BRIDGE_NODE_ARGS'), ...(options.nodeArgs ?? [])];
  const child = spawn(
    process.execPath,
    [...nodeArgs, join(ROOT, 'bin/svc.js'), 'bridge', '--port', String(port), '--data-directory', dataDirectory],
    {
      env: {
        ...process.env,
        SVC_LOG_LEVEL: 'warn',
        SVC_BRIDGE_ADMIN_USER: BENCH_ADMIN.username,
        SVC_BRIDGE_ADMIN_EMAIL: BENCH_ADMIN.email,
        SVC_BRIDGE_ADMIN_PASSWORD: BENCH_ADMIN.password,
        ...options.env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 400; i++) {
    try {
      const login = await fetch(`${url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: BENCH_ADMIN.username, password: BENCH_ADMIN.password }),
      });
      if (login.ok)
        return { process: child, url, token: ((await login.json()) as { token: string }).token, stop: stopper(child) };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`svc bridge exited with ${child.exitCode}`);
    await sleep(50);
  }
  throw new Error('svc bridge did not start');
}

/** Resident set size of a process in bytes (Linux). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** RSS once it has stopped moving (within 1 MiB over a second): a start-up's memory settles first. */
export async function settledRss(pid: number): Promise<number> {
  let previous = rssBytes(pid);
  for (let i = 0; i < 30; i++) {
    await sleep(1000);
    const current = rssBytes(pid);
    if (Math.abs(current - previous) < 2 ** 20) return current;
    previous = current;
  }
  return previous;
}

export async function startShipProcess(
  fleetDirectory: string,
  name = 'bench',
  options: ChildOptions = {},
): Promise<Child> {
  const nodeArgs = [...nodeArgsFrom('SVC_BENCH_SHIP_NODE_ARGS'), ...(options.nodeArgs ?? [])];
  const child = spawn(
    process.execPath,
    [...nodeArgs, join(ROOT, 'bin/svc.js'), 'ship', '--port', '0', '--name', name, '--fleet-directory', fleetDirectory],
    {
      env: {
        ...process.env,
        SVC_LOG_LEVEL: 'warn',
        SVC_BRIDGE_TOKEN: '',
        SVC_SESSION_COMMAND: 'bash --noprofile --norc',
        ...options.env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const discovery = join(fleetDirectory, 'atlas.json');
  for (let i = 0; i < 200; i++) {
    if (existsSync(discovery)) {
      const { port } = JSON.parse(readFileSync(discovery, 'utf8')) as { port: number };
      if (port) return { process: child, url: `http://127.0.0.1:${port}`, stop: stopper(child) };
    }
    if (child.exitCode !== null) throw new Error(`svc ship exited with ${child.exitCode}`);
    await sleep(50);
  }
  throw new Error('svc ship did not write its discovery file');
}

/** Starts a small helper server script that prints its port on stdout once listening. */
async function startPortReporter(script: string, argument: string, what: string): Promise<Child> {
  const child = spawn(process.execPath, [join(ROOT, script), argument], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolvePort, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolvePort(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
  return { process: child, url: `http://127.0.0.1:${port}`, stop: stopper(child) };
}

/** The HTTP reference: a bare node:http server answering `bodyFile`'s bytes (bench/lib/bare-server.ts). */
export const startBareServer = (bodyFile: string) =>
  startPortReporter('dist/bench/lib/bare-server.js', bodyFile, 'bare server');

/** A ship that forks git and tmux on its own main thread, as before the spawn helper (bench/lib/direct-spawn-ship.ts). */
export const startDirectSpawnShip = (fleetDirectory: string) =>
  startPortReporter('dist/bench/lib/direct-spawn-ship.js', fleetDirectory, 'direct-spawn ship');

/** The routing floor: a minimal fastify pass-through to `upstream` in its own process (bench/lib/bare-proxy.ts). */
export const startBareProxy = (upstream: string) =>
  startPortReporter('dist/bench/lib/bare-proxy.js', upstream, 'bare proxy');

/** The bare repositories of `directory` served as a forge across a network would (bench/lib/slow-forge.ts). */
export const startSlowForge = (directory: string) =>
  startPortReporter('dist/bench/lib/slow-forge.js', directory, 'slow forge');

/** Ends the tmux server a bench ship ran for `fleetDirectory`: its sessions outlive the ship by design. */
export function endFleetTmux(fleetDirectory: string): void {
  try {
    execFileSync('tmux', ['-L', tmuxSocketFor(fleetDirectory), 'kill-server'], { stdio: 'ignore' });
  } catch {
    // never started, or already gone
  }
}
