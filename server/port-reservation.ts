// A server's port, held from the first step of its start (issue #15 item 3). `svc ship` and `svc bridge`
// bind their port before anything with a side effect (the ship's tmux server and fleet directory, the
// bridge's data directory, store and first admin), so a port in use fails the start at once with one clear
// line and leaves nothing behind. The holder gives the port up only right before fastify listens on it (the
// routes are registered by then, so the gap is a few event-loop turns); connections arriving meanwhile are
// reset, as a client of a server that is still starting would expect to be refused.
//
// Node only: server/ holds what the servers share; protocol/ stays browser-safe.
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { messageOf } from '../protocol/index.js';

export interface PortReservation {
  /** Frees the port for the real server. Idempotent. */
  release(): Promise<void>;
}

/** The start-up error for a failed listen: the address, what went wrong in words, and what to do (`flag` chooses the port). */
export function listenFailure(error: unknown, host: string, port: number, flag = '--port'): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `cannot listen on ${host}:${port}`;
  if (code === 'EADDRINUSE')
    return new Error(`${where}: the port is in use; stop what listens there, or choose another with ${flag}`);
  if (code === 'EACCES')
    return new Error(`${where}: permission denied (ports below 1024 need privileges); choose another with ${flag}`);
  if (code === 'EADDRNOTAVAIL') return new Error(`${where}: the address is not one of this host's; check --host`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new Error(`${where}: the host name does not resolve; check --host`);
  return new Error(`${where}: ${messageOf(error)}`);
}

/**
 * Binds `host:port` the way the server will (one address: the first `host` resolves to, as fastify's main
 * listener does) and holds it; throws listenFailure's error when it cannot. Port 0 needs no reservation:
 * the server gets a free port from the system when it listens.
 */
export async function reservePort(port: number, host: string): Promise<PortReservation> {
  if (port === 0) return { release: async () => undefined };
  const holder = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    holder.once('error', (error) => reject(listenFailure(error, host, port)));
    holder.listen({ port, host }, () => resolve());
  });
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= new Promise<void>((resolve) => holder.close(() => resolve()));
      return released;
    },
  };
}

/**
 * Hands the reserved port to fastify: the routes are registered first (`ready`), so the port is free for
 * only a few event-loop turns. Answers the port bound (the one asked for, or the system's pick for 0).
 */
export async function listenOnReservation(
  app: FastifyInstance,
  reservation: PortReservation,
  host: string,
  port: number,
): Promise<number> {
  await app.ready();
  await reservation.release();
  try {
    await app.listen({ port, host });
  } catch (error) {
    throw listenFailure(error, host, port);
  }
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : port;
}
