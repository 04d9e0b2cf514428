// Delivery to one bridge `/events` subscriber, with its bound. Events are sent as they come; more than
// 256 KiB waiting in the socket closes it with 1009, so a slow reader never slows the others. An aggregate
// `sync` is a whole snapshot and supersedes everything before it, so it is treated as such:
//   - the bytes of the latest `sync` still being written do not count against the bound (a large fleet's
//     `sync` is far past it: counted, it closed every subscriber that got an event before its snapshot had
//     left);
//   - a `sync` published while the previous one is still being written waits, replacing any older one
//     waiting, with the events published after it (256 KiB of those at most, else 1009), and goes out once
//     the previous one is written. A storm of ship reconnects then costs a subscriber one snapshot per
//     write, not one per ship (bench/fleet.ts: 20 ships reconnecting closed all 500 subscribers).
// A subscriber that keeps up gets exactly the frames, in the order, it got before. Frames may wait in an
// inbox first (`queue`, then `flush`: the hub hands a broadcast to every subscriber at once and writes it
// out over several turns of the event loop, event-hub.ts); the inbox keeps their order. Pure: the socket is
// anything with `send`, `close` and `bufferedAmount`.
import { EVENT_PENDING_BUFFER_LIMIT } from '../../protocol/index.js';
import type { EventFrame } from './broadcast-frame.js';

export interface DeliverySocket {
  /** Bytes handed to the socket and not yet written out. */
  readonly bufferedAmount: number;
  /** `callback` runs once the frame is written out (or the socket failed). Answers the bytes handed over. */
  send(frame: EventFrame, callback?: (error?: Error) => void): number;
  close(code: number, reason: string): void;
}

export class SubscriberDelivery {
  /** Bytes of the `sync` handed to the socket and not yet written out (0: none). */
  private syncWriting = 0;
  /** The newest `sync` waiting for that one, and the events published after it. */
  private owed: { sync: EventFrame; events: EventFrame[]; bytes: number } | null = null;
  private closed = false;
  /** Frames handed over and not yet written to the socket, in order. */
  private readonly inbox: Array<{ sync: boolean; frame: EventFrame }> = [];

  /** `onClosed` runs when the bound closes the socket. */
  constructor(
    private readonly socket: DeliverySocket,
    private readonly onClosed: () => void,
  ) {}

  /** Holds a broadcast frame until `flush`. */
  queue(frame: EventFrame, sync: boolean): void {
    if (!this.closed) this.inbox.push({ sync, frame });
  }

  /** Writes every frame of the inbox, in order; answers the bytes handed to the socket. */
  flush(): number {
    let bytes = 0;
    for (const { sync, frame } of this.inbox.splice(0)) bytes += sync ? this.sync(frame) : this.event(frame);
    return bytes;
  }

  /** Answers the bytes handed to the socket (0 when it waits or the subscriber is closed). */
  sync(frame: EventFrame): number {
    if (this.closed) return 0;
    if (this.syncWriting) {
      this.owed = { sync: frame, events: [], bytes: 0 };
      return 0;
    }
    if (this.overBound(0)) return 0;
    this.syncWriting = frame.length;
    const handed = this.socket.send(frame, (error) => this.written(error));
    // What the socket holds for this sync is what it was handed: the compressed bytes for a subscriber that
    // shares a broadcast's compressed copy, so the exemption never covers more than the sync itself.
    if (this.syncWriting) this.syncWriting = handed;
    return handed;
  }

  /** Answers the bytes handed to the socket (0 when it waits or the subscriber is closed). */
  event(frame: EventFrame): number {
    if (this.closed) return 0;
    if (this.owed) {
      this.owed.events.push(frame);
      this.owed.bytes += frame.length;
      if (this.owed.bytes > EVENT_PENDING_BUFFER_LIMIT) this.close();
      return 0;
    }
    if (this.overBound(this.syncWriting)) return 0;
    return this.socket.send(frame);
  }

  private written(error?: Error): void {
    this.syncWriting = 0;
    const owed = this.owed;
    this.owed = null;
    // A failed write means a dead socket: its close removes the subscriber.
    if (!owed || error) return;
    this.sync(owed.sync);
    for (const event of owed.events) this.event(event);
  }

  /** Closes the socket when more than the bound waits in it beyond `exempt` bytes (a snapshot being written). */
  private overBound(exempt: number): boolean {
    if (this.socket.bufferedAmount - exempt <= EVENT_PENDING_BUFFER_LIMIT) return false;
    this.close();
    return true;
  }

  private close(): void {
    this.closed = true;
    this.owed = null;
    this.inbox.length = 0;
    this.socket.close(1009, 'Terminal buffer limit exceeded');
    this.onClosed();
  }
}
