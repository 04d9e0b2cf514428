// What both servers do for every WebSocket, in one place (docs/security.md H16): an address may park only a
// few dozen upgrades on the handshake (the first onRequest hook), an upgrade answered with an HTTP status
// has its socket ended (the HTTP server no longer tracks it, and it would hold close() open), and every
// accepted socket gets the heartbeat; messages are capped at WEBSOCKET_MAX_PAYLOAD, permessage-deflate is
// offered, and the server takes at most `maxConnections` connections.
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { keepAlive, PendingUpgrades, TOO_MANY_PENDING_UPGRADES, WEBSOCKET_MAX_PAYLOAD } from '../protocol/index.js';

/** Installs the pending-upgrade limit; call it before any other onRequest hook. */
export function limitPendingUpgrades(app: FastifyInstance, perAddress: number): PendingUpgrades {
  const pendingUpgrades = new PendingUpgrades(perAddress);
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.headers.upgrade || pendingUpgrades.admit(request.raw)) return done();
    void reply.code(429).header('retry-after', '1').send({ error: TOO_MANY_PENDING_UPGRADES });
  });
  return pendingUpgrades;
}

/** For a server's onResponse hook: ends the socket of an upgrade that was answered with an HTTP status. */
export function endAnsweredUpgrade(request: FastifyRequest): void {
  if (request.headers.upgrade && !request.raw.socket.destroyed) request.raw.socket.destroy();
}

/** Registers @fastify/websocket with the shared limits; `accepted` sees each socket (the metrics count it). */
export async function registerWebSockets(
  app: FastifyInstance,
  options: {
    pendingUpgrades: PendingUpgrades;
    heartbeatMs?: number;
    maxConnections: number;
    accepted?: (server: WebSocketServer) => void;
  },
): Promise<void> {
  await app.register(websocket, { options: { maxPayload: WEBSOCKET_MAX_PAYLOAD, perMessageDeflate: true } });
  app.websocketServer.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    options.pendingUpgrades.settle(request);
    keepAlive(socket, options.heartbeatMs);
  });
  options.accepted?.(app.websocketServer);
  app.server.maxConnections = options.maxConnections;
}
