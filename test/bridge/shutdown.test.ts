// A bridge asked to stop finishes fast whatever it holds open: SIGTERM to `npx svc bridge`'s process group
// with 5 ships registered and 500 event subscribers connected (offering compression, as browsers do), and
// the bridge process is gone within 2 s. Supervisors give 10–30 s before SIGKILL; a bridge must not need it.
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { bridgeUrlIn, processesMatching, startNpx, type NpxProcess } from '../helpers/npx.js';
import { settles, until } from '../helpers/poll.js';

const SHIPS = 5;
const SUBSCRIBERS = 500;
let root: string;
const ships: TestShip[] = [];
let bridge: NpxProcess | undefined;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  bridge?.signalGroup('SIGKILL');
  for (const socket of sockets) socket.terminate();
  for (const ship of ships) await ship.stop();
  await removeRoot(root);
});

function subscribe(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/events`, { perMessageDeflate: true });
    sockets.push(socket);
    socket.once('message', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('a bridge stopped with SIGTERM', () => {
  it(`exits within 2 s with ${SHIPS} ships and ${SUBSCRIBERS} event subscribers connected`, async () => {
    const data = join(root, 'data');
    bridge = startNpx(['bridge', '--port', '0', '--insecure-no-auth', '--data-directory', data]);
    await bridge.waitFor('bridge listening on', 60_000);
    const url = bridgeUrlIn(bridge.output());
    for (let i = 0; i < SHIPS; i++) {
      const ship = await startTestShip(join(root, `ship-${i}`), { name: `ship-${i}` });
      ships.push(ship);
      expect((await call(url, 'POST', '/ships', { url: ship.url })).status).toBe(201);
    }
    // In batches: one address may have only a few dozen upgrades pending at once.
    for (let i = 0; i < SUBSCRIBERS; i += 25) await Promise.all(Array.from({ length: 25 }, () => subscribe(url)));
    expect(sockets.filter((socket) => socket.readyState === WebSocket.OPEN)).toHaveLength(SUBSCRIBERS);
    const [pid] = processesMatching('/svc bridge', data);
    expect(pid).toBeDefined();

    const signalled = performance.now();
    bridge.signalGroup('SIGTERM');
    const exited = () => processesMatching('/svc bridge', data).length === 0;
    await settles(until(exited, 'the bridge to exit on SIGTERM', 10_000, 10));
    const took = performance.now() - signalled;
    expect(processesMatching('/svc bridge', data)).toEqual([]);
    if (process.env.SVC_TEST_REPORT) console.info(`SIGTERM to exit: ${Math.round(took)} ms`);
    expect(took, `SIGTERM to exit took ${Math.round(took)} ms`).toBeLessThanOrEqual(2000);
    // Every subscriber was told: its socket is closed, not left hanging.
    await expect
      .poll(() => sockets.filter((socket) => socket.readyState !== WebSocket.CLOSED).length, { timeout: 5000 })
      .toBe(0);
  }, 120_000);
});
