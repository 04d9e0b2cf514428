// `svc` started the way users start it: `npx --no-install svc …` from the checkout, as the leader of its own
// process group, so a test can stop it the way supervisors and crashes do: SIGTERM to the group, SIGKILL to
// the group once the `npm exec` leader has gone (a grace period that ran out), or SIGKILL alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { signalGroupOf } from './process-group.js';
import { untilOutput } from './output-wait.js';
import { TEST_SESSION_COMMAND } from './ship.js';

const ROOT = resolve(import.meta.dirname, '../..');

export interface NpxProcess {
  /** The `npm exec` leader of the group. */
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
  /** Resolves with the leader's exit code (null after a signal). */
  exited: Promise<number | null>;
  signalGroup(signal: NodeJS.Signals): void;
  /** SIGTERM to the group; once the leader exits, SIGKILL to whatever of the group is left. */
  terminateThenKill(graceMs?: number): Promise<void>;
}

/**
 * `npx --no-install svc <args>` as the leader of its own process group; in `container` (helpers/container.ts)
 * when given: the shell that execs npx joins it first, so every process svc starts is in it.
 */
export function startNpx(
  args: string[],
  env: Record<string, string | undefined> = {},
  container?: { procs: string },
): NpxProcess {
  const argv = ['--no-install', 'svc', ...args];
  const [command, commandArgs] = container
    ? ['sh', ['-c', 'echo $$ > "$0" && exec npx "$@"', container.procs, ...argv]]
    : ['npx', argv];
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    env: { ...process.env, SVC_SESSION_COMMAND: TEST_SESSION_COMMAND, SVC_BRIDGE_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  const signalGroup = (signal: NodeJS.Signals) => void signalGroupOf(child, signal);
  return {
    child,
    output: () => output,
    exited,
    signalGroup,
    waitFor(pattern, timeoutMs = 30_000) {
      const ended = () => child.exitCode !== null || child.signalCode !== null;
      return untilOutput(() => output, ended, pattern, timeoutMs);
    },
    /** SIGTERM to the group; SIGKILL to what is left once the leader exited or `graceMs` passed, as a supervisor does. */
    async terminateThenKill(graceMs = 10_000) {
      signalGroup('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      signalGroup('SIGKILL');
      await exited;
    },
  };
}

export interface NpxRun {
  code: number | null;
  stdout: string;
  /** Without npm's own `npm warn …` lines (notices about the machine's npmrc are not svc's output). */
  stderr: string;
}

/** `npx --no-install svc <args>` to completion, stdin a pipe fed `stdin` (no terminal), stdout and stderr apart. */
export function runNpx(
  args: string[],
  env: Record<string, string | undefined> = {},
  stdin = '',
  timeoutMs = 40_000,
): Promise<NpxRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('npx', ['--no-install', 'svc', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin!.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`npx svc ${args.join(' ')} did not exit; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr: stderr.replace(/^npm warn .*\n/gm, '') });
    });
  });
}

/** The URL a `svc bridge` process logged it listens on. */
export function bridgeUrlIn(output: string): string {
  const match = /bridge listening on (http:\/\/[^\s"]+)/.exec(output);
  if (!match) throw new Error(`no "bridge listening on" in:\n${output}`);
  return match[1]!;
}

/** Pids of live (not zombie) processes whose command line contains every one of `parts`. */
export function processesMatching(...parts: string[]): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state !== 'Z' && parts.every((part) => cmdline.includes(part))) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
