// The built `svc` CLI as a real process: piped (no terminal) for scripted runs, or inside a pty for the
// commands that prompt, with helpers to wait for a prompt and answer it.
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { spawn as spawnPty, type IPty } from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { untilOutput } from './output-wait.js';
import { TEST_SESSION_COMMAND } from './ship.js';

const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = resolve(ROOT, 'bin/svc.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc <args>` with stdin a closed pipe (no terminal); resolves when it exits. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 20_000,
  cwd?: string,
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      cwd,
    });
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
  /**
   * Types `answer` and Enter the instant `prompt` appears (inside the pty's data callback, in the same
   * chunk that shows it), as a paste, a password manager or a script would: a prompt that is not reading
   * yet when its text is shown loses the answer and the test sees the hang. Only output after the previous
   * answer counts, so two identical prompts are answered in turn.
   */
  answer(prompt: RegExp | string, answer: string): Promise<void>;
  /** The screen as a person sees it: the output played through a headless xterm, lines right-trimmed. */
  screen(): Promise<string>;
  exited: Promise<number>;
}

/** What `bytes` written to a terminal of this size show: its lines (a wrapped one joined), right-trimmed, blank ones at the end dropped. */
export async function screenOf(bytes: string, cols = 120, rows = 30): Promise<string> {
  const view = new xterm.Terminal({ cols, rows, allowProposedApi: true });
  try {
    await new Promise<void>((resolveWrite) => view.write(bytes, resolveWrite));
    const lines: string[] = [];
    for (let y = 0; y < view.buffer.active.length; y++) {
      const line = view.buffer.active.getLine(y);
      const text = line?.translateToString(true) ?? '';
      // A line longer than the terminal continues on the next row: one line, as the program wrote it.
      if (line?.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    for (let i = 0; i < lines.length; i++) lines[i] = lines[i]!.trimEnd();
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    return lines.join('\n');
  } finally {
    view.dispose();
  }
}

/**
 * `svc <args>` in a pty. `npx: true` starts it the way users do, `npx --no-install svc …` resolved from this
 * checkout whatever `cwd` is (npm's own notices then come first on the screen).
 */
export function ptyCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  cwd?: string,
  options: { npx?: boolean } = {},
): PtyCli {
  const merged = Object.fromEntries(
    Object.entries({ ...process.env, LANG: 'C.UTF-8', ...env }).filter(([, v]) => v !== undefined),
  ) as Record<string, string>;
  const [file, argv] = options.npx
    ? ['npx', ['--prefix', ROOT, '--no-install', 'svc', ...args]]
    : [process.execPath, [CLI, ...args]];
  const pty = spawnPty(file, argv, { name: 'xterm-256color', cols: 120, rows: 30, env: merged, cwd });
  const matches = (text: string, pattern: RegExp | string) =>
    typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
  let output = '';
  let consumed = 0;
  // The one pending answer: checked on every chunk, written from the callback that delivered the prompt.
  let pending: { prompt: RegExp | string; text: string; resolve: () => void } | null = null;
  const tryAnswer = () => {
    if (!pending || !matches(output.slice(consumed), pending.prompt)) return;
    const { text, resolve: answered } = pending;
    pending = null;
    consumed = output.length;
    pty.write(`${text}\r`);
    answered();
  };
  pty.onData((data) => {
    output += data;
    tryAnswer();
  });
  const exited = new Promise<number>((resolveExit) => pty.onExit(({ exitCode }) => resolveExit(exitCode)));
  let done = false;
  void exited.then(() => (done = true));
  const waitFor = async (pattern: RegExp | string, timeoutMs = 15_000) => {
    await untilOutput(
      () => output,
      () => done,
      pattern,
      timeoutMs,
      'the terminal showed:',
    );
  };
  return {
    pty,
    output: () => output,
    waitFor,
    screen: () => screenOf(output),
    answer(prompt, text) {
      return new Promise<void>((resolveAnswer, reject) => {
        const fail = () => {
          if (pending !== entry) return;
          pending = null;
          clearTimeout(timer);
          reject(new Error(`waited for ${String(prompt)}; the terminal showed:\n${output}`));
        };
        const timer = setTimeout(fail, 45_000); // a first launch prepares its store before the first prompt
        const entry = {
          prompt,
          text,
          resolve: () => {
            clearTimeout(timer);
            resolveAnswer();
          },
        };
        pending = entry;
        void exited.then(fail);
        tryAnswer(); // already on the screen (it came with the chunk that carried the previous prompt)
      });
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
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    cwd,
  });
  child.stdin.end();
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  return {
    child,
    output: () => output,
    async waitFor(pattern, timeoutMs = 30_000) {
      await untilOutput(
        () => output,
        () => child.exitCode !== null,
        pattern,
        timeoutMs,
      );
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
export async function startShipCli(
  fleetDirectory: string,
  port: number,
  name: string,
  env: Record<string, string | undefined> = {},
): Promise<RunningCli> {
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
  const [{ Tmux }, { tmuxSocketFor }] = await Promise.all([
    import('../../ship/sessions/tmux.js'),
    import('../../ship/server.js'),
  ]);
  try {
    await new Tmux(tmuxSocketFor(realpathSync(fleetDirectory))).killServer();
  } catch {
    // never started, or already gone
  }
}
