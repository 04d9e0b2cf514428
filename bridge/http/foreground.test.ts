// The bridge's requests in flight as background work sees them, on a real fastify server: a plain request is
// counted from arrival until its response closes (answered or cut), a background route and an upgrade are not.
import Fastify, { type FastifyInstance } from 'fastify';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Foreground } from './foreground.js';
import { until } from '../../test/helpers/poll.js';

let app: FastifyInstance;
afterEach(async () => {
  await app.close();
});

/** A server whose GET /slow answers when `release` is called; /sweep is a background route. */
async function server(foreground: Foreground) {
  app = Fastify({ forceCloseConnections: true });
  foreground.install(app);
  const held: Array<() => void> = [];
  app.get('/slow', (_request, reply) => void held.push(() => void reply.send({ ok: true })));
  app.post(
    '/sweep',
    { config: { background: true } },
    (_request, reply) => void held.push(() => void reply.send({ ok: true })),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const arrived = (count: number) => until(() => held.length >= count, `${count} requests held`, 10_000, 5);
  return { port, held, arrived };
}

function request(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): { done: Promise<number>; cut(): void } {
  const outgoing = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false });
  const done = new Promise<number>((resolve) => {
    outgoing.on('response', (response) => response.resume().on('end', () => resolve(response.statusCode ?? 0)));
    outgoing.on('error', () => resolve(0));
  });
  outgoing.end();
  return { done, cut: () => outgoing.destroy() };
}

const settledWithin = async (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe('Foreground', () => {
  it('whenIdle waits for a request in flight to be answered, and for no longer than asked', async () => {
    const foreground = new Foreground();
    const { port, held, arrived } = await server(foreground);
    expect(foreground.activeWithin(60_000)).toBe(false);
    await expect(settledWithin(foreground.whenIdle(60_000), 50)).resolves.toBe(true);
    const slow = request(port, 'GET', '/slow');
    await arrived(1);
    expect(foreground.activeWithin(60_000)).toBe(true);
    const idle = foreground.whenIdle(60_000);
    await expect(settledWithin(idle, 100)).resolves.toBe(false);
    held[0]!();
    expect(await slow.done).toBe(200);
    await expect(settledWithin(idle, 1000)).resolves.toBe(true);
    // Under a request that stays in flight, the wait ends at its bound.
    const again = request(port, 'GET', '/slow');
    await arrived(2);
    await expect(settledWithin(foreground.whenIdle(10), 1000)).resolves.toBe(true);
    held[1]!();
    await again.done;
  });

  it('a request cut by its client stops counting; background routes and upgrades never count', async () => {
    const foreground = new Foreground();
    const { port, held, arrived } = await server(foreground);
    const cut = request(port, 'GET', '/slow');
    await arrived(1);
    const idle = foreground.whenIdle(60_000);
    cut.cut();
    await expect(settledWithin(idle, 1000)).resolves.toBe(true);
    const sweep = request(port, 'POST', '/sweep');
    await arrived(2);
    const upgrade = request(port, 'GET', '/slow', { connection: 'upgrade', upgrade: 'websocket' });
    await arrived(3);
    await expect(settledWithin(foreground.whenIdle(60_000), 100)).resolves.toBe(true);
    held[1]!();
    held[2]!();
    expect(await sweep.done).toBe(200);
    upgrade.cut();
  });
});
