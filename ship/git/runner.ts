// Runs git for the ship with the safety settings of DESIGN §12 on every call: repo config that would run
// code is neutralised (fsmonitor, hooks), prompts are off, LFS does not smudge, only the allowed transports
// work, and messages are in the C locale so failures can be classified. Exit codes are reported, not
// guessed: simple-git treats a non-zero exit with empty stderr as success (`rev-parse --verify --quiet`,
// `diff --quiet`), which is why the ship runs git through this small wrapper (docs/DECISIONS.md).
import { spawn } from 'node:child_process';
import { gitAllowProtocol, type CloneUrlPolicy } from '../../protocol/index.js';

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
/** Variables passed through from the ship's environment: locale-free basics and TLS trust, nothing secret. */
const PASS_THROUGH = /^(PATH|HOME|USER|LOGNAME|TMPDIR|SSH_AUTH_SOCK|GIT_SSL_CAINFO|GIT_SSL_CAPATH|GIT_SSH_COMMAND|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy)$/;

export class GitRunner {
  private readonly env: Record<string, string>;

  constructor(policy: CloneUrlPolicy, private readonly defaultTimeoutMs = 60_000) {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (value !== undefined && PASS_THROUGH.test(key)) env[key] = value;
    }
    Object.assign(env, {
      LC_ALL: 'C',
      LANG: 'C',
      GIT_TERMINAL_PROMPT: '0',
      GIT_LFS_SKIP_SMUDGE: '1',
      GIT_ALLOW_PROTOCOL: gitAllowProtocol(policy),
      GIT_OPTIONAL_LOCKS: '0',
      GIT_CONFIG_NOSYSTEM: '1',
    });
    this.env = env;
  }

  /** Runs git; never rejects for a non-zero exit (read `code`). Rejects only when git cannot be started. */
  run(args: readonly string[], options: GitCallOptions = {}): Promise<GitResult> {
    return new Promise((resolve, reject) => {
      const child = spawn('git', [...SAFETY_CONFIG, ...args], {
        cwd: options.cwd,
        env: options.env ? { ...this.env, ...options.env } : this.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, options.timeoutMs ?? this.defaultTimeoutMs);
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        const stderr = Buffer.concat(err).toString('utf8');
        resolve({
          code: timedOut ? 124 : (code ?? 128),
          stdout: Buffer.concat(out),
          stderr: timedOut ? `git ${args[0] ?? ''} timed out after ${options.timeoutMs ?? this.defaultTimeoutMs} ms\n${stderr}` : stderr,
        });
      });
    });
  }
}
