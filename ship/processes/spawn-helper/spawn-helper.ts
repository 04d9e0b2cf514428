// The ship's side of the spawn helper: a small long-lived `node` child, started once while the ship is still
// small, that runs every git and tmux command the ship needs on a request path (helper-script.ts). Why: a
// fork copies the forking process's page tables, so each spawn from the ship's main thread stalled every
// terminal on the ship, and an active workspace's status costs two git processes per read (under the soak's
// status load most of the main thread went to forking: bench/RESULTS.md). The helper forks instead,
// from a process a fraction of the ship's size, and the ship only passes messages.
//
// Owns: starting the helper, matching answers to calls, aborts, and the helper's death. A helper that dies
// fails the calls it was running with a message saying so (they are never re-run: a branch switch must not
// happen twice), their process groups are killed from here, and the next call starts a new helper. One
// that keeps dying (3 times in a minute) or cannot be started at all is given up for direct spawning, the
// behaviour before the helper. The helper receives no environment of its own (no SVC_* secret); each
// request carries the exact environment its command gets, as DirectSpawner would pass it.
import { spawn, type ChildProcess } from 'node:child_process';
import { DirectSpawner, type SpawnRequest, type SpawnResult, type Spawner } from '../spawner.js';
import { HELPER_MARKER, HELPER_SCRIPT } from './helper-script.js';
import { messageOf } from '../../../protocol/index.js';

/** Deaths within DEATH_WINDOW_MS after which the helper is given up for direct spawning. */
const DEATHS_BEFORE_FALLBACK = 3;
const DEATH_WINDOW_MS = 60_000;

type HelperMessage =
  | { id: number; pid: number }
  | { id: number; result: SpawnResult }
  | { id: number; error: { message: string; code?: string } };

interface Call {
  request: SpawnRequest;
  resolve: (result: SpawnResult) => void;
  reject: (error: Error) => void;
  /** The command's pid once the helper has started it. */
  pid: number | null;
  helper: ChildProcess;
  stopListening: () => void;
}

export interface SpawnHelperOptions {
  /** Told when the helper died or was given up (the ship logs it). */
  onProblem?: (message: string) => void;
  now?: () => number;
}

export class SpawnHelper implements Spawner {
  private helper: ChildProcess | null = null;
  private readonly calls = new Map<number, Call>();
  private nextId = 0;
  private deaths: number[] = [];
  private fallback: Spawner | null = null;
  private closed = false;

  constructor(private readonly options: SpawnHelperOptions = {}) {}

  /** The running helper's pid (diagnostics and tests); undefined while none runs. */
  get pid(): number | undefined {
    return this.helper?.pid;
  }

  /** Starts the helper now (the ship calls this first thing, while it is small). Idempotent. */
  start(): void {
    if (this.closed || this.fallback || this.helper) return;
    let helper: ChildProcess;
    try {
      helper = spawn(process.execPath, ['-e', HELPER_SCRIPT, HELPER_MARKER], {
        // Its own process group: a Ctrl-C meant for the ship must not end the helper before the ship's
        // shutdown has run its last tmux commands through it. It exits when the ship's channel closes.
        detached: true,
        env: {},
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        serialization: 'advanced',
      });
    } catch (error) {
      this.giveUp(`the spawn helper could not be started (${messageOf(error)})`);
      return;
    }
    this.helper = helper;
    let gone = false;
    const ended = (how: string) => {
      if (gone) return;
      gone = true;
      this.onHelperGone(helper, how);
    };
    helper.on('message', (message: HelperMessage) => this.onMessage(message));
    // A start that fails (EAGAIN, EMFILE) may be reported without a 'close' to follow.
    helper.on('error', (error) => {
      if (helper.pid === undefined) ended(`could not start: ${error.message}`);
    });
    helper.on('close', (code, signal) => ended(signal ? `killed by ${signal}` : `exit code ${code}`));
    // Neither the helper nor its channel keeps the ship alive while nothing is running (see holdOpen).
    helper.unref();
    helper.channel?.unref();
  }

  run(request: SpawnRequest, abort?: AbortSignal): Promise<SpawnResult> {
    this.start();
    const helper = this.helper;
    if (this.fallback || !helper) return (this.fallback ?? new DirectSpawner()).run(request, abort);
    return new Promise<SpawnResult>((resolve, reject) => {
      const id = ++this.nextId;
      const onAbort = () => {
        if (this.calls.has(id)) this.send(helper, { kill: id });
      };
      abort?.addEventListener('abort', onAbort);
      this.calls.set(id, {
        request,
        resolve,
        reject,
        pid: null,
        helper,
        stopListening: () => abort?.removeEventListener('abort', onAbort),
      });
      this.holdOpen();
      this.send(helper, { id, request });
      if (abort?.aborted) onAbort();
    });
  }

  /**
   * Ends the helper (it kills the detached commands it still runs) and fails the calls still waiting: the
   * ship is shutting down. Later calls (a test tidying up the ship's tmux server) spawn directly.
   */
  close(): void {
    this.closed = true;
    this.fallback = new DirectSpawner();
    const helper = this.helper;
    this.helper = null;
    this.failCalls((call) => `${describe(call.request)} was cut short: the ship is shutting down`);
    if (helper?.connected) helper.disconnect();
  }

  private onMessage(message: HelperMessage): void {
    const call = this.calls.get(message.id);
    if (!call) return;
    if ('pid' in message) {
      call.pid = message.pid;
      return;
    }
    this.settle(message.id, call);
    if ('result' in message) {
      call.resolve(message.result);
    } else {
      const error = new Error(message.error.message) as NodeJS.ErrnoException;
      if (message.error.code) error.code = message.error.code;
      call.reject(error);
    }
  }

  private send(helper: ChildProcess, message: unknown): void {
    if (!helper.connected) return; // gone: its close fails the calls
    helper.send(message as object, undefined, undefined, (error) => {
      // A send that fails means the channel is breaking: end it, and the helper's close fails the calls.
      if (error && helper.connected) helper.disconnect();
    });
  }

  private settle(id: number, call: Call): void {
    this.calls.delete(id);
    call.stopListening();
    this.holdOpen();
  }

  /** A running command keeps the ship's event loop alive, as a direct child would; an idle helper does not. */
  private holdOpen(): void {
    if (this.calls.size > 0) this.helper?.channel?.ref();
    else this.helper?.channel?.unref();
  }

  private failCalls(message: (call: Call) => string, helper?: ChildProcess): void {
    for (const [id, call] of [...this.calls]) {
      if (helper && call.helper !== helper) continue;
      // Its commands would otherwise run on unsupervised (the helper's timeout went with it).
      if (call.pid !== null && call.request.detached) {
        try {
          process.kill(-call.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      this.settle(id, call);
      call.reject(new Error(message(call)));
    }
  }

  private onHelperGone(helper: ChildProcess, how: string): void {
    if (this.helper === helper) this.helper = null;
    this.failCalls((call) => `${describe(call.request)} failed: the spawn helper ended (${how}) while it ran`, helper);
    if (this.closed) return;
    const now = (this.options.now ?? Date.now)();
    this.deaths = [...this.deaths.filter((at) => now - at < DEATH_WINDOW_MS), now];
    if (this.deaths.length >= DEATHS_BEFORE_FALLBACK) {
      this.giveUp(
        `the spawn helper ended ${this.deaths.length} times in a minute (last: ${how}); the ship spawns directly from now on`,
      );
    } else {
      this.options.onProblem?.(`the spawn helper ended (${how}); the next command starts a new one`);
    }
  }

  private giveUp(message: string): void {
    this.fallback = new DirectSpawner();
    this.options.onProblem?.(message);
  }
}

const describe = (request: SpawnRequest) => request.what ?? request.command;
