// WS /events: the ship's FleetEvent stream. Read-only: whatever a client sends is ignored.
import type { FastifyInstance } from 'fastify';
import type { SyncEvent } from '../../protocol/index.js';
import { SHOWN_WEBSOCKET_ROUTE, webSocketAnswers } from '../../server/route-responses.js';
import type { EventBus } from '../events/event-bus.js';
import { EventSubscription } from '../events/subscription.js';
import type { WorkspaceService } from '../workspaces/service.js';

/** `beforeSnapshot` lets tests hold the snapshot open while events are raised (the buffered replay). */
export function eventRoutes(
  service: WorkspaceService,
  bus: EventBus,
  shipName: string,
  beforeSnapshot?: () => Promise<void>,
) {
  return async (app: FastifyInstance) => {
    const schema = {
      response: webSocketAnswers(
        'Upgraded: a `sync` frame, then one FleetEvent frame per change (protocol/events.ts, docs/events.md).',
      ),
    };
    app.get('/events', { websocket: true, schema, config: SHOWN_WEBSOCKET_ROUTE }, (socket) => {
      const subscription = new EventSubscription(socket);
      const unsubscribe = bus.subscribe((_event, frame) => subscription.deliver(frame));
      socket.on('close', unsubscribe);
      socket.on('error', unsubscribe);
      const snapshot = async (): Promise<SyncEvent> => {
        await beforeSnapshot?.();
        return { type: 'sync', ship: shipName, at: new Date().toISOString(), workspaces: await service.list() };
      };
      void subscription.open(snapshot);
    });
  };
}
