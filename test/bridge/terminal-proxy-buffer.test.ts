// The terminal proxy before its upstream opens: client frames are held and delivered in order once the
// ship accepts, and more than 256 KiB held closes both sides with 1009. The ship here is a fake whose
// terminal upgrade is answered late.
import { insecureBridge } from './../helpers/bridge.js';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pino } from 'pino';
import WebSocket, { WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';
import { terminalUrl } from '../helpers/terminal.js';
import { settles, until } from '../helpers/poll.js';

let root: string;
let bridge: Bridge;
let server: Server;
const received: string[] = [];
let upstreamClosed: Promise<number>;

beforeAll(async () => {
  root = await makeTempRoot();
  server = createServer((_request, response) => response.writeHead(404).end());
  const events = new WebSocketServer({ noServer: true });
  const terminals = new WebSocketServer({ noServer: true });
  events.on('connection', (socket) =>
    socket.send(
      JSON.stringify({
        type: 'sync',
        ship: 'late',
        at: new Date().toISOString(),
        workspaces: [{ repoName: 'r', name: 'w', branch: 'main', active: true, agent: null }],
      }),
    ),
  );
  server.on('upgrade', (request, socket, head) => {
    if (request.url === '/events')
      return events.handleUpgrade(request, socket, head, (ws) => events.emit('connection', ws));
    // The terminal upgrade is answered 400 ms late.
    setTimeout(() => terminals.handleUpgrade(request, socket, head, (ws) => terminals.emit('connection', ws)), 400);
  });
  terminals.on('connection', (socket) => {
    upstreamClosed = new Promise((resolve) => socket.on('close', (code) => resolve(code)));
    socket.on('message', (data) => received.push(data.toString()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
  });
  const port = (server.address() as { port: number }).port;
  expect((await call(bridge.url, 'POST', '/ships', { url: `http://127.0.0.1:${port}` })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await bridge.close();
  server.closeAllConnections();
  server.close();
  await removeRoot(root);
});

function open(): Promise<{ socket: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  const socket = new WebSocket(terminalUrl(bridge.url, 'r', 'w'));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

describe('terminal proxy before the upstream opens', () => {
  it('holds client frames and delivers them in order', async () => {
    const { socket } = await open();
    const frames = [
      { type: 'init', cols: 80, rows: 24 },
      { type: 'input', data: 'a' },
      { type: 'input', data: 'b' },
      { type: 'resync' },
    ];
    for (const frame of frames) socket.send(JSON.stringify(frame));
    await settles(until(() => received.length >= frames.length, 'every frame at the ship', 2_000, 20));
    expect(received.map((text) => JSON.parse(text))).toEqual(frames);
    socket.close();
    expect(await upstreamClosed).toBe(1000);
  });

  it('closes both sides with 1009 once more than 256 KiB is held', async () => {
    received.length = 0;
    const { socket, closed } = await open();
    socket.send(JSON.stringify({ type: 'init', cols: 80, rows: 24 }));
    for (let i = 0; i < 3; i++) socket.send(JSON.stringify({ type: 'input', data: 'x'.repeat(100 * 1024) }));
    expect(await closed).toEqual({ code: 1009, reason: 'Terminal buffer limit exceeded' });
    // A window, not a condition: nothing may reach the ship after the limit closed the socket.
    await new Promise((r) => setTimeout(r, 600));
    expect(received).toEqual([]);
  });
});
