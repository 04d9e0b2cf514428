// The client side of one terminal socket (docs/terminal.md), without any DOM: sends `init` with
// the fitted size once the socket opens, applies grid/patch frames to a TerminalScreen (protocol/), sends
// one `resync` on a gap, forwards `input` and `resize`, and reports each applied frame with the lines it
// scrolled off (scrolled-lines.ts), the exit and the close. Acks are the caller's: it sends `ack(seq)` once
// the frame is drawn. Reconnecting is not its job (reconnecting-terminal.ts makes a new session).
import { TerminalScreen } from '../../../protocol/terminal-screen.js';
import type { Cell, TerminalClientMessage, TerminalServerFrame } from '../../../protocol/terminal.js';
import { scrolledLines } from './scrolled-lines.js';

export interface TerminalSize {
  cols: number;
  rows: number;
}

export interface TerminalSessionEvents {
  /** A frame was applied: draw the screen (after `scrolled` went into the scrollback), then ack `seq`. */
  screen(screen: TerminalScreen, scrolled: Cell[][], seq: number): void;
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

  constructor(
    private readonly socket: SocketLike,
    size: TerminalSize,
    private readonly events: TerminalSessionEvents,
  ) {
    this.size = size;
    socket.addEventListener('open', () => this.send({ type: 'init', cols: this.size.cols, rows: this.size.rows }));
    socket.addEventListener('message', (event) => this.receive(event.data));
    socket.addEventListener('close', (event) => this.events.closed(event.code, event.reason));
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
    if (frame.type !== 'grid' && frame.type !== 'patch') return;
    this.framesSeen++;
    const screen = this.screen;
    const before =
      screen.seq >= 0 && screen.cols === frame.cols && screen.rows === frame.rows ? screen.cells.slice() : null;
    const answer = screen.apply(frame);
    if (answer.resync) this.send({ type: 'resync' });
    if (answer.ack !== undefined)
      this.events.screen(screen, before ? scrolledLines(before, screen.cells) : [], answer.ack);
  }
}
