// One event subscriber's delivery: a `sync` snapshot first, events raised while it is being built held back
// and replayed right after it (at most 256 KiB of them, else close 1009), and a slow reader closed (1013)
// once more than 1 MiB waits in its socket, so no subscriber can grow the ship's memory without bound.
// Only large frames (a `sync` of many workspaces) are compressed when the subscriber negotiated deflate
// (protocol/websocket-compression.ts).
import { EVENT_CLOSE, EVENT_PENDING_BUFFER_LIMIT, type SyncEvent } from '../../protocol/index.js';
import { encodeFrame, type EncodedFrame } from './event-bus.js';

export const SUBSCRIBER_BUFFER_LIMIT = 1024 * 1024;

export interface SubscriberSocket {
  /** A text frame; `options.compress`: whether it is worth compressing (ignored without permessage-deflate). */
  send(data: Buffer, options: EncodedFrame['options']): void;
  close(code: number, reason: string): void;
  /** Bytes queued in the socket and not yet written. */
  readonly bufferedAmount: number;
}

export class EventSubscription {
  private pending: EncodedFrame[] | null = [];
  private pendingBytes = 0;
  private closed = false;

  constructor(private readonly socket: SubscriberSocket) {}

  /** Builds the snapshot and sends it, then everything held back meanwhile. */
  async open(snapshot: () => Promise<SyncEvent>): Promise<void> {
    let sync: SyncEvent;
    try {
      sync = await snapshot();
    } catch {
      this.close(EVENT_CLOSE.snapshotFailed);
      return;
    }
    if (this.closed) return;
    const held = this.pending ?? [];
    this.pending = null;
    this.send(encodeFrame(JSON.stringify(sync)));
    for (const frame of held) this.send(frame);
  }

  /** One change event, as the bus encoded it once for every subscriber. */
  deliver(frame: EncodedFrame): void {
    if (this.closed) return;
    if (this.pending) {
      this.pending.push(frame);
      this.pendingBytes += frame.data.length;
      if (this.pendingBytes > EVENT_PENDING_BUFFER_LIMIT) this.close(EVENT_CLOSE.bufferLimit);
      return;
    }
    this.send(frame);
  }

  private send(frame: EncodedFrame): void {
    if (this.closed) return;
    if (this.socket.bufferedAmount > SUBSCRIBER_BUFFER_LIMIT) {
      this.close(EVENT_CLOSE.slowConsumer);
      return;
    }
    this.socket.send(frame.data, frame.options);
  }

  private close(how: { code: number; reason: string }): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = null;
    this.socket.close(how.code, how.reason);
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
