// Runs git for the ship with the safety settings of docs/security.md §2 on every call: repo config that would run
// code is neutralised (fsmonitor, hooks), prompts are off, LFS does not smudge, only the allowed transports
// work, and messages are in the C locale so failures can be classified. Exit codes are reported, not
// guessed: simple-git treats a non-zero exit with empty stderr as success (`rev-parse --verify --quiet`,
// `diff --quiet`), which is why the ship runs git through this small wrapper (docs/DECISIONS.md).
// Each git runs in its own process group (and session, so it has no terminal to prompt on): a timeout or
// the ship's shutdown ends git together with every helper it started (index-pack, upload-pack, remote
// helpers), which would otherwise go on writing into a directory being removed (and a ship killed outright
// leaves a group its next start can find: processes/leftover-processes.ts). The processes themselves are
// started by a `Spawner`: in the ship, the spawn helper, so no fork stalls the ship's event loop.
// With a session user (`--session-user`), git in a workspace runs as that user (`runAs`): the workspace is
// theirs, so git's ownership check passes and what git writes stays theirs, and a hostile repo config runs
// nothing as the ship (docs/security.md H24). The user's HOME replaces the ship's, which they cannot read.
import { setMaxListeners } from 'node:events';
import { gitEnvironment, type CloneUrlPolicy } from '../../protocol/index.js';
import { DirectSpawner, type Spawner } from '../processes/spawner.js';
import { FilterDriverGuard } from './filter-drivers.js';

/** Who runs git in a directory: a user, or the ship itself (undefined). */
export type GitIdentity = (cwd: string) => { uid: number; gid: number; home: string } | undefined;

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

/** The git command of `args` (`clone`), past any leading `-c key=value`: how messages name the call. */
function subcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-c') i++;
    else return args[i]!;
  }
  return '';
}

/** A stop signal every running git listens to: one listener per git, so no listener limit applies. */
function stopSignal(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

const SAFETY_CONFIG = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'credential.interactive=never',
];

export class GitRunner {
  private readonly env: Record<string, string>;
  /** Aborted by stopAll (and replaced): every git started before it is killed. */
  private stopping = stopSignal();
  private readonly drivers = new FilterDriverGuard((args, cwd) => this.spawnGit([], args, { cwd }));

  constructor(
    policy: CloneUrlPolicy,
    private readonly spawner: Spawner = new DirectSpawner(),
    private readonly defaultTimeoutMs = 60_000,
    private readonly runAs: GitIdentity = () => undefined,
  ) {
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
  private async spawnGit(
    config: readonly string[],
    args: readonly string[],
    options: GitCallOptions,
  ): Promise<GitResult> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const user = options.cwd ? this.runAs(options.cwd) : undefined;
    const env = { ...this.env, ...options.env, ...(user ? { HOME: user.home } : {}) };
    const result = await this.spawner.run(
      {
        command: 'git',
        args: [...SAFETY_CONFIG, ...config, ...args],
        cwd: options.cwd,
        env,
        detached: true,
        uid: user?.uid,
        gid: user?.gid,
        timeoutMs,
        what: `git ${subcommand(args)}`,
      },
      this.stopping.signal,
    );
    const stderr = result.stderr.toString('utf8');
    return {
      code: result.timedOut ? 124 : (result.code ?? 128),
      stdout: result.stdout,
      stderr: result.timedOut ? `git ${subcommand(args)} timed out after ${timeoutMs} ms\n${stderr}` : stderr,
    };
  }

  /** Ends every git still running, with its helpers (the ship is shutting down). */
  stopAll(): void {
    this.stopping.abort();
    this.stopping = stopSignal();
  }
}
