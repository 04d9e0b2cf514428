// A real WebSocket client on a ship's /events stream that collects every frame for assertions.
import WebSocket from 'ws';

export interface EventClient {
  events: any[];
  socket: WebSocket;
  /** Resolves once `count` frames have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<any[]>;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** How the client connects: `query` for the URL (a bridge's `?ticket=`), and whether it offers permessage-deflate (as `ws` and browsers do by default). */
export interface EventClientOptions {
  query?: string;
  perMessageDeflate?: boolean;
}

export function connectEvents(
  baseUrl: string,
  headers: Record<string, string> = {},
  options: EventClientOptions = {},
): Promise<EventClient> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/events${options.query ?? ''}`, {
    headers,
    followRedirects: false,
    perMessageDeflate: options.perMessageDeflate ?? true,
  });
  const events: any[] = [];
  const waiters: Array<() => void> = [];
  socket.on('message', (data) => {
    events.push(JSON.parse(data.toString()));
    for (const waiter of waiters.splice(0)) waiter();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const client: EventClient = {
    events,
    socket,
    closed,
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`expected ${count} events, got ${events.length}: ${JSON.stringify(events.map((e) => e.type))}`),
            ),
          timeoutMs,
        );
        const check = () => {
          if (events.length >= count) {
            clearTimeout(timer);
            resolve(events.slice(0, count));
          } else waiters.push(check);
        };
        check();
      });
    },
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      socket.close();
      await closed;
    },
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(client));
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
  });
}
