// Slow and never-reading HTTP clients (docs/security.md H16) against a real ship and a real bridge: a client
// trickling its headers, one trickling its body and one that never reads its responses are each cut off
// at their limit, while a well-behaved client keeps being served. The limits are shortened for the test
// (production values: protocol/http-limits.ts); the mechanism under test is Node's own, as configured.
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { HTTP_LIMITS, PendingUpgrades, type HttpLimits } from '../../protocol/index.js';
import { CLONE_LIMITS } from '../../ship/workspaces/clone.js';
import { call, makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { insecureBridge } from '../helpers/bridge.js';

// One pending upgrade per address: every WebSocket here must stop counting once its handshake is done.
// Keep-alive far beyond the idle limit, so a socket closed well before it was closed by the idle limit
// however long a loaded machine takes to answer the pipelined requests first.
const limits: Partial<HttpLimits> = {
  headersTimeoutMs: 1000,
  requestTimeoutMs: 2000,
  idleSocketTimeoutMs: 1500,
  keepAliveTimeoutMs: 60_000,
  timeoutCheckIntervalMs: 100,
  pendingUpgradesPerAddress: 1,
};

let root: string;
let ship: TestShip;
let bridge: Bridge;

beforeAll(async () => {
  root = await makeTempRoot();
  ship = await startTestShip(root, { httpLimits: limits });
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
    httpLimits: limits,
  });
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await ship?.stop();
  await removeRoot(root);
});

interface RawClient {
  socket: Socket;
  received: () => string;
  closed: Promise<number>;
}

/** A raw TCP client; `closed` resolves with the milliseconds from connect to the server closing it. */
function rawClient(url: string): Promise<RawClient> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const started = Date.now();
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - started)));
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Writes `text` one byte every `everyMs` until the socket closes. */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= text.length) return clearInterval(timer);
    socket.write(text[at++]!);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

const servers = [
  ['ship', () => ship.url],
  ['bridge', () => bridge.url],
] as const;

describe('slow and never-reading clients', () => {
  it('the production limits are the ones docs/security.md H15 and H16 name', () => {
    expect(HTTP_LIMITS).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 2048,
      pendingUpgradesPerAddress: 32,
    });
    expect(HTTP_LIMITS.timeoutCheckIntervalMs).toBeLessThanOrEqual(1000);
    // A socket silent for longer than the longest route is dead; a clone in progress is not.
    expect(HTTP_LIMITS.idleSocketTimeoutMs).toBeGreaterThan(CLONE_LIMITS.timeoutMs);
    expect(ship.ship.app.server.headersTimeout).toBe(1000);
    expect(bridge.app.server.requestTimeout).toBe(2000);
  });

  for (const [name, url] of servers) {
    it(`${name}: 50 slowloris connections get 408 at the header deadline while a normal client is served`, async () => {
      const slow = await Promise.all(Array.from({ length: 50 }, () => rawClient(url())));
      for (const client of slow) {
        client.socket.write('GET /workspaces HTTP/1.1\r\nHost: localhost\r\n');
        trickle(client.socket, `X-Padding: ${'a'.repeat(10_000)}`, 50);
      }
      const served = await call(url(), 'GET', '/workspaces');
      expect(served.status).toBe(200);
      const closedAfter = await Promise.all(slow.map((client) => client.closed));
      for (const [i, ms] of closedAfter.entries()) {
        expect(slow[i]!.received()).toMatch(/^HTTP\/1\.1 408 /);
        // header deadline 1 s, checked every 100 ms; generous slack for a loaded CI machine
        expect(ms).toBeLessThan(4000);
      }
      expect((await call(url(), 'GET', '/workspaces')).status).toBe(200);
    });

    it(`${name}: a body that trickles in is cut off with 408 at the request deadline`, async () => {
      const client = await rawClient(url());
      client.socket.write(
        'POST /repos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
      );
      trickle(client.socket, ' '.repeat(998), 50);
      const ms = await client.closed;
      expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(ms).toBeGreaterThanOrEqual(1900);
      expect(ms).toBeLessThan(6000);
    });

    it(`${name}: a client that pipelines requests and never reads the answers is disconnected when its socket goes idle`, async () => {
      const httpServer = name === 'ship' ? ship.ship.app.server : bridge.app.server;
      const accepted = new Promise<Socket>((resolve) => httpServer.once('connection', resolve));
      const client = await rawClient(url());
      const serverSide = await accepted;
      const serverClosed = new Promise<void>((resolve) => serverSide.once('close', resolve));
      client.socket.pause();
      // Enough pipelined requests that their answers fill both socket buffers; the server then stops
      // reading (Node pauses a pipelining socket whose output is backed up) and the socket goes silent.
      const batch = 'GET /no-such-route HTTP/1.1\r\nHost: localhost\r\n\r\n'.repeat(1000);
      for (let i = 0; i < 40; i++) client.socket.write(batch);
      const started = Date.now();
      await serverClosed;
      // idle limit 1.5 s; the socket must not linger until the keep-alive (60 s here) or forever
      expect(Date.now() - started).toBeLessThan(30_000);
      expect((await call(url(), 'GET', '/workspaces')).status).toBe(200);
      client.socket.destroy();
    }, 40_000);
  }
});

describe('long-lived sockets under the same limits', () => {
  for (const [name, url] of servers) {
    it(`${name}: an event stream outlives the request, header and idle deadlines`, async () => {
      const socket = new WebSocket(`${url().replace(/^http/, 'ws')}/events`);
      let closed: number | null = null;
      socket.on('close', (code) => (closed = code));
      await new Promise((resolve, reject) => socket.once('message', resolve).once('error', reject));
      // request deadline 2 s, header deadline 1 s, idle socket 1.5 s, all checked every 100 ms
      // A window, not a condition: past every deadline below, the socket must stay open.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      expect(closed).toBeNull();
      expect(socket.readyState).toBe(WebSocket.OPEN);
      socket.close();
    });
  }
});

describe('pending WebSocket upgrades per address', () => {
  for (const [name, url] of servers) {
    it(`${name}: an upgrade stops counting once its handshake is done (limit 1, five streams held open)`, async () => {
      const held: WebSocket[] = [];
      for (let i = 0; i < 5; i++) {
        const socket = new WebSocket(`${url().replace(/^http/, 'ws')}/events`);
        await new Promise((resolve, reject) =>
          socket
            .once('message', resolve)
            .once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`))),
        );
        held.push(socket);
      }
      for (const socket of held) socket.close();
    });
  }

  const fakeRequest = (address: string) => {
    const listeners: Array<() => void> = [];
    return {
      socket: { remoteAddress: address, once: (_event: 'close', listener: () => void) => listeners.push(listener) },
      close: () => {
        for (const listener of listeners) listener();
      },
    };
  };

  it('admits up to the limit per address, frees a slot when a handshake settles or its socket closes, and counts addresses apart', () => {
    const pending = new PendingUpgrades(2);
    const [a, b, c] = [fakeRequest('10.0.0.1'), fakeRequest('10.0.0.1'), fakeRequest('10.0.0.1')];
    expect(pending.admit(a)).toBe(true);
    expect(pending.admit(b)).toBe(true);
    expect(pending.admit(c)).toBe(false);
    expect(pending.admit(fakeRequest('10.0.0.2'))).toBe(true);
    pending.settle(a);
    pending.settle(a); // idempotent: frees one slot, not two
    expect(pending.admit(c)).toBe(true);
    expect(pending.admit(fakeRequest('10.0.0.1'))).toBe(false);
    b.close();
    expect(pending.admit(fakeRequest('10.0.0.1'))).toBe(true);
  });
});
