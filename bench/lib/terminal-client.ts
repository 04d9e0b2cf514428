// A benchmark terminal client: applies frames to a TerminalScreen, acks at once, and lets the caller wait
// for a condition on the reconstructed screen (checked after every frame).
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { TerminalScreen, type TerminalServerFrame } from '../../protocol/index.js';
import type { WireTap } from './wire-tap.js';

/** How a benchmark client connects: as a browser does (permessage-deflate offered) or not, and what taps it. */
export interface BenchSocketOptions {
  /** Offer permessage-deflate (what every browser and a default `ws` client do). */
  deflate?: boolean;
  /** Records every message's size on the wire and whether it came compressed. */
  tap?: WireTap;
  /** With `deflate`: compress every message sent, however small, as a browser does (`ws` skips those under 1 KiB). */
  compressAll?: boolean;
}

/** `ws` client options for `BenchSocketOptions`. */
export function socketOptions(
  options: BenchSocketOptions,
  headers: Record<string, string> = {},
): WebSocket.ClientOptions {
  const deflate = options.deflate ? (options.compressAll ? { threshold: 0 } : true) : false;
  return { perMessageDeflate: deflate, headers, ...(options.tap ? { createConnection: options.tap.connect } : {}) };
}

/** The label benchmark rows carry for each mode. */
export const modeLabel = (deflate: boolean | undefined) => (deflate ? 'deflate offered' : 'no deflate');

export class BenchTerminal {
  readonly screen = new TerminalScreen();
  frames = 0;
  /** The rows the last frame drew (every row for a grid): where a new echo can be. */
  private drawnRows: number[] = [];
  private waiter: { check: () => boolean; resolve: () => void } | null = null;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as TerminalServerFrame;
      if (frame.type === 'exit' || frame.type === 'history') return;
      this.frames++;
      const result = this.screen.apply(frame);
      this.drawnRows =
        frame.type === 'grid'
          ? Array.from({ length: frame.rows }, (_, row) => row)
          : [...new Set(frame.runs.map(([row]) => row))];
      if (result.resync) this.send({ type: 'resync' });
      if (result.ack !== undefined) this.send({ type: 'ack', seq: result.ack });
      if (this.waiter?.check()) {
        const { resolve } = this.waiter;
        this.waiter = null;
        resolve();
      }
    });
  }

  /** `headers` carries the bridge token to a ship that has one. */
  static async open(
    url: string,
    cols: number,
    rows: number,
    headers: Record<string, string> = {},
    options: BenchSocketOptions = {},
  ): Promise<BenchTerminal> {
    const socket = new WebSocket(url, socketOptions(options, headers));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const terminal = new BenchTerminal(socket);
    terminal.send({ type: 'init', cols, rows });
    return terminal;
  }

  /** The extensions the server accepted (`permessage-deflate…` when it negotiated compression). */
  get extensions(): string {
    return this.socket.extensions;
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  /**
   * Resolves once `text` is on a row the latest frame drew (or anywhere on the screen now): reads one or two
   * rows per frame, so the wait adds almost nothing to what it times.
   */
  untilDrawn(text: string, timeoutMs = 60_000): Promise<void> {
    if (this.screen.text().includes(text)) return Promise.resolve();
    return this.until(() => this.drawnRows.some((row) => this.screen.rowText(row).includes(text)), timeoutMs);
  }

  until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`terminal condition not met; screen:\n${this.screen.text()}`)),
        timeoutMs,
      );
      this.waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  }

  /** Resolves once the server has closed its side (the session is free for another connection). */
  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    this.socket.close();
    return closed;
  }
}

let markerRounds = 0;

/**
 * Keystroke echo into `cat`: markers typed one at a time, each timed until it shows on the screen, while
 * `more(i)` holds. Markers are unique per round (a letter per round) and a new line starts every
 * `perLine` of them, so each is found whole wherever it lands: on a busy machine the tty's echo of a key
 * can come before `cat` has printed the previous line.
 */
export async function typeMarkers(
  terminal: BenchTerminal,
  more: (i: number) => boolean,
  perLine: number,
): Promise<number[]> {
  const tag = String.fromCharCode(97 + (markerRounds++ % 26));
  const echo: number[] = [];
  for (let i = 0; more(i); i++) {
    if (i % perLine === 0) {
      terminal.send({ type: 'input', data: '\r' });
      await sleep(50);
    }
    const marker = `${tag}${i}z`;
    const started = performance.now();
    terminal.send({ type: 'input', data: marker });
    await terminal.untilDrawn(marker, 5000);
    echo.push(performance.now() - started);
    await sleep(5);
  }
  return echo;
}
