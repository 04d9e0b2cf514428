// The client side of one terminal socket (docs/terminal.md), without any DOM: sends `init` with
// the fitted size once the socket opens, applies grid/patch frames to a TerminalScreen (protocol/), sends
// one `resync` on a gap, forwards `input` and `resize`, and reports each applied frame with the lines it
// scrolled off (scrolled-lines.ts), the exit and the close. Acks are the caller's: it sends `ack(seq)` once
// the frame is drawn. Reconnecting is not its job (reconnecting-terminal.ts makes a new session).
// History (docs/terminal.md, "History"), from a ship whose grid offers it: asked for after the first grid
// (what scrolled off before this connection), and again once the output calms (no such frame for
// HISTORY_CALM_MS) after frames that replaced the whole screen with no scroll to be seen: more than a
// screen of output between two frames, which scrolled-lines.ts cannot recover. A flood thus costs one
// history, after it.
import { TerminalScreen } from '../../../protocol/terminal-screen.js';
import type { Cell, TerminalClientMessage, TerminalServerFrame } from '../../../protocol/terminal.js';
import { scrolledLines } from './scrolled-lines.js';

export interface Timers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Quiet after a frame that lost rows before history is asked for. */
export const HISTORY_CALM_MS = 300;

export interface TerminalSize {
  cols: number;
  rows: number;
}

export interface TerminalSessionEvents {
  /** A frame was applied: draw the screen (after `scrolled` went into the scrollback), then ack `seq`. */
  screen(screen: TerminalScreen, scrolled: Cell[][], seq: number): void;
  /** The rows above the screen, oldest first, exact from the ship: they replace the scrollback. */
  history(rows: Cell[][]): void;
  /** `{type: exit}`: `beforeFirstFrame` tells a refused socket from a shell exit. */
  exit(code: number, beforeFirstFrame: boolean): void;
  /** The socket closed (after an exit or on its own). */
  closed(code: number, reason: string): void;
}

/** What the session needs of a WebSocket (the browser's, in the GUI). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
}

const OPEN = 1;

export class TerminalSession {
  readonly screen = new TerminalScreen();
  private framesSeen = 0;
  private exited = false;
  private size: TerminalSize;
  /** Whether the ship answers `history` (its last grid said so). */
  private historyOffered = false;
  /** A history ask waiting for output to be calm after frames that may have lost rows. */
  private historyTimer: unknown = null;

  constructor(
    private readonly socket: SocketLike,
    size: TerminalSize,
    private readonly timers: Timers,
    private readonly events: TerminalSessionEvents,
  ) {
    this.size = size;
    socket.addEventListener('open', () => this.send({ type: 'init', cols: this.size.cols, rows: this.size.rows }));
    socket.addEventListener('message', (event) => this.receive(event.data));
    socket.addEventListener('close', (event) => {
      this.calm();
      this.events.closed(event.code, event.reason);
    });
  }

  /** True once a frame was applied: the ship has attached, input now reaches the session. */
  get live(): boolean {
    return this.framesSeen > 0 && !this.exited && this.socket.readyState === OPEN;
  }

  input(data: string): void {
    if (data !== '') this.send({ type: 'input', data });
  }

  ack(seq: number): void {
    this.send({ type: 'ack', seq });
  }

  resize(size: TerminalSize): void {
    if (size.cols === this.size.cols && size.rows === this.size.rows) return;
    this.size = size;
    this.send({ type: 'resize', cols: size.cols, rows: size.rows });
  }

  close(): void {
    this.calm();
    this.socket.close(1000, 'closed by the user');
  }

  private send(message: TerminalClientMessage): void {
    if (this.socket.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let frame: TerminalServerFrame;
    try {
      frame = JSON.parse(data) as TerminalServerFrame;
    } catch {
      return;
    }
    if (frame.type === 'exit') {
      if (!this.exited) this.events.exit(frame.code, this.framesSeen === 0);
      this.exited = true;
      return;
    }
    if (frame.type === 'history') return this.events.history(frame.rows);
    if (frame.type !== 'grid' && frame.type !== 'patch') return;
    const first = this.framesSeen === 0;
    this.framesSeen++;
    const screen = this.screen;
    const before =
      screen.seq >= 0 && screen.cols === frame.cols && screen.rows === frame.rows ? screen.cells.slice() : null;
    const answer = screen.apply(frame);
    if (answer.resync) this.send({ type: 'resync' });
    if (answer.ack === undefined) return;
    const scrolled = before ? scrolledLines(before, screen.cells) : [];
    if (frame.type === 'grid') this.historyOffered = frame.history === true;
    if (this.historyOffered) this.followHistory(first, before, scrolled.length > 0);
    this.events.screen(screen, scrolled, answer.ack);
  }

  /** Asks for history after the first grid, and once output calms after a frame that lost rows. */
  private followHistory(first: boolean, before: Cell[][] | null, scrolled: boolean): void {
    const after = this.screen.cells;
    // Every row new and no scroll seen: the output may have been longer than what was blank (a clear or a
    // full-screen redraw looks the same, and costs one history after it).
    const lost = before !== null && !scrolled && before.every((row, y) => row !== after[y]);
    if (first) this.send({ type: 'history' });
    if (!lost) return;
    this.calm();
    this.historyTimer = this.timers.setTimeout(() => {
      this.historyTimer = null;
      this.send({ type: 'history' });
    }, HISTORY_CALM_MS);
  }

  /** Drops a history ask still waiting for calm. */
  private calm(): void {
    if (this.historyTimer !== null) this.timers.clearTimeout(this.historyTimer);
    this.historyTimer = null;
  }
}
