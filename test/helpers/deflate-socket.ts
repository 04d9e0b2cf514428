// A WebSocket client that sees the wire (issue #18): offers permessage-deflate or not, records the
// `sec-websocket-extensions` the server answered, every text message received, and for each whether it came
// compressed (RSV1) and its size on the wire (bench/lib/wire-tap.ts), so tests can check what the servers
// compress without timing anything.
import WebSocket from 'ws';
import { WireTap, type WireMessage } from '../../bench/lib/wire-tap.js';
import { TerminalScreen, type TerminalServerFrame } from '../../protocol/index.js';
import { WEBSOCKET_COMPRESS_MIN_LENGTH } from '../../protocol/websocket-compression.js';

export interface TappedSocket {
  socket: WebSocket;
  /** The `sec-websocket-extensions` response header, if any. */
  extensionsHeader: string | undefined;
  texts: string[];
  /** `wire[i]` is how `texts[i]` travelled. */
  wire: WireMessage[];
  /** Resolves with the index of the first message from `from` on that satisfies `check`. */
  waitFor(check: (text: string) => boolean, from?: number, timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

/** `onText` runs on every message before anyone waiting is told of it. */
export function openTapped(
  url: string,
  options: { deflate: boolean; headers?: Record<string, string>; onText?: (text: string) => void },
): Promise<TappedSocket> {
  const tap = new WireTap();
  const socket = new WebSocket(url, {
    perMessageDeflate: options.deflate,
    headers: options.headers,
    followRedirects: false,
    createConnection: tap.connect,
  });
  const texts: string[] = [];
  const listeners = new Set<() => void>();
  socket.on('message', (data, isBinary) => {
    if (isBinary) throw new Error('unexpected binary message');
    const text = data.toString();
    options.onText?.(text);
    texts.push(text);
    for (const listener of listeners) listener();
  });
  let extensionsHeader: string | undefined;
  socket.once('upgrade', (response) => (extensionsHeader = response.headers['sec-websocket-extensions']));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const tapped: TappedSocket = {
    socket,
    get extensionsHeader() {
      return extensionsHeader;
    },
    texts,
    wire: tap.messages,
    waitFor(check, from = 0, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const find = () => {
          for (let i = from; i < texts.length; i++) if (check(texts[i]!)) return i;
          return -1;
        };
        const found = find();
        if (found >= 0) return resolve(found);
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(
            new Error(
              `no matching message in time; got ${texts.length}: ${texts.map((text) => text.slice(0, 80)).join(' | ')}`,
            ),
          );
        }, timeoutMs);
        const listener = () => {
          const index = find();
          if (index < 0) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(index);
        };
        listeners.add(listener);
      });
    },
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      socket.close();
      await closed;
    },
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(tapped));
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) =>
      reject(new Error(`upgrade answered ${response.statusCode}`)),
    );
  });
}

/**
 * Messages that did not travel as the servers' rule says (compressed exactly when deflate was negotiated and
 * the text is at least WEBSOCKET_COMPRESS_MIN_LENGTH long), as `index: length compressed?` strings.
 */
export function offRule(client: TappedSocket, deflate: boolean): string[] {
  return client.texts.flatMap((text, i) =>
    client.wire[i]!.compressed === (deflate && text.length >= WEBSOCKET_COMPRESS_MIN_LENGTH)
      ? []
      : [`${i}: ${text.length} ${client.wire[i]!.compressed}`],
  );
}

/** A terminal over a tapped socket: sends `init`, applies every frame to `screen` and acks it. */
export async function tappedTerminal(
  url: string,
  options: { deflate: boolean; cols: number; rows: number; headers?: Record<string, string> },
) {
  const screen = new TerminalScreen();
  const frames: TerminalServerFrame[] = [];
  let send = (_message: unknown) => {};
  const client = await openTapped(url, {
    ...options,
    onText: (text) => {
      const frame = JSON.parse(text) as TerminalServerFrame;
      frames.push(frame);
      if (frame.type === 'exit' || frame.type === 'history') return;
      const result = screen.apply(frame);
      if (result.resync) send({ type: 'resync' });
      if (result.ack !== undefined) send({ type: 'ack', seq: result.ack });
    },
  });
  send = (message) => client.socket.send(JSON.stringify(message));
  client.socket.send(JSON.stringify({ type: 'init', cols: options.cols, rows: options.rows }));
  const input = (data: string) => client.socket.send(JSON.stringify({ type: 'input', data }));
  /** Resolves once the reconstructed screen satisfies `check` (checked after every frame). */
  const until = (check: (screen: TerminalScreen) => boolean, timeoutMs?: number) =>
    client.waitFor(() => check(screen), 0, timeoutMs);
  return { client, screen, frames, input, until };
}

/** Fills a screen with 38 coloured rows and `FILLED` (the typed command shows `FIL''LED`, so only the output matches). */
export const FILL_SCREEN =
  "clear; for i in $(seq 1 38); do printf '\\033[3%dmrow %02d the quick brown fox jumps over the lazy dog\\033[0m\\n' $((i % 8)) $i; done; echo FIL''LED\r";
export const isFilled = (screen: TerminalScreen) => /^FILLED$/m.test(screen.text()) && screen.text().includes('row 38');
