// A benchmark terminal client: applies frames to a TerminalScreen, acks at once, and lets the caller wait
// for a condition on the reconstructed screen (checked after every frame).
import WebSocket from 'ws';
import { TerminalScreen, type TerminalServerFrame } from '../../protocol/index.js';

export class BenchTerminal {
  readonly screen = new TerminalScreen();
  frames = 0;
  private waiter: { check: () => boolean; resolve: () => void } | null = null;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as TerminalServerFrame;
      if (frame.type === 'exit') return;
      this.frames++;
      const result = this.screen.apply(frame);
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
  static async open(url: string, cols: number, rows: number, headers: Record<string, string> = {}): Promise<BenchTerminal> {
    const socket = new WebSocket(url, { perMessageDeflate: false, headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const terminal = new BenchTerminal(socket);
    terminal.send({ type: 'init', cols, rows });
    return terminal;
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`terminal condition not met; screen:\n${this.screen.text()}`)), timeoutMs);
      this.waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  }

  close(): void {
    this.socket.close();
  }
}
