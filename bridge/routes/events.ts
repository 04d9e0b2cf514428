// WS /events on the bridge: the aggregate stream (read-only; what a client sends is ignored).
import type { FastifyInstance } from 'fastify';
import type { EventHub } from '../events/event-hub.js';
import type { UserSockets } from '../auth/user-sockets.js';

export function eventRoutes(hub: EventHub, sockets: UserSockets) {
  return async (app: FastifyInstance) => {
    app.get('/events', { websocket: true }, (socket, request) => {
      sockets.track(request.principal, socket);
      hub.add(socket);
    });
  };
}
