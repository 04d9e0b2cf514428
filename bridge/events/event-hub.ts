// The bridge's event stream (`WS /events`): an aggregate `sync` from the ownership index on connect, then
// every accepted ship event with `ship` (and `ephemeral`) on the workspace and no top-level `ship`. Each
// subscriber has its own bound: more than 256 KiB waiting in its socket closes it with 1009, so a slow
// reader never slows the others. Only large frames (a fleet's `sync`) are compressed for a subscriber that
// negotiated deflate: a change is one frame written 500 times, not 500 deflate calls
// (protocol/websocket-compression.ts).
import type { WebSocket } from 'ws';
import {
  EVENT_PENDING_BUFFER_LIMIT,
  type BridgeWorkspaceSummary,
  type WorkspaceEventType,
} from '../../protocol/index.js';
import { compressionFor } from '../../protocol/websocket-compression.js';

export class EventHub {
  private readonly subscribers = new Set<WebSocket>();

  constructor(private readonly snapshot: () => BridgeWorkspaceSummary[]) {}

  add(socket: WebSocket): void {
    this.subscribers.add(socket);
    socket.on('close', () => this.subscribers.delete(socket));
    socket.on('error', () => this.subscribers.delete(socket));
    this.send(socket, this.syncText());
  }

  private syncText(): string {
    return JSON.stringify({ type: 'sync', at: new Date().toISOString(), workspaces: this.snapshot() });
  }

  /** A fresh aggregate snapshot to everyone (a ship's sync or removal, registration, deregistration). */
  publishSync(): void {
    if (this.subscribers.size === 0) return;
    this.broadcast(this.syncText());
  }

  publish(type: WorkspaceEventType, workspace: BridgeWorkspaceSummary): void {
    if (this.subscribers.size === 0) return;
    this.broadcast(JSON.stringify({ type, at: new Date().toISOString(), workspace }));
  }

  private broadcast(text: string): void {
    const options = compressionFor(text);
    for (const socket of this.subscribers) this.send(socket, text, options);
  }

  private send(socket: WebSocket, text: string, options = compressionFor(text)): void {
    if (socket.bufferedAmount > EVENT_PENDING_BUFFER_LIMIT) {
      this.subscribers.delete(socket);
      socket.close(1009, 'Terminal buffer limit exceeded');
      return;
    }
    socket.send(text, options);
  }

  get size(): number {
    return this.subscribers.size;
  }

  closeAll(): void {
    for (const socket of this.subscribers) socket.close(1001, 'bridge shutting down');
    this.subscribers.clear();
  }
}
