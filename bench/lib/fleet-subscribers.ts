// Bridge `/events` subscribers for the fleet benchmark, in their own process so that the process timing
// routed calls never shares an event loop with them. Each socket connects as a browser does: it offers
// permessage-deflate (`permessage-deflate; client_max_window_bits`, what a `ws` client and the browsers
// offer), answers pings, and records when each message has fully arrived, on `process.hrtime.bigint()`
// (CLOCK_MONOTONIC: comparable with the fake ships' send times). Driven over IPC by `startSubscribers`: arm a
// watch, trigger something elsewhere, then collect the arrivals.
//
// The client is a lean one (LeanSocket below), not `ws`: 500 `ws` clients in one process inflate every
// aggregate `sync` in full, gigabytes of output for a reconnect storm, and on two cores that process then
// takes the CPU from the bridge it is measuring (the routed p99 and the time to read it: bench/RESULTS.md).
// What the bridge sees is the same handshake and the same reading; the lean client inflates only the first
// 16 KB of a compressed message (enough for the benchmark's markers), each message on its own. That relies on
// the bridge never referring to an earlier message (broadcast-frame.ts); if it did, the markers would not
// be found and the benchmark would fail, not pass.
import { forkWorker } from './fork-worker.js';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { constants, inflateRawSync } from 'node:zlib';

const SYNC_PREFIX = '{"type":"sync"';

/**
 * What a watch waits for on every socket: an event frame holding `marker`; `count` sync frames; or a sync
 * frame holding every one of `markers` within its first `prefix` bytes (the fake ships' generation markers).
 */
export type Watch =
  | { kind: 'marker'; marker: string }
  | { kind: 'syncs'; count: number }
  | { kind: 'syncWith'; markers: string[]; prefix: number };
type Command = { op: 'arm'; watch: Watch } | { op: 'result'; timeoutMs: number } | { op: 'stats' };

/** Arrivals of one watch: hrtime ns of the first and of the last socket to complete it, per socket. */
export interface WatchResult {
  /** Earliest arrival of the first matching frame on any socket. */
  first: bigint;
  /** When the last socket completed the watch (its last awaited frame). */
  last: bigint;
  /** Sockets that completed it, and sockets open when it ended. */
  complete: number;
  open: number;
  /** Matching frames received in all. */
  frames: number;
}

export interface SubscriberStats {
  open: number;
  /** Close codes seen so far, with counts (1009: the bridge's per-subscriber bound was hit). */
  closes: Record<string, number>;
  extensions: string;
}

export interface SubscribersHandle {
  arm(watch: Watch): Promise<void>;
  result(timeoutMs?: number): Promise<WatchResult>;
  stats(): Promise<SubscriberStats>;
  pid: number;
  stop(): Promise<void>;
}

export async function startSubscribers(
  url: string,
  count: number,
  headers: Record<string, string>,
  deflate = true,
): Promise<SubscribersHandle> {
  const worker = await forkWorker<Command, true>(
    fileURLToPath(import.meta.url),
    { url, count, headers, deflate },
    'subscribers',
  );
  const call = worker.call;
  return {
    pid: worker.pid,
    arm: (watch) => call<void>({ op: 'arm', watch }),
    result: async (timeoutMs = 30_000) => {
      const reply = await call<Record<keyof WatchResult, string | number>>({ op: 'result', timeoutMs });
      return {
        first: BigInt(reply.first),
        last: BigInt(reply.last),
        complete: Number(reply.complete),
        open: Number(reply.open),
        frames: Number(reply.frames),
      };
    },
    stats: () => call<SubscriberStats>({ op: 'stats' }),
    stop: worker.stop,
  };
}

/** Compressed bytes of a message that are inflated: at zlib level 1 ~110 KB of JSON, past the markers. */
const INFLATED_PREFIX = 16 * 1024;

/**
 * A WebSocket client that reads as fast as a socket allows and decodes only what the benchmark needs.
 * Emits `message` (payload: the whole text of an uncompressed message, the inflated start of a compressed
 * one), `close` (code), `error`.
 */
class LeanSocket extends EventEmitter {
  open = false;
  extensions = '';
  private readonly socket: net.Socket;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private handshaken = false;

  constructor(url: string, headers: Record<string, string>, deflate: boolean) {
    super();
    const target = new URL(url);
    this.socket = net.connect(Number(target.port), target.hostname);
    this.socket.setNoDelay(true);
    this.socket.on('connect', () => {
      const lines = [
        `GET ${target.pathname} HTTP/1.1`,
        `Host: ${target.host}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
        'Sec-WebSocket-Version: 13',
        ...(deflate ? ['Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits'] : []),
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    this.socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      try {
        this.parse();
      } catch (error) {
        this.emit('error', error);
        this.socket.destroy();
      }
    });
    this.socket.on('error', (error) => this.emit('error', error));
    this.socket.on('close', () => {
      if (!this.open && this.handshaken) return;
      this.open = false;
      this.emit('close', 1006);
    });
  }

  private take(length: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    const taken = all.subarray(0, length);
    const rest = all.subarray(length);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    return taken;
  }

  private peek(length: number): Buffer | null {
    if (this.buffered < length) return null;
    if (this.chunks[0]!.length < length) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    return this.chunks[0]!.subarray(0, length);
  }

  private parse(): void {
    if (!this.handshaken) {
      const head = this.peek(this.buffered)!.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      this.take(end + 4);
      if (!head.startsWith('HTTP/1.1 101')) throw new Error(`the bridge answered ${head.split('\r\n')[0]}`);
      this.extensions = /^sec-websocket-extensions: *(.*)$/im.exec(head.slice(0, end))?.[1]?.trim() ?? '';
      this.handshaken = true;
      this.open = true;
    }
    for (;;) {
      const start = this.peek(2);
      if (!start) return;
      const rsv1 = (start[0]! & 0x40) !== 0;
      const opcode = start[0]! & 0x0f;
      if ((start[0]! & 0x80) === 0 || opcode === 0)
        throw new Error('fragmented messages are not expected from the bridge');
      const short = start[1]! & 0x7f;
      const headerLength = short === 126 ? 4 : short === 127 ? 10 : 2;
      const header = this.peek(headerLength);
      if (!header) return;
      const length = short === 126 ? header.readUInt16BE(2) : short === 127 ? Number(header.readBigUInt64BE(2)) : short;
      if (this.buffered < headerLength + length) return;
      this.take(headerLength);
      const payload = this.take(length);
      if (opcode === 0x9) this.sendControl(0xa, payload);
      else if (opcode === 0x8) {
        this.open = false;
        this.emit('close', payload.length >= 2 ? payload.readUInt16BE(0) : 1005);
        this.socket.end();
        return;
      } else if (opcode === 0x1 || opcode === 0x2) {
        // A compressed message is a whole deflate stream of its own (the bridge never refers back).
        this.emit(
          'message',
          rsv1
            ? inflateRawSync(payload.subarray(0, INFLATED_PREFIX), { finishFlush: constants.Z_SYNC_FLUSH })
            : payload,
        );
      }
    }
  }

  /** A masked control frame (a client's frames are masked). */
  private sendControl(opcode: number, payload: Buffer): void {
    const mask = randomBytes(4);
    const masked = Buffer.from(payload);
    for (let i = 0; i < masked.length; i++) masked[i] = masked[i]! ^ mask[i % 4]!;
    this.socket.write(Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | masked.length]), mask, masked]));
  }

  terminate(): void {
    this.socket.destroy();
  }
}

async function main(): Promise<void> {
  const { url, count, headers, deflate } = JSON.parse(process.argv[2]!) as {
    url: string;
    count: number;
    headers: Record<string, string>;
    deflate: boolean;
  };
  const sockets: LeanSocket[] = [];
  const closes: Record<string, number> = {};
  // The watch in force: what each socket still awaits, and the arrivals so far.
  let watch: Watch | null = null;
  let awaiting = new Map<LeanSocket, number>();
  let first = 0n;
  let last = 0n;
  let complete = 0;
  let frames = 0;
  let done: (() => void) | null = null;

  const onFrame = (socket: LeanSocket, data: Buffer) => {
    if (!watch) return;
    const at = process.hrtime.bigint();
    const isSync = data.subarray(0, SYNC_PREFIX.length).toString() === SYNC_PREFIX;
    const matches = watch.kind === 'marker' ? !isSync && data.toString().includes(watch.marker) : isSync;
    if (!matches) return;
    if (watch.kind === 'syncWith') {
      const head = data.subarray(0, watch.prefix).toString();
      if (!watch.markers.every((marker) => head.includes(marker))) return void frames++;
    }
    frames++;
    if (first === 0n) first = at;
    const left = awaiting.get(socket);
    if (left === undefined) return;
    if (left > 1) return void awaiting.set(socket, left - 1);
    awaiting.delete(socket);
    complete++;
    last = at;
    if (awaiting.size === 0) done?.();
  };

  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from(
        { length: Math.min(50, count - i) },
        () =>
          new Promise<void>((resolve, reject) => {
            const socket = new LeanSocket(url, headers, deflate);
            socket.once('message', () => {
              sockets.push(socket);
              socket.on('message', (data: Buffer) => onFrame(socket, data));
              resolve();
            });
            socket.once('error', reject);
            // After the handshake an error (a frame it could not read) is counted with the closes.
            socket.on('error', (error) => {
              const key = `error: ${error.message}`;
              closes[key] = (closes[key] ?? 0) + 1;
            });
            socket.on('close', (code) => {
              closes[code] = (closes[code] ?? 0) + 1;
              if (awaiting.delete(socket) && awaiting.size === 0) done?.();
            });
          }),
      ),
    );
  }

  process.on('message', ({ id, command }: { id: number; command: Command }) => {
    const reply = (value: unknown) => process.send!({ id, reply: value });
    switch (command.op) {
      case 'arm': {
        watch = command.watch;
        const each = watch.kind === 'syncs' ? watch.count : 1;
        awaiting = new Map(sockets.filter((s) => s.open).map((s) => [s, each]));
        first = last = 0n;
        complete = frames = 0;
        return reply(null);
      }
      case 'result': {
        const finish = () => {
          clearTimeout(timer);
          done = null;
          watch = null;
          reply({
            first: String(first),
            last: String(last),
            complete,
            open: sockets.filter((s) => s.open).length,
            frames,
          });
        };
        const timer = setTimeout(finish, command.timeoutMs);
        if (awaiting.size === 0) return finish();
        done = finish;
        return;
      }
      case 'stats':
        return reply({ open: sockets.filter((s) => s.open).length, closes, extensions: sockets[0]?.extensions ?? '' });
    }
  });
  process.on('SIGTERM', () => {
    for (const socket of sockets) socket.terminate();
    process.exit(0);
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ ready: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: Error) => {
    process.send?.({ error: error.message });
    process.exit(1);
  });
}
