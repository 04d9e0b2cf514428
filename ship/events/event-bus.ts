// Fans workspace changes out to the ship's event subscribers. Stamps each event with the ship and time;
// delivery (and its bounds) belongs to each subscription.
import type { WorkspaceEvent, WorkspaceEventType, WorkspaceSummary } from '../../protocol/index.js';

export type EventListener = (event: WorkspaceEvent) => void;

export class EventBus {
  private readonly listeners = new Set<EventListener>();

  constructor(private readonly ship: string, private readonly now: () => Date = () => new Date()) {}

  publish(type: WorkspaceEventType, workspace: WorkspaceSummary): void {
    const event: WorkspaceEvent = { type, ship: this.ship, at: this.now().toISOString(), workspace };
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
