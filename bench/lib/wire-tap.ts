// What a WebSocket client actually received on the wire: a `createConnection` for `ws` clients that sees every
// byte the server sends, skips the HTTP upgrade answer and parses server frame headers (unmasked), so a
// benchmark or test learns each message's size on the wire and whether it was sent compressed (RSV1). Only
// headers are kept; payloads are counted and skipped.
import net from 'node:net';

export interface WireMessage {
  /** 1 text, 2 binary (control frames are not recorded). */
  opcode: number;
  /** RSV1 on the first frame: the message was sent with permessage-deflate. */
  compressed: boolean;
  /** Frame headers and payloads of every frame of the message, as received. */
  wireBytes: number;
}

export class WireTap {
  readonly messages: WireMessage[] = [];
  private headerDone = false;
  private pending: Buffer = Buffer.alloc(0);
  private skip = 0;
  private current: WireMessage | null = null;
  /** Bytes that arrived with the upgrade answer, until they are seen again or more data comes. */
  private head: Buffer | null = null;

  /** Pass as `createConnection` in `ws` client options. */
  readonly connect = ((options: net.NetConnectOpts & { socketPath?: string }) => {
    // As ws's own netConnect: `path` holds the request path, which net would take for an IPC socket.
    const socket = net.connect({ ...options, path: options.socketPath } as net.NetConnectOpts);
    socket.on('data', (chunk: Buffer) => this.take(chunk));
    return socket;
  }) as unknown as typeof net.createConnection;

  /** Bytes of the last `count` messages together. */
  lastBytes(count = 1): number {
    return this.messages.slice(-count).reduce((sum, message) => sum + message.wireBytes, 0);
  }

  private take(chunk: Buffer): void {
    if (this.head) {
      // ws puts the bytes that came with the upgrade answer back into the socket (`unshift`), so they are
      // seen twice: once here, once after the answer. Parsed once, whichever way they come.
      const head = this.head;
      this.head = null;
      if (!(chunk.length >= head.length && chunk.subarray(0, head.length).equals(head)))
        chunk = Buffer.concat([head, chunk]);
    }
    let data: Buffer = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    if (!this.headerDone) {
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) {
        this.pending = data;
        return;
      }
      this.headerDone = true;
      if (end + 4 < data.length) this.head = Buffer.from(data.subarray(end + 4));
      return;
    }
    while (data.length) {
      if (this.skip) {
        const taken = Math.min(this.skip, data.length);
        this.skip -= taken;
        data = data.subarray(taken);
        continue;
      }
      const parsed = frameHeader(data);
      if (!parsed) {
        this.pending = Buffer.from(data);
        return;
      }
      const { fin, rsv1, opcode, headerBytes, payloadBytes } = parsed;
      // Control frames (ping, pong, close) may arrive between a message's fragments and are not counted.
      if (opcode < 8) {
        if (opcode !== 0) this.current = { opcode, compressed: rsv1, wireBytes: 0 };
        if (this.current) this.current.wireBytes += headerBytes + payloadBytes;
        if (fin && this.current) {
          this.messages.push(this.current);
          this.current = null;
        }
      }
      this.skip = payloadBytes;
      data = data.subarray(headerBytes);
    }
  }
}

function frameHeader(
  data: Buffer,
): { fin: boolean; rsv1: boolean; opcode: number; headerBytes: number; payloadBytes: number } | null {
  if (data.length < 2) return null;
  const first = data[0]!;
  const second = data[1]!;
  const masked = (second & 0x80) !== 0;
  let length = second & 0x7f;
  let headerBytes = 2;
  if (length === 126) {
    if (data.length < 4) return null;
    length = data.readUInt16BE(2);
    headerBytes = 4;
  } else if (length === 127) {
    if (data.length < 10) return null;
    length = Number(data.readBigUInt64BE(2));
    headerBytes = 10;
  }
  if (masked) headerBytes += 4;
  if (data.length < headerBytes) return null;
  return {
    fin: (first & 0x80) !== 0,
    rsv1: (first & 0x40) !== 0,
    opcode: first & 0x0f,
    headerBytes,
    payloadBytes: length,
  };
}
