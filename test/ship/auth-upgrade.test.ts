// The ship's request guard at the WebSocket handshake, on a listening ship: the event socket needs
// SVC_BRIDGE_TOKEN like every route, and a foreign Origin is refused before the 101. The guard's HTTP cases
// run without a socket in auth.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectEvents } from '../helpers/events.js';
import { makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';

const BRIDGE_TOKEN = 'sentinel-bridge-token-0123456789abcdef';
let root: string;
let ship: TestShip;
let open: TestShip;
const auth = { authorization: `Bearer ${BRIDGE_TOKEN}` };

beforeAll(async () => {
  root = await makeTempRoot();
  ship = await startTestShip(root, { bridgeToken: BRIDGE_TOKEN, fleetDirectory: `${root}/fleet-auth` });
  open = await startTestShip(root, { fleetDirectory: `${root}/fleet-open` });
});
afterAll(async () => {
  await ship.stop();
  await open.stop();
  await removeRoot(root);
});

describe('ship authentication at the upgrade (SVC_BRIDGE_TOKEN set)', () => {
  it('refuses the event socket upgrade without the token and accepts it with', async () => {
    await expect(connectEvents(ship.url)).rejects.toThrow(/401/);
    const events = await connectEvents(ship.url, auth);
    const [sync] = await events.waitFor(1);
    expect(sync.type).toBe('sync');
    await events.close();
  });
});

describe('browser guards at the upgrade', () => {
  it('refuses a WebSocket upgrade from a foreign Origin before the 101', async () => {
    const socket = new WebSocket(`${open.url.replace('http', 'ws')}/events`, { origin: 'http://evil.example' });
    const status = await new Promise<number>((resolve) => {
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('open', () => resolve(101));
      socket.on('error', () => undefined);
    });
    expect(status).toBe(403);
    socket.terminate();
  });
});
