// A workspace's terminal that outlives its socket, without any DOM: one TerminalSession at a time, each on
// a socket opened with a fresh ticket. A dropped socket (a bridge restart, a proxy timeout, a laptop
// waking) is retried on the shared backoff while keystrokes wait in a bounded queue (input-queue.ts); the
// new session's first frame is a full grid (docs/terminal.md), and the queue is sent right after it, in
// order. Told apart from a drop: the ship's one-terminal refusal (`exit 1` closed with "Terminal open
// elsewhere": no retry, the user takes over once the other viewer has closed), a shell exit and a protocol
// violation (both end it). An `exit 1` before any frame for another reason (the ship not back yet after a
// bridge restart), and the bridge closing a page that fell behind reading (1009), are retried like a drop.
import { TERMINAL_CLOSE, TERMINAL_INPUT_MAX_BYTES, type Cell } from '../../../protocol/terminal.js';
import type { TerminalScreen } from '../../../protocol/terminal-screen.js';
import { Backoff, GUI_RECONNECT } from '../../../protocol/backoff.js';
import { InputQueue } from './input-queue.js';
import { closeMessage, exitMessage } from './terminal-messages.js';
import { TerminalSession, type SocketLike, type TerminalSize, type Timers } from './terminal-session.js';

export type { Timers };

export type TerminalState =
  | { kind: 'connecting' }
  | { kind: 'open' }
  | { kind: 'reconnecting'; attempt: number }
  | { kind: 'elsewhere' }
  | { kind: 'ended'; message: string };

export interface TerminalStatus {
  state: TerminalState;
  /** Keystrokes were refused because the queue is full (until it is sent). */
  queueFull: boolean;
}

/** Keystrokes kept while away; a paste is at most TERMINAL_INPUT_MAX_BYTES anyway. */
export const INPUT_QUEUE_MAX_BYTES = 64 * 1024;

/**
 * Closes that say the client broke the protocol: retrying would break it again. Not 1009 (buffer limit):
 * the bridge sends it when more than 256 KiB wait on one side, most often frames for a page that fell behind
 * reading (its main thread busy through a flood). Nothing of it repeats on a new socket: the new session
 * starts from a full grid and gets only what was typed meanwhile (INPUT_QUEUE_MAX_BYTES at most).
 */
const FATAL_CLOSES = new Set<number>([TERMINAL_CLOSE.binary.code, TERMINAL_CLOSE.invalidMessage.code]);

export interface ReconnectingTerminalDeps {
  /** A socket to the terminal path with a ticket minted just now. */
  open(): Promise<SocketLike>;
  timers: Timers;
  /** A frame was applied: draw it (scrolled lines first), then call `acknowledge`. */
  screen(screen: TerminalScreen, scrolled: Cell[][], acknowledge: () => void): void;
  /** The ship's rows above the screen: they replace the scrollback. */
  history(rows: Cell[][]): void;
  status(status: TerminalStatus): void;
  backoff?: Backoff;
  queueBytes?: number;
}

export class ReconnectingTerminal {
  private session: TerminalSession | null = null;
  private state: TerminalState = { kind: 'connecting' };
  private readonly queue: InputQueue;
  private readonly backoff: Backoff;
  private timer: unknown = null;
  private attempt = 0;
  /** Counts connects: the answer of a superseded one is ignored. */
  private generation = 0;
  private closed = false;

  constructor(
    private readonly deps: ReconnectingTerminalDeps,
    private size: TerminalSize,
  ) {
    this.queue = new InputQueue(deps.queueBytes ?? INPUT_QUEUE_MAX_BYTES);
    this.backoff = deps.backoff ?? new Backoff(GUI_RECONNECT);
  }

  start(): void {
    this.connect();
  }

  input(data: string): void {
    if (data === '' || this.closed) return;
    if (this.session?.live) return this.sendInput(this.session, data);
    if (this.state.kind === 'ended' || this.state.kind === 'elsewhere') return;
    const wasFull = this.queue.full;
    this.queue.push(data);
    if (this.queue.full !== wasFull) this.report();
  }

  resize(size: TerminalSize): void {
    this.size = size;
    this.session?.resize(size);
  }

  /** Connect now: take over after "open elsewhere", reconnect after an end, or skip a backoff wait. */
  connectNow(): void {
    if (this.closed || this.state.kind === 'open' || this.state.kind === 'connecting') return;
    this.clearTimer();
    this.backoff.reset();
    this.setState({ kind: 'connecting' });
    this.connect();
  }

  close(): void {
    this.closed = true;
    this.clearTimer();
    const session = this.session;
    this.session = null;
    session?.close();
  }

  private connect(): void {
    const generation = ++this.generation;
    this.deps.open().then(
      (socket) => {
        if (this.closed || generation !== this.generation) return socket.close(1000, 'view closed');
        this.attach(socket);
      },
      () => {
        if (!this.closed && generation === this.generation) this.retry();
      },
    );
  }

  private attach(socket: SocketLike): void {
    let exit: { code: number; beforeFirstFrame: boolean } | null = null;
    const session: TerminalSession = new TerminalSession(socket, this.size, this.deps.timers, {
      screen: (screen, scrolled, seq) => {
        if (this.session !== session) return;
        if (this.state.kind !== 'open') this.opened(session);
        this.deps.screen(screen, scrolled, () => session.ack(seq));
      },
      history: (rows) => {
        if (this.session === session) this.deps.history(rows);
      },
      exit: (code, beforeFirstFrame) => {
        exit = { code, beforeFirstFrame };
      },
      closed: (code, reason) => {
        if (this.session !== session) return;
        this.session = null;
        this.ended(exit, code, reason);
      },
    });
    this.session = session;
  }

  /** The first frame of a session: the ship is attached, so what was typed meanwhile goes now, in order. */
  private opened(session: TerminalSession): void {
    this.attempt = 0;
    this.backoff.reset();
    this.setState({ kind: 'open' });
    const queued = this.queue.drain();
    if (queued) this.sendInput(session, queued);
    this.report();
  }

  private ended(exit: { code: number; beforeFirstFrame: boolean } | null, code: number, reason: string): void {
    if (this.closed) return;
    if (exit && !exit.beforeFirstFrame) return this.setState({ kind: 'ended', message: exitMessage(exit.code, false) });
    if (exit?.code === 1 && reason === TERMINAL_CLOSE.openElsewhere.reason) return this.setState({ kind: 'elsewhere' });
    if (!exit && FATAL_CLOSES.has(code))
      return this.setState({ kind: 'ended', message: closeMessage(code, reason) ?? 'The terminal was closed.' });
    this.retry();
  }

  private retry(): void {
    this.attempt++;
    this.setState({ kind: 'reconnecting', attempt: this.attempt });
    this.timer = this.deps.timers.setTimeout(() => {
      this.timer = null;
      this.connect();
    }, this.backoff.next());
  }

  /** Input in messages within the protocol's limit (a long paste is split on character boundaries). */
  private sendInput(session: TerminalSession, data: string): void {
    // A UTF-16 unit is at most 3 UTF-8 bytes, a code point at most 4: keystrokes go as they are, and a
    // slice of a quarter of the limit in code points always fits.
    if (data.length * 3 <= TERMINAL_INPUT_MAX_BYTES) return session.input(data);
    const chars = [...data];
    const step = TERMINAL_INPUT_MAX_BYTES / 4;
    for (let i = 0; i < chars.length; i += step) session.input(chars.slice(i, i + step).join(''));
  }

  private clearTimer(): void {
    if (this.timer !== null) this.deps.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  private setState(state: TerminalState): void {
    this.state = state;
    this.report();
  }

  private report(): void {
    this.deps.status({ state: this.state, queueFull: this.queue.full });
  }
}
