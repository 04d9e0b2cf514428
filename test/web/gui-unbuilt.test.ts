// A bridge whose GUI is not built (a checkout compiled with tsc alone) still starts and serves the API;
// /ui/ says how to build the GUI instead of failing, with the GUI's headers.
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { insecureBridge } from '../helpers/bridge.js';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';

let root: string;
let bridge: Bridge;

beforeAll(async () => {
  root = await makeTempRoot();
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    webDirectory: join(root, 'no-web'),
    logger: pino({ level: 'silent' }),
  });
}, 60_000);
afterAll(async () => {
  await bridge?.close();
  await removeRoot(root);
});

describe('a bridge without a GUI build', () => {
  it('answers /ui/ with 503 and how to build it, and the API as usual', async () => {
    const reply = await call(bridge.url, 'GET', '/ui/workspaces');
    expect(reply).toMatchObject({
      status: 503,
      body: { error: 'the GUI is not built: run `npm run build` in the checkout' },
    });
    expect(reply.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect((await call(bridge.url, 'GET', '/ships')).status).toBe(200);
  });
});
