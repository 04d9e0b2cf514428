// Half-open and stalled WebSocket peers (docs/security.md H16): every ship and bridge socket is pinged, and a
// peer that leaves two pings unanswered is terminated, while a live client stays connected.
import WebSocket from 'ws';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { insecureBridge } from '../helpers/bridge.js';

let root: string;
let ship: TestShip;
let bridge: Bridge;

beforeAll(async () => {
  root = await makeTempRoot();
  ship = await startTestShip(root, { heartbeatMs: 100 });
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
    heartbeatMs: 100,
  });
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await ship?.stop();
  await removeRoot(root);
});

function open(url: string, autoPong: boolean): Promise<{ socket: WebSocket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/events`, { autoPong });
    const closed = new Promise<number>((done) => socket.once('close', (code) => done(code)));
    socket.once('open', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

describe('the heartbeat', () => {
  for (const [name, url] of [
    ['ship', () => ship.url],
    ['bridge', () => bridge.url],
  ] as const) {
    it(`terminates a ${name} peer that stops answering pings, and keeps a live one`, async () => {
      const dead = await open(url(), false);
      const live = await open(url(), true);
      const started = Date.now();
      expect(await dead.closed).toBe(1006);
      expect(Date.now() - started).toBeLessThan(2000);
      // A window, not a condition: the live socket must survive the heartbeat that killed the dead one.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(live.socket.readyState).toBe(WebSocket.OPEN);
      live.socket.close();
      await live.closed;
    });
  }
});
