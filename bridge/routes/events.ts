// WS /events on the bridge: the aggregate stream (read-only; what a client sends is ignored).
import type { FastifyInstance } from 'fastify';
import type { EventHub } from '../events/event-hub.js';

export function eventRoutes(hub: EventHub) {
  return async (app: FastifyInstance) => {
    app.get('/events', { websocket: true }, (socket) => hub.add(socket));
  };
}
