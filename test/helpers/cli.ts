// The built `svc` CLI as a real process: piped (no terminal) for scripted runs, or inside a pty for the
// commands that prompt, with helpers to wait for a prompt and answer it.
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { spawn as spawnPty, type IPty } from '@lydell/node-pty';
import { TEST_SESSION_COMMAND } from './ship.js';

export const CLI = resolve(import.meta.dirname, '../../bin/svc.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc <args>` with stdin a closed pipe (no terminal); resolves when it exits. */
export function runCli(args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 20_000, cwd?: string): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'], cwd });
    child.stdin.end();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} did not exit within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

export interface PtyCli {
  pty: IPty;
  output(): string;
  /** Waits until the output (since the start) matches `pattern`. */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<void>;
  /** Waits for `prompt`, then types `answer` and Enter. */
  answer(prompt: RegExp | string, answer: string): Promise<void>;
  exited: Promise<number>;
}

export function ptyCli(args: string[], env: Record<string, string | undefined> = {}, cwd?: string): PtyCli {
  const merged = Object.fromEntries(Object.entries({ ...process.env, LANG: 'C.UTF-8', ...env }).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const pty = spawnPty(process.execPath, [CLI, ...args], { name: 'xterm-256color', cols: 120, rows: 30, env: merged, cwd });
  let output = '';
  let consumed = 0;
  pty.onData((data) => (output += data));
  const exited = new Promise<number>((resolveExit) => pty.onExit(({ exitCode }) => resolveExit(exitCode)));
  let done = false;
  void exited.then(() => (done = true));
  const matches = (text: string, pattern: RegExp | string) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));
  const waitFor = async (pattern: RegExp | string, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!matches(output, pattern)) {
      if (done || Date.now() > deadline) throw new Error(`waited for ${String(pattern)}; the terminal showed:\n${output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    pty,
    output: () => output,
    waitFor,
    async answer(prompt, text) {
      const deadline = Date.now() + 15_000;
      // Only output after the previous answer counts, so two identical prompts are answered in turn.
      while (!matches(output.slice(consumed), prompt)) {
        if (done || Date.now() > deadline) throw new Error(`waited for ${String(prompt)}; the terminal showed:\n${output}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      consumed = output.length;
      pty.write(`${text}\r`);
    },
    exited,
  };
}

export interface RunningCli {
  child: ReturnType<typeof spawn>;
  output(): string;
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<void>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts a long-running `svc` command (launch, bridge) piped, stdout and stderr collected together. */
export function startCli(args: string[], env: Record<string, string | undefined> = {}, cwd?: string): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'], cwd });
  child.stdin.end();
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  const matches = (pattern: RegExp | string) => (typeof pattern === 'string' ? output.includes(pattern) : pattern.test(output));
  return {
    child,
    output: () => output,
    async waitFor(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!matches(pattern)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`waited for ${String(pattern)}; output:\n${output}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Whether a process with this PID still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `svc ship` as a process on `port` over `fleetDirectory`, with the test shell and no bridge token (unless
 * `env` says otherwise); resolves once it listens.
 */
export async function startShipCli(fleetDirectory: string, port: number, name: string, env: Record<string, string | undefined> = {}): Promise<RunningCli> {
  const ship = startCli(['ship', '--port', String(port), '--name', name, '--fleet-directory', fleetDirectory], {
    SVC_SESSION_COMMAND: TEST_SESSION_COMMAND,
    SVC_BRIDGE_TOKEN: '',
    ...env,
  });
  await ship.waitFor('ship listening');
  return ship;
}

/** Ends the private tmux server a ship process ran for `fleetDirectory` (the sessions outlive the ship by design). */
export async function killFleetTmux(fleetDirectory: string): Promise<void> {
  // Imported here: most users of these helpers drive the CLI and never load the ship's modules.
  const [{ Tmux }, { tmuxSocketFor }] = await Promise.all([import('../../ship/sessions/tmux.js'), import('../../ship/server.js')]);
  try {
    await new Tmux(tmuxSocketFor(realpathSync(fleetDirectory))).killServer();
  } catch {
    // never started, or already gone
  }
}
