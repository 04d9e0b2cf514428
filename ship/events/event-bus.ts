// Fans workspace changes out to the ship's event subscribers. Stamps each event with the ship and time and
// encodes it once (its JSON, its UTF-8 bytes, whether it is worth compressing), so 500 subscribers cost one
// JSON.stringify and one encoding, not 500 of each; delivery (and its bounds) belongs to each subscription.
import type { DeactivationReason, WorkspaceEvent, WorkspaceEventType, WorkspaceSummary } from '../../protocol/index.js';
import { compressionFor } from '../../protocol/websocket-compression.js';

/** A frame's text as every subscriber's socket is handed it. */
export interface EncodedFrame {
  readonly data: Buffer;
  /** `ws` send options: a text frame, compressed when large enough to pay (protocol/websocket-compression.ts). */
  readonly options: { readonly compress: boolean; readonly binary: false };
}

export function encodeFrame(text: string): EncodedFrame {
  return { data: Buffer.from(text), options: { compress: compressionFor(text).compress, binary: false } };
}

export type EventListener = (event: WorkspaceEvent, frame: EncodedFrame) => void;

export class EventBus {
  private readonly listeners = new Set<EventListener>();

  constructor(
    private readonly ship: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  publish(type: WorkspaceEventType, workspace: WorkspaceSummary, reason?: DeactivationReason): void {
    const event: WorkspaceEvent = {
      type,
      ship: this.ship,
      at: this.now().toISOString(),
      workspace,
      ...(reason ? { reason } : {}),
    };
    if (this.listeners.size === 0) return;
    const frame = encodeFrame(JSON.stringify(event));
    for (const listener of this.listeners) listener(event, frame);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
