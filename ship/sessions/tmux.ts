// The ship's private tmux server (`-L <socket>`), never the user's. Owns starting it from a scrubbed
// environment (so no ship secret reaches a pane: docs/security.md F5), the keeper session that keeps it and
// its watcher alive, and the few commands the ship needs. With a session holder (session-holder.ts, on a
// cluster) the server belongs to the holder: every command carries `-N` so none ever starts a server in
// the ship, the ship waits for the holder's, never kills it, and leaves reaping a pane's processes to it
// (their pids live in the holder's PID namespace, not the ship's). Session names are always hashes made by
// session-names.ts and every target is exact (`=name`): no user string ever becomes a tmux argument (F3, F4).
// Commands run to their end through a `Spawner` (in the ship, the spawn helper: no fork on the ship's event
// loop); only the long-lived watcher client is the ship's own child. With a session user (session-user.ts)
// the client that starts the server runs as that user, so the server and every pane do (docs/security.md
// H24); the ship's own clients reach it by the socket's path (`-S`), as tmux admits root and the owner.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DirectSpawner, type Spawner } from '../processes/spawner.js';
import { terminateSessions } from './process-reaper.js';
import { ensureSocketDirectory, tmuxSocketArgs, userEnvironment, type SessionUser } from './session-user.js';

/** What tmux says when the session to create already exists (another activation, or the keeper, got there first). */
export const DUPLICATE_SESSION = /duplicate session/;
/** What tmux says when the target session (or its whole server) is gone. */
const NO_SESSION = /can't find|no such session|no server running/i;

/**
 * A tmux command that exited non-zero, classified here, where tmux's words are known: `duplicate-session`
 * when the session to create already exists (a race with another activation), `no-session` when the session
 * it targets (or the server) is gone (it ended meanwhile), else `failed`.
 */
export class TmuxCommandFailed extends Error {
  readonly kind: 'duplicate-session' | 'no-session' | 'failed';

  constructor(command: string, code: number, stderr: string) {
    super(`tmux ${command} failed: ${stderr.trim() || `exit code ${code}`}`);
    this.kind = DUPLICATE_SESSION.test(stderr)
      ? 'duplicate-session'
      : NO_SESSION.test(stderr)
        ? 'no-session'
        : 'failed';
  }
}

export const KEEPER_SESSION = 'svc-control';

/** Names of the variables tmux copies from a creating client into its new session (per-session secrets). */
export const SESSION_VARIABLES = ['SVC_MCP_TOKEN', 'SVC_SHIP_URL', 'SVC_WORKSPACE'] as const;

const BASE_VARIABLES = ['HOME', 'PATH', 'SHELL', 'USER', 'LOGNAME', 'TMUX_TMPDIR', 'TMPDIR', 'TZ'];

interface TmuxResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment every tmux client of the ship runs with: the basics, a UTF-8 locale, and no SVC_* secret. */
export function scrubbedEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of BASE_VARIABLES) {
    const value = source[key];
    if (value) env[key] = value;
  }
  const locale = source.LC_ALL || source.LANG || '';
  env.LANG = /utf-?8/i.test(locale) ? locale : 'C.UTF-8';
  env.TERM = 'xterm-256color';
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  return env;
}

/** A path tmux may be handed: no `#` (formats), quote, space or control character. */
const SAFE_PATH = /^[A-Za-z0-9/._+-]+$/;

/** A server option saying the ship's server options are set (once per server). */
const SERVER_OPTIONS_SET = '@svc_options';

const exitOption = (session: string) => `@svc_exit_${session.replace(/[^A-Za-z0-9]/g, '_')}`;

export interface TmuxOptions {
  /** The server is a session holder's (`svc session-holder`): never start, kill or reap it from here. */
  holder?: boolean;
  /** How long a ship waits for the holder's server before it gives up (ms). */
  holderWaitMs?: number;
  /** A shell command each new session runs before its own (the agent's MCP wiring: agent-wiring.ts). */
  prelude?: string;
  /** The server and its sessions run as this user (`--session-user`); none: as the ship. */
  user?: SessionUser;
}

/** What tmux says when no server listens on the socket (with `-N`, or a command that does not start one). */
const NO_SERVER = /no server running|error connecting to|server exited unexpectedly/;

export class Tmux {
  private readonly env = scrubbedEnvironment();
  private watcher: ChildProcessWithoutNullStreams | null = null;

  /** What a session's pane runs; its exit status is recorded for the terminal's `exit` frame. */
  private readonly paneCommand: string;

  /** What every session receives beyond its own variables (SVC_SESSION_ENV: sessions/session-env.ts). */
  private readonly sharedVariables: Record<string, string>;

  /**
   * @param sessionCommand what a new session runs instead of the user's login shell, e.g.
   *   `bash --noprofile --norc`; none: `$SHELL -l`.
   * @param sharedVariables variables every session receives, as the ship's operator named them.
   */
  constructor(
    readonly socketName: string,
    sessionCommand?: string,
    private readonly spawner: Spawner = new DirectSpawner(),
    sharedVariables: Record<string, string> = {},
    private readonly options: TmuxOptions = {},
  ) {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${SHELL:-/bin/sh} is for the pane's shell to expand
    const command = sessionCommand?.trim().replace(/^exec\s+/, '') || '"${SHELL:-/bin/sh}" -l';
    this.paneCommand = options.prelude ? `${options.prelude}; ${command}` : command;
    this.sharedVariables = { ...sharedVariables };
  }

  /** Whether the server belongs to a session holder. */
  get holder(): boolean {
    return this.options.holder === true;
  }

  /** The arguments every tmux client of this server starts with. */
  private get socketArgs(): string[] {
    return [...tmuxSocketArgs(this.socketName, this.options.user), ...(this.holder ? ['-N'] : [])];
  }

  /** Every variable a session takes from the client that creates or attaches it. */
  private get sessionVariableNames(): string[] {
    return [...SESSION_VARIABLES, ...Object.keys(this.sharedVariables)];
  }

  /** The environment for tmux clients of this server (attach clients add a session's variables). */
  get clientEnvironment(): Record<string, string> {
    return { ...this.env };
  }

  async run(
    args: readonly string[],
    options: { cwd?: string; env?: Record<string, string>; asUser?: boolean } = {},
  ): Promise<TmuxResult> {
    const user = options.asUser ? this.options.user : undefined;
    const base = userEnvironment(this.env, user);
    const request = {
      command: 'tmux',
      args: [...this.socketArgs, ...args],
      cwd: options.cwd,
      env: options.env ? { ...base, ...options.env } : base,
      detached: false,
      what: `tmux ${args[0] === '-f' ? args[2] : args[0]}`,
      uid: user?.uid,
      gid: user?.gid,
    };
    const result = await this.spawner.run(request).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'ENOENT'
        ? new Error('tmux was not found on PATH: the ship needs tmux (e.g. `apt-get install tmux`)')
        : error;
    });
    return { code: result.code ?? 1, stdout: result.stdout.toString('utf8'), stderr: result.stderr.toString('utf8') };
  }

  private async ok(args: readonly string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<string> {
    const result = await this.run(args, options);
    if (result.code !== 0) throw new TmuxCommandFailed(args[0]!, result.code, result.stderr);
    return result.stdout;
  }

  /**
   * Starts the server if it is not running, with the keeper session that keeps it alive, and applies the
   * ship's server options. Idempotent; an existing server (from an earlier ship run) is adopted as it is.
   */
  ensureServer(): Promise<void> {
    // Single flight: a caller arriving while another starts the server must wait for its options too
    // (a session created before `update-environment` is set would miss its MCP token).
    this.starting ??= this.startServer().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private starting: Promise<void> | null = null;

  /** Set when the ship stops: a wait for the holder's server ends at its next try. */
  private stopped = false;

  /** The ship is stopping: give up waiting for a holder's server (commands still run). */
  stopWaiting(): void {
    this.stopped = true;
  }

  private async startServer(): Promise<void> {
    const keeper = await this.run(['has-session', '-t', `=${KEEPER_SESSION}`]);
    if (keeper.code !== 0) await this.startKeeper();
    // Every run's list of session variables, on a new server or an adopted one (an earlier ship run's).
    await this.ok(['set-option', '-g', 'update-environment', this.sessionVariableNames.join(' ')]);
    // The rest once per server (a holder's server is new to the first ship that meets it): the marker keeps
    // an adopted server's appended terminal features from growing with every ship start.
    if ((await this.run(['show-options', '-gqv', SERVER_OPTIONS_SET])).stdout.trim() === '1') return;
    await this.ok(['set-option', '-g', 'status', 'off']);
    await this.ok(['set-option', '-g', 'escape-time', '10']);
    // tmux's own default, said explicitly. Nothing of svc reads tmux's history (terminals show the screen);
    // only someone attaching to this server sees it, and a longer history costs tmux CPU on a flood
    // (bench/RESULTS.md).
    await this.ok(['set-option', '-g', 'history-limit', '2000']);
    await this.ok(['set-option', '-g', 'default-terminal', 'tmux-256color']);
    // The attached client's terminal (our pty, TERM=xterm-256color) renders everything the emulator
    // understands: without these, tmux would downgrade truecolor to the 256 palette and drop styles.
    await this.ok([
      'set-option',
      '-as',
      'terminal-features',
      ',xterm-256color:RGB:usstyle:strikethrough:overline:cstyle',
    ]);
    // Pane commands are written in POSIX sh (the exit-status wrapper), whatever the user's shell is.
    await this.ok(['set-option', '-g', 'default-shell', '/bin/sh']);
    await this.ok(['set-option', '-g', SERVER_OPTIONS_SET, '1']);
  }

  /**
   * Creates the keeper session, which starts the server when the ship owns it. A holder's server is waited
   * for (its pod may start after the ship's) until `holderWaitMs`, then the ship says what is missing.
   */
  private async startKeeper(): Promise<void> {
    if (this.options.user && !this.holder) await ensureSocketDirectory(this.options.user);
    // The client that may start the server runs as the session user: the server it forks, and every pane, do too.
    const startKeeper = () =>
      this.run(
        ['-f', '/dev/null', 'new-session', '-d', '-s', KEEPER_SESSION, '-x', '20', '-y', '5', 'exec tail -f /dev/null'],
        { cwd: '/', asUser: true },
      );
    let started = await startKeeper();
    const holderDeadline = Date.now() + (this.options.holderWaitMs ?? 60_000);
    // A server that was just killed can still hold the socket for a moment; a client that meets it then is
    // told "server exited unexpectedly" (docs/security.md X8). It is gone a moment later: try again.
    for (let attempt = 1; started.code !== 0 && NO_SERVER.test(started.stderr); attempt++) {
      if (this.holder ? Date.now() > holderDeadline || this.stopped : attempt > 5) break;
      await sleep(this.holder ? 250 : 50 * attempt);
      started = await startKeeper();
    }
    if (started.code !== 0 && !DUPLICATE_SESSION.test(started.stderr)) {
      if (this.holder && NO_SERVER.test(started.stderr)) {
        throw new Error(
          `the session holder is not running: no tmux server on socket ${this.socketName} (start \`svc session-holder\` with the same fleet directory)`,
        );
      }
      throw new Error(`tmux could not start its server: ${started.stderr.trim()}`);
    }
  }

  /** Names of the live sessions; an absent server means none. */
  async listSessions(): Promise<Set<string>> {
    const result = await this.run(['list-sessions', '-F', '#{session_name}']);
    if (result.code !== 0) return new Set();
    return new Set(result.stdout.split('\n').filter((line) => line !== ''));
  }

  /**
   * Creates a detached session whose shell starts in `cwd`. Per-session variables travel only in the
   * creating client's environment (never argv: /proc/<pid>/cmdline is world-readable) and reach the
   * session through `update-environment`.
   */
  async newSession(name: string, cwd: string, variables: Record<string, string>): Promise<void> {
    // The pane runs the shell, then records its exit status in a server option the terminal reads. The
    // session name is a hash (session-names.ts), so nothing user-controlled enters this command.
    const command = `${this.paneCommand}; tmux set-option -gq ${exitOption(name)} "$?"`;
    await this.ok(['new-session', '-d', '-s', name, '-x', '120', '-y', '40', command], {
      cwd,
      env: { ...this.sharedVariables, ...variables },
    });
  }

  /** The exit status the session's shell recorded (and forget it), or null when it recorded none. */
  async takeExitStatus(name: string): Promise<number | null> {
    const result = await this.run(['show-options', '-gqv', exitOption(name)]);
    const value = result.stdout.trim();
    if (value === '') return null;
    await this.run(['set-option', '-gqu', exitOption(name)]);
    const code = Number(value);
    return Number.isInteger(code) ? code : null;
  }

  /** A session's variables (SESSION_VARIABLES and the shared ones) as tmux holds them, for attach clients. */
  async sessionVariables(name: string): Promise<Record<string, string>> {
    const result = await this.run(['show-environment', '-t', `=${name}`]);
    const variables: Record<string, string> = {};
    if (result.code !== 0) return variables;
    for (const line of result.stdout.split('\n')) {
      const equals = line.indexOf('=');
      const key = line.slice(0, equals);
      if (equals > 0 && this.sessionVariableNames.includes(key)) variables[key] = line.slice(equals + 1);
    }
    return variables;
  }

  /**
   * argv for a control-mode client attached to one session, for the terminal's commands. `no-output` is set
   * at attach (not by a later refresh-client, which can race the attach): the terminal reads the pane
   * through pipe-pane, and escaped `%output` copies would cost tmux and the ship dearly.
   */
  controlArgs(name: string): string[] {
    return [...this.socketArgs, '-C', 'attach-session', '-f', 'no-output', '-t', `=${name}`];
  }

  /**
   * Types `text` into a session's active pane as one paste, then Enter when `enter` (issue #16's `send`).
   * The text never becomes an argument: it goes to a 0600 file in a fresh 0700 directory that
   * `load-buffer` reads into a buffer with a generated name, which `paste-buffer -d` pastes and deletes.
   * `-p` brackets the paste (ESC[200~ … ESC[201~) only when the application asked for bracketed paste, as
   * a paste in the user's own terminal would (docs/DECISIONS.md). tmux expands formats in load-buffer's
   * path, so the path must hold nothing tmux would read as one (`#`): SAFE_PATH checks the temp directory.
   */
  async paste(name: string, text: string, enter: boolean): Promise<void> {
    const target = `=${name}:`;
    if (text !== '') {
      const dir = await mkdtemp(join(tmpdir(), 'svc-send-'));
      const buffer = `svc-send-${randomUUID()}`;
      try {
        if (!SAFE_PATH.test(dir))
          throw new Error(`the temp directory path ${tmpdir()} has characters tmux would expand`);
        const file = join(dir, 'text');
        await writeFile(file, text, { mode: 0o600 });
        await this.ok(['load-buffer', '-b', buffer, file]);
        const pasted = await this.run(['paste-buffer', '-p', '-d', '-b', buffer, '-t', target]);
        if (pasted.code !== 0) {
          await this.run(['delete-buffer', '-b', buffer]);
          throw new TmuxCommandFailed('paste-buffer', pasted.code, pasted.stderr);
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    if (enter) await this.ok(['send-keys', '-t', target, 'Enter']);
  }

  /** Process ids of the panes (each a session leader) of one session, or of every session. */
  async panePids(name?: string): Promise<number[]> {
    const result = await this.run(['list-panes', ...(name ? ['-s', '-t', `=${name}`] : ['-a']), '-F', '#{pane_pid}']);
    if (result.code !== 0) return [];
    return result.stdout
      .split('\n')
      .map(Number)
      .filter((pid) => Number.isInteger(pid) && pid > 0);
  }

  /**
   * Kills a session and every process it started (not only those tmux's SIGHUP reaches); false when the
   * session did not exist.
   */
  async killSession(name: string): Promise<boolean> {
    const panes = await this.panePids(name);
    const result = await this.run(['kill-session', '-t', `=${name}`]);
    // A holder's panes are pids of its PID namespace: it reaps them itself (session-holder.ts).
    if (!this.holder) void terminateSessions(panes);
    return result.code === 0;
  }

  /**
   * Watches session creation and exit through a control-mode client attached to the keeper session. Calls
   * `onChange` on every `%sessions-changed`, and `onLost` once when the client ends (server or keeper gone).
   */
  watch(onChange: () => void, onLost: () => void): void {
    this.unwatch();
    const child = spawn('tmux', [...this.socketArgs, '-C', 'attach-session', '-t', `=${KEEPER_SESSION}`], {
      env: this.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.watcher = child;
    child.on('error', () => undefined);
    // Without descriptors the child has no stdio; its close still follows and reports the watch lost.
    child.stdin?.on('error', () => undefined);
    child.stderr?.resume();
    if (child.stdout) {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.startsWith('%sessions-changed')) onChange();
      });
    }
    child.on('close', () => {
      if (this.watcher !== child) return;
      this.watcher = null;
      onLost();
    });
  }

  unwatch(): void {
    const child = this.watcher;
    this.watcher = null;
    if (child) {
      child.stdin.end();
      child.kill('SIGTERM');
    }
  }

  /**
   * Kills the server and every process its sessions started; resolves once they are gone. A holder's
   * server is the holder's to end: the ship only stops watching it.
   */
  async killServer(): Promise<void> {
    this.unwatch();
    if (this.holder) return;
    const panes = await this.panePids();
    await this.run(['kill-server']);
    await terminateSessions(panes);
  }
}
