// The bridge's terminal proxy against a real ship: frames both ways, the one-terminal guard released by the
// client's close, the proxy's own close codes, and exit 1 for unknown workspaces.
import { insecureBridge } from './../helpers/bridge.js';
import { join } from 'node:path';
import { pino } from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { connectTerminal, terminalUrl } from '../helpers/terminal.js';

let root: string;
let bridge: Bridge;
let ship: TestShip;

beforeAll(async () => {
  root = await makeTempRoot();
  const remote = makeRemote(root);
  ship = await startTestShip(root, { name: 'tship' });
  bridge = await startBridge({ ...insecureBridge, port: 0, dataDirectory: join(root, 'bridge'), logger: pino({ level: 'silent' }) });
  await call(bridge.url, 'POST', '/repos', { name: 'app', url: remote.url });
  await call(bridge.url, 'POST', '/ships', { url: ship.url });
  for (const name of ['t1', 't2', 't3']) {
    await call(bridge.url, 'POST', '/workspaces', { ship: 'tship', repoName: 'app', name, branch: 'main' });
    await call(bridge.url, 'POST', path('app', name, '/activate'));
  }
}, 60_000);
afterAll(async () => {
  await bridge.close();
  await ship.stop();
  await removeRoot(root);
});

function rawSocket(url: string) {
  const socket = new WebSocket(url);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  return new Promise<{ socket: WebSocket; closed: typeof closed }>((resolve, reject) => {
    socket.once('open', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

describe('bridge terminal proxy', () => {
  it('pipes frames both ways: grid on open, echo of typed input, exit code', async () => {
    const client = await connectTerminal(terminalUrl(bridge.url, 'app', 't1'));
    await client.until((screen) => /[$#] ?$/m.test(screen.text()));
    expect(client.frames[0]).toMatchObject({ type: 'grid', seq: 0, cols: 80, rows: 24 });
    client.input('echo via-bridge-$((2*21))\r');
    await client.until((screen) => screen.text().includes('via-bridge-42'));
    client.input('exit 5\r');
    expect(await client.exit).toBe(5);
  });

  it('passes the ship guard through (second connection exit 1) and releases it when the client closes', async () => {
    const first = await connectTerminal(terminalUrl(bridge.url, 'app', 't2'));
    await first.waitForFrames(1);
    const second = await connectTerminal(terminalUrl(bridge.url, 'app', 't2'));
    expect(await second.exit).toBe(1);
    await first.close();
    await new Promise((r) => setTimeout(r, 200));
    const third = await connectTerminal(terminalUrl(bridge.url, 'app', 't2'));
    await third.waitForFrames(1);
    expect(third.frames[0]!.type).toBe('grid');
    await third.close();
  });

  it('answers an unknown workspace with exit 1', async () => {
    const client = await connectTerminal(terminalUrl(bridge.url, 'app', 'nope'));
    expect(await client.exit).toBe(1);
  });

  it('closes 1008 for an invalid client frame and 1003 for a binary one', async () => {
    const invalid = await rawSocket(terminalUrl(bridge.url, 'app', 't3'));
    invalid.socket.send(JSON.stringify({ type: 'init', cols: 0, rows: 24 }));
    expect(await invalid.closed).toEqual({ code: 1008, reason: 'Invalid terminal message' });
    await new Promise((r) => setTimeout(r, 100));
    const binary = await rawSocket(terminalUrl(bridge.url, 'app', 't3'));
    binary.socket.send(Buffer.from('x'), { binary: true });
    expect(await binary.closed).toEqual({ code: 1003, reason: 'Binary terminal messages are not supported' });
  });
});
