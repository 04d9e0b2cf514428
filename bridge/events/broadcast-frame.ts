// A frame of the bridge's `/events` broadcast, encoded once, and the adapter that writes it to one
// subscriber's socket. A large frame (protocol/websocket-compression.ts decides which) is compressed once per
// broadcast and the same compressed bytes are written to every subscriber that negotiated
// permessage-deflate, instead of `ws` deflating it again on each socket: per socket, an aggregate `sync` to
// every subscriber cost the bridge seconds of CPU in zlib per ship reconnect, and each socket's zlib stream
// its own memory (bench/fleet.ts, issue #18; the figures in bench/RESULTS.md).
//
// Why the shared bytes are valid: a socket that takes them is never compressed through `ws`, so every
// compressed message it gets is a whole deflate stream of its own, flushed and trailer-stripped as RFC 7692
// §7.2.1 says. A server may always choose not to refer to earlier messages (context takeover is permitted,
// never required, §7.1.1.1); the window the client keeps is then never used. Only sockets with the default
// 15-bit server window share: one that negotiated `server_max_window_bits` below it is compressed by `ws`
// itself, and only ever by it (its deflate history has to match the client's window).
//
// Every other frame is built once per broadcast as well, uncompressed, and the same header and payload are
// written to every socket `ws` never compresses for (no deflate, or deflate with the default window): one
// frame build for 500 subscribers instead of 500 in `ws`'s `send`.
//
// `ws` has no public way to send pre-built bytes. The frame is written through the socket's Sender,
// built with `Sender.frame` (ws 8.23.0, pinned in package.json); the Sender only queues frames while it is
// compressing or reading a blob, which a sharing socket never does. broadcast-frame.test.ts checks real `ws`
// clients decode the mix of shared, plain and per-socket frames.
//
// An aggregate `sync` is made of segments (frameOfSegments): runs of its JSON that the registry keeps between
// broadcasts (bridge/ships/aggregate-json.ts), each with its own compressed bytes, so a ship's sync re-encodes
// and re-compresses only the runs its workspaces are in. Each segment is compressed by a deflate stream of its
// own and sync-flushed, so it ends on a byte boundary and refers to nothing before it: the segments' bytes
// one after another are one valid deflate stream of the whole text (RFC 1951 blocks need not be final; a
// back-reference only ever reaches inside its own segment). Runs compress to a little more than the whole
// text in one stream (bridge/ships/aggregate-json.ts says how much).
import { deflateRawSync, constants } from 'node:zlib';
import * as wsModule from 'ws';
import WebSocket from 'ws';
import { worthCompressing } from '../../protocol/websocket-compression.js';
import type { DeliverySocket } from './subscriber-delivery.js';

/**
 * zlib level 1: at 10,000 workspaces 2.3 ms and 112 KB, against 10 ms and 85 KB at ws's default level 6; it
 * runs on the event loop once per broadcast.
 */
const SHARED_DEFLATE_LEVEL = 1;

/** ws's frame builder (exported by the package, not typed). */
const wsFrame = (wsModule as unknown as { Sender: { frame(data: Buffer, options: object): Buffer[] } }).Sender.frame;

export interface EventFrame {
  /** The frame's UTF-8 text (made on first use for a frame of segments). */
  readonly data: Buffer;
  /** Its length in bytes. */
  readonly length: number;
  /** Whether it is large enough to be worth compressing for a subscriber that negotiated deflate. */
  readonly compress: boolean;
  /** The compressed frame (header and payload), made on first use and written to every sharing subscriber. */
  deflated(): readonly Buffer[];
  /** The uncompressed frame (header and payload), made on first use and written to every subscriber `ws` never compresses for. */
  plain(): readonly Buffer[];
}

/** The raw deflate of `data` by a stream of its own, sync-flushed (ending with 00 00 ff ff). */
function deflatedRaw(data: Buffer): Buffer {
  return deflateRawSync(data, { level: SHARED_DEFLATE_LEVEL, finishFlush: constants.Z_SYNC_FLUSH });
}

/** The uncompressed text frame of `data`. */
function plainFrame(data: Buffer): Buffer[] {
  return wsFrame(data, { fin: true, rsv1: false, opcode: 0x01, mask: false, readOnly: true });
}

/** The permessage-deflate text frame of a sync-flushed raw deflate stream. */
function compressedFrame(flushed: Buffer): Buffer[] {
  // RFC 7692 §7.2.1: the empty stored block's 0x00 0x00 0xff 0xff is removed from the tail.
  const payload = flushed.subarray(0, flushed.length - 4);
  return wsFrame(payload, { fin: true, rsv1: true, opcode: 0x01, mask: false, readOnly: true });
}

/** The frame of one text: a frame of one segment. */
export function frameOf(text: string): EventFrame {
  return frameOfSegments([segmentOf(text)]);
}

/** A run of a frame's text kept between broadcasts, with its compressed bytes made on first use. */
export interface FrameSegment {
  readonly text: string;
  readonly data: Buffer;
  /** Its raw deflate by a stream of its own, sync-flushed. */
  deflated(): Buffer;
}

export function segmentOf(text: string): FrameSegment {
  const data = Buffer.from(text);
  let deflated: Buffer | null = null;
  return {
    text,
    data,
    deflated() {
      deflated ??= deflatedRaw(data);
      return deflated;
    },
  };
}

/** The buffers one after another; one buffer as it is (Buffer.concat copies even one). */
const joined = (buffers: Buffer[]): Buffer => (buffers.length === 1 ? buffers[0]! : Buffer.concat(buffers));

/** The frame whose text is the segments' texts one after another (the same frame as `frameOf` of it). */
export function frameOfSegments(segments: readonly FrameSegment[]): EventFrame {
  let length = 0;
  let chars = 0;
  for (const segment of segments) {
    length += segment.data.length;
    chars += segment.text.length;
  }
  let data: Buffer | null = null;
  let deflated: Buffer[] | null = null;
  let plain: Buffer[] | null = null;
  return {
    get data() {
      data ??= joined(segments.map((segment) => segment.data));
      return data;
    },
    length,
    compress: worthCompressing(chars),
    deflated() {
      deflated ??= compressedFrame(joined(segments.map((segment) => segment.deflated())));
      return deflated;
    },
    plain() {
      plain ??= plainFrame(this.data);
      return plain;
    },
  };
}

interface WsInternals {
  _extensions?: Record<string, { params: { server_max_window_bits?: number } } | undefined>;
  _sender?: { sendFrame(list: readonly Buffer[], callback?: (error?: Error) => void): void };
}

/** How `ws` may treat a subscriber's socket: no deflate, deflate with the default server window, or a smaller one. */
function deflateOf(socket: WebSocket): 'none' | 'shared' | 'own' {
  const deflate = (socket as unknown as WsInternals)._extensions?.['permessage-deflate'];
  if (!deflate) return 'none';
  const bits = deflate.params.server_max_window_bits;
  return bits === undefined || bits === 15 ? 'shared' : 'own';
}

const byteLength = (list: readonly Buffer[]) => list.reduce((sum, buffer) => sum + buffer.length, 0);

/**
 * The delivery side of one subscriber's socket. Every frame of a broadcast is built once and the same bytes
 * are written to each socket `ws` never compresses for (no deflate, or deflate with the default window):
 * the compressed copy of a large frame where deflate was negotiated, else the plain one. Only a socket with
 * a smaller window goes through `ws`'s own `send` (which compresses large frames itself).
 */
export function deliverySocket(socket: WebSocket): DeliverySocket {
  const deflate = deflateOf(socket);
  const sender = (socket as unknown as WsInternals)._sender;
  return {
    get bufferedAmount() {
      return socket.bufferedAmount;
    },
    close: (code, reason) => socket.close(code, reason),
    send(frame, callback) {
      if (deflate === 'own' || !sender) {
        socket.send(frame.data, { binary: false, compress: frame.compress }, callback);
        return frame.length;
      }
      if (socket.readyState !== WebSocket.OPEN) {
        callback?.(new Error('the subscriber socket is not open'));
        return 0;
      }
      const list = deflate === 'shared' && frame.compress ? frame.deflated() : frame.plain();
      sender.sendFrame(list, callback);
      return byteLength(list);
    },
  };
}
