// Runs git for the ship with the safety settings of DESIGN §12 on every call: repo config that would run
// code is neutralised (fsmonitor, hooks), prompts are off, LFS does not smudge, only the allowed transports
// work, and messages are in the C locale so failures can be classified. Exit codes are reported, not
// guessed: simple-git treats a non-zero exit with empty stderr as success (`rev-parse --verify --quiet`,
// `diff --quiet`), which is why the ship runs git through this small wrapper (docs/DECISIONS.md).
// Each git runs in its own process group (and session, so it has no terminal to prompt on): a timeout or
// the ship's shutdown ends git together with every helper it started (index-pack, upload-pack, remote
// helpers), which would otherwise go on writing into a directory being removed (and a ship killed outright
// leaves a group its next start can find: processes/leftover-processes.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { gitEnvironment, type CloneUrlPolicy } from '../../protocol/index.js';
import { FilterDriverGuard } from './filter-drivers.js';

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export interface GitCallOptions {
  cwd?: string;
  /** Kill git after this long (default: the runner's). */
  timeoutMs?: number;
  /** Extra environment for this call (e.g. GIT_INDEX_FILE). */
  env?: Record<string, string>;
}

const SAFETY_CONFIG = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'credential.interactive=never'];

/** Ends a git's whole process group; a group already gone is fine. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

export class GitRunner {
  private readonly env: Record<string, string>;
  private readonly running = new Set<ChildProcess>();
  private readonly drivers = new FilterDriverGuard((args, cwd) => this.spawnGit([], args, { cwd }));

  constructor(policy: CloneUrlPolicy, private readonly defaultTimeoutMs = 60_000) {
    // Optional locks off: the ship's reads never contend with the user's own git in the workspace.
    this.env = { ...gitEnvironment(process.env, policy), GIT_OPTIONAL_LOCKS: '0' };
  }

  /**
   * Runs git; never rejects for a non-zero exit (read `code`). Rejects only when git cannot be started. In a
   * workspace (`cwd`), the filter drivers its own config defines are switched off (filter-drivers.ts).
   */
  async run(args: readonly string[], options: GitCallOptions = {}): Promise<GitResult> {
    const overrides = options.cwd ? await this.drivers.overridesFor(options.cwd) : [];
    return this.spawnGit(overrides, args, options);
  }

  /** One git process: the safety settings, then `config` (more `-c` settings), then `args`. */
  private spawnGit(config: readonly string[], args: readonly string[], options: GitCallOptions): Promise<GitResult> {
    return new Promise((resolve, reject) => {
      const child = spawn('git', [...SAFETY_CONFIG, ...config, ...args], {
        cwd: options.cwd,
        env: options.env ? { ...this.env, ...options.env } : this.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      this.running.add(child);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child);
      }, options.timeoutMs ?? this.defaultTimeoutMs);
      // Listen for a failed start before touching stdio: out of descriptors (EMFILE) Node reports it here and
      // leaves the child without stdio, so reading stdout first would throw and leave the error unhandled.
      child.on('error', (error) => {
        clearTimeout(timer);
        this.running.delete(child);
        reject(error);
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('close', (code) => {
        clearTimeout(timer);
        this.running.delete(child);
        const stderr = Buffer.concat(err).toString('utf8');
        resolve({
          code: timedOut ? 124 : (code ?? 128),
          stdout: Buffer.concat(out),
          stderr: timedOut ? `git ${args[0] ?? ''} timed out after ${options.timeoutMs ?? this.defaultTimeoutMs} ms\n${stderr}` : stderr,
        });
      });
    });
  }

  /** Ends every git still running, with its helpers (the ship is shutting down). */
  stopAll(): void {
    for (const child of this.running) killGroup(child);
    this.running.clear();
  }
}
