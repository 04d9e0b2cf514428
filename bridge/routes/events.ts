// WS /events on the bridge: the aggregate stream (read-only; what a client sends is ignored).
import type { FastifyInstance } from 'fastify';
import type { EventHub } from '../events/event-hub.js';
import type { UserSockets } from '../auth/user-sockets.js';
import { SHOWN_WEBSOCKET_ROUTE, webSocketAnswers } from '../../server/route-responses.js';

export function eventRoutes(hub: EventHub, sockets: UserSockets) {
  return async (app: FastifyInstance) => {
    const schema = {
      response: webSocketAnswers(
        'Upgraded (credential: `?ticket=` from POST /auth/ws-ticket): an aggregate `sync` frame, then BridgeWorkspaceEvent frames (protocol/bridge.ts, docs/events.md).',
      ),
    };
    app.get('/events', { websocket: true, schema, config: SHOWN_WEBSOCKET_ROUTE }, (socket, request) => {
      sockets.track(request.principal, socket);
      hub.add(socket);
    });
  };
}
