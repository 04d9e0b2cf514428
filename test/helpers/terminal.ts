// A real terminal client for tests: a WebSocket that sends `init`, applies grid/patch frames to a
// TerminalScreen, acks them (unless told not to) and records everything it received.
import WebSocket from 'ws';
import { TerminalScreen, type TerminalServerFrame } from '../../protocol/index.js';

export interface TerminalClient {
  socket: WebSocket;
  screen: TerminalScreen;
  frames: TerminalServerFrame[];
  exit: Promise<number>;
  closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
  input(data: string): void;
  /** Resolves when the reconstructed screen satisfies `predicate`. */
  until(predicate: (screen: TerminalScreen) => boolean, timeoutMs?: number): Promise<void>;
  waitForFrames(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface TerminalClientOptions {
  cols?: number;
  rows?: number;
  autoAck?: boolean;
  /** Send no init (for the init-timeout test). */
  skipInit?: boolean;
  headers?: Record<string, string>;
  perMessageDeflate?: boolean;
}

export function terminalUrl(base: string, repo: string, name: string): string {
  return `${base.replace(/^http/, 'ws')}/workspaces/${encodeURIComponent(repo)}/${encodeURIComponent(name)}/terminal`;
}

export function connectTerminal(url: string, options: TerminalClientOptions = {}): Promise<TerminalClient> {
  const socket = new WebSocket(url, {
    headers: options.headers,
    followRedirects: false,
    perMessageDeflate: options.perMessageDeflate ?? false,
  });
  const screen = new TerminalScreen();
  const frames: TerminalServerFrame[] = [];
  const listeners = new Set<() => void>();
  let resolveExit!: (code: number) => void;
  const exit = new Promise<number>((resolve) => (resolveExit = resolve));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const listener of listeners) listener();
    }),
  );
  const send = (message: unknown) => socket.send(JSON.stringify(message));
  socket.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as TerminalServerFrame;
    frames.push(frame);
    if (frame.type === 'exit') resolveExit(frame.code);
    else if (frame.type !== 'history') {
      const result = screen.apply(frame);
      if (result.resync) send({ type: 'resync' });
      if (result.ack !== undefined && options.autoAck !== false) send({ type: 'ack', seq: result.ack });
    }
    for (const listener of listeners) listener();
  });
  const waitFor = (check: () => boolean, timeoutMs: number, describe: () => string) =>
    new Promise<void>((resolve, reject) => {
      if (check()) return resolve();
      const timer = setTimeout(() => {
        listeners.delete(listener);
        reject(new Error(`timed out: ${describe()}`));
      }, timeoutMs);
      const listener = () => {
        if (!check()) return;
        clearTimeout(timer);
        listeners.delete(listener);
        resolve();
      };
      listeners.add(listener);
    });
  const client: TerminalClient = {
    socket,
    screen,
    frames,
    exit,
    closed,
    send,
    input: (data) => send({ type: 'input', data }),
    until: (predicate, timeoutMs = 10_000) =>
      waitFor(
        () => predicate(screen),
        timeoutMs,
        () => `screen was:\n${screen.text()}`,
      ),
    waitForFrames: (count, timeoutMs = 10_000) =>
      waitFor(
        () => frames.length >= count,
        timeoutMs,
        () => `${frames.length} frames`,
      ),
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      socket.close();
      await closed;
    },
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      if (!options.skipInit) send({ type: 'init', cols: options.cols ?? 80, rows: options.rows ?? 24 });
      resolve(client);
    });
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) =>
      reject(new Error(`upgrade answered ${response.statusCode}`)),
    );
  });
}
