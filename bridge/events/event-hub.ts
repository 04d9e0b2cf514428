// The bridge's event stream (`WS /events`): an aggregate `sync` from the ownership index on connect, then
// every accepted ship event with `ship` (and `ephemeral`) on the workspace and no top-level `ship`. Each
// subscriber has its own bound (subscriber-delivery.ts: more than 256 KiB of events waiting closes it with
// 1009; a newer `sync` replaces one still waiting). A broadcast is encoded once and the same bytes are
// handed to every socket (one encoding per subscriber of a large fleet's `sync` held the event loop too
// long, bench/fleet.ts). Only large frames (a fleet's `sync`) are compressed for a subscriber that
// negotiated deflate: a change is one frame written 500 times, not 500 deflate calls
// (protocol/websocket-compression.ts); a large frame is compressed once per broadcast and the same bytes go
// to every subscriber that negotiated deflate (broadcast-frame.ts), from the segments of it the registry keeps
// between broadcasts (only the runs a ship's sync changed are encoded and compressed again).
// Aggregate syncs are spaced in time (SYNC_SPACING_MS): the first goes at once, one asked for within the
// spacing after it goes at the end of the spacing, built then, and stands for every one asked for meanwhile.
// A storm of 20 ship reconnects is then a handful of aggregates to write to every subscriber, not 20
// (bench/fleet.ts; docs/DECISIONS.md "Fleet scale"). Events are never held back by the spacing: every frame
// is built from the index when it is published, so a subscriber applying frames in order always holds the
// latest state it was sent.
// A broadcast is handed to every subscriber at once (each keeps it in order in its inbox) and written out in
// turns of the event loop of at most SLICE_BYTES or SLICE_SUBSCRIBERS each, subscribers in the order they
// connected: writing an aggregate, or even one change, to hundreds of sockets is many system calls, and in
// one turn every routed call waited behind them (figures in bench/RESULTS.md).
import type { WebSocket } from 'ws';
import type {
  BridgeWorkspaceChange,
  BridgeWorkspaceSummary,
  DeactivationReason,
  WorkspaceEventType,
} from '../../protocol/index.js';
import {
  deliverySocket,
  frameOf,
  frameOfSegments,
  segmentOf,
  type EventFrame,
  type FrameSegment,
} from './broadcast-frame.js';
import { SubscriberDelivery } from './subscriber-delivery.js';

/** The end of every aggregate `sync`'s text, after its workspaces. */
const SYNC_END = segmentOf('}');

/** An aggregate sync asked for within this long after the last one waits for the end of it. */
export const SYNC_SPACING_MS = 100;

/** Bytes written to subscribers, or subscribers written to, per turn of the event loop before the rest waits for the next turn. */
export const SLICE_BYTES = 512 * 1024;
export const SLICE_SUBSCRIBERS = 100;

/** Told of each broadcast that reached subscribers and of each subscriber the bound closed (the bridge's metrics). */
export interface EventHubObserver {
  relayed(type: WorkspaceEventType | 'sync'): void;
  dropped(): void;
}

export class EventHub {
  private readonly subscribers = new Map<WebSocket, SubscriberDelivery>();
  private observer: EventHubObserver | null = null;
  /** Running from each aggregate sync sent for SYNC_SPACING_MS; `owed` when one was asked for meanwhile. */
  private spacing: NodeJS.Timeout | null = null;
  private owed = false;
  /** Subscribers with frames in their inbox, in the order they are written to. */
  private readonly waiting = new Set<SubscriberDelivery>();
  private writing: NodeJS.Immediate | null = null;

  /** `workspaces`: the JSON array of the aggregate's workspaces, as segments (registry.aggregateSegments). */
  constructor(private readonly workspaces: () => readonly FrameSegment[]) {}

  add(socket: WebSocket): void {
    const gone = () => {
      this.subscribers.delete(socket);
      this.waiting.delete(delivery);
    };
    const delivery = new SubscriberDelivery(deliverySocket(socket), () => {
      gone();
      this.observer?.dropped();
    });
    this.subscribers.set(socket, delivery);
    socket.on('close', gone);
    socket.on('error', gone);
    delivery.sync(this.syncFrame());
  }

  /** The same text as JSON.stringify of the whole event, with the workspaces' JSON already made. */
  private syncFrame(): EventFrame {
    const start = segmentOf(`{"type":"sync","at":"${new Date().toISOString()}","workspaces":`);
    return frameOfSegments([start, ...this.workspaces(), SYNC_END]);
  }

  /**
   * A fresh aggregate snapshot to everyone (a ship's sync or removal, registration, deregistration): now, or
   * at the end of the spacing after the last one.
   */
  publishSync(): void {
    if (this.subscribers.size === 0) return;
    if (this.spacing) {
      this.owed = true;
      return;
    }
    this.spacing = setTimeout(() => this.spaced(), SYNC_SPACING_MS);
    this.spacing.unref();
    this.observer?.relayed('sync');
    this.broadcast(this.syncFrame(), true);
  }

  private spaced(): void {
    this.spacing = null;
    if (!this.owed) return;
    this.owed = false;
    this.publishSync();
  }

  /** One change to everyone; `reason` as the ship gave it (a session that ended on its own). */
  publish(
    type: WorkspaceEventType,
    workspace: BridgeWorkspaceSummary,
    reason?: DeactivationReason,
    at = new Date().toISOString(),
  ): void {
    if (this.subscribers.size === 0) return;
    this.observer?.relayed(type);
    const change: BridgeWorkspaceChange = { type, at, workspace, ...(reason ? { reason } : {}) };
    this.broadcast(frameOf(JSON.stringify(change)), false);
  }

  /** Hands `frame` to every subscriber and writes the first slice now. */
  private broadcast(frame: EventFrame, sync: boolean): void {
    for (const delivery of this.subscribers.values()) {
      delivery.queue(frame, sync);
      this.waiting.add(delivery);
    }
    if (!this.writing) this.writeSlice();
  }

  private writeSlice(): void {
    this.writing = null;
    let bytes = 0;
    let written = 0;
    for (const delivery of this.waiting) {
      this.waiting.delete(delivery);
      bytes += delivery.flush();
      if (bytes >= SLICE_BYTES || ++written >= SLICE_SUBSCRIBERS) break;
    }
    if (this.waiting.size > 0) this.writing = setImmediate(() => this.writeSlice());
  }

  observe(observer: EventHubObserver): void {
    this.observer = observer;
  }

  get size(): number {
    return this.subscribers.size;
  }

  closeAll(): void {
    if (this.spacing) clearTimeout(this.spacing);
    this.spacing = null;
    this.owed = false;
    if (this.writing) clearImmediate(this.writing);
    this.writing = null;
    this.waiting.clear();
    for (const socket of this.subscribers.keys()) socket.close(1001, 'bridge shutting down');
    this.subscribers.clear();
  }
}
