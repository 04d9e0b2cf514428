// Create reservations on the bridge: a key being created cannot be created again, a create whose ship is
// deregistered while it runs is a 409 (the slow part is a clone from a remote that takes its time), and a
// key deleted through the bridge can be created again at once (the index does not wait for the ship's event).
import { insecureBridge } from './../helpers/bridge.js';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { call, makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { makeRemote } from '../helpers/git-fixtures.js';

let root: string;
let bridge: Bridge;
let ship: TestShip;
let slowRemote: Server;

beforeAll(async () => {
  root = await makeTempRoot();
  ship = await startTestShip(root, { name: 'racer' });
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
  });
  // A git remote that takes 800 ms to say it has no such repository.
  slowRemote = createServer((_request, response) => setTimeout(() => response.writeHead(404).end(), 800));
  await new Promise<void>((resolve) => slowRemote.listen(0, '127.0.0.1', resolve));
  const port = (slowRemote.address() as { port: number }).port;
  await call(bridge.url, 'POST', '/repos', { name: 'slow', url: `http://127.0.0.1:${port}/slow.git` });
  await call(bridge.url, 'POST', '/repos', { name: 'app', url: makeRemote(root).url });
  await call(bridge.url, 'POST', '/ships', { url: ship.url });
}, 60_000);
afterAll(async () => {
  slowRemote.closeAllConnections();
  slowRemote.close();
  await bridge.close();
  await ship.stop();
  await removeRoot(root);
});

describe('bridge create reservations', () => {
  it('answers 409 for a key whose create is still running, then lets the outcome decide', async () => {
    const first = call(bridge.url, 'POST', '/workspaces', {
      ship: 'racer',
      repoName: 'slow',
      name: 'k',
      branch: 'main',
    });
    // Let the first create reach the ship (the slow repo's clone runs far longer; nothing outside shows it started).
    await new Promise((r) => setTimeout(r, 100));
    const second = await call(bridge.url, 'POST', '/workspaces', {
      ship: 'racer',
      repoName: 'slow',
      name: 'k',
      branch: 'main',
    });
    expect(second).toMatchObject({ status: 409, body: { error: 'workspace being created: slow/k' } });
    const outcome = await first;
    // The remote's 404 is "no such repository": the caller's 400 (issue #15), passed through by the bridge.
    expect(outcome.status).toBe(400);
    expect(outcome.body.error).toMatch(
      /^git clone of http:\/\/127\.0\.0\.1:\d+\/slow\.git failed: fatal: repository '.*' not found$/,
    );
    // The failed create released the key.
    const third = call(bridge.url, 'POST', '/workspaces', {
      ship: 'racer',
      repoName: 'slow',
      name: 'k',
      branch: 'main',
    });
    expect((await third).status).toBe(400);
  });

  it('creates a key again right after deleting it, round after round', async () => {
    const key = { ship: 'racer', repoName: 'app', name: 'again', branch: 'main' };
    for (let round = 0; round < 10; round++) {
      expect((await call(bridge.url, 'POST', '/workspaces', key)).status).toBe(201);
      expect((await call(bridge.url, 'DELETE', '/workspaces/app/again')).body).toEqual({ ok: true });
      expect((await call(bridge.url, 'GET', '/workspaces/app/again')).body).toEqual({
        error: 'workspace not found: app/again',
      });
    }
  });

  it('answers 409 when the target ship is removed while its create runs', async () => {
    const create = call(bridge.url, 'POST', '/workspaces', {
      ship: 'racer',
      repoName: 'slow',
      name: 'gone',
      branch: 'main',
    });
    // Let the create reach the ship (the slow repo's clone runs far longer; nothing outside shows it started).
    await new Promise((r) => setTimeout(r, 100));
    expect((await call(bridge.url, 'DELETE', '/ships/racer')).body).toEqual({ ok: true });
    expect(await create).toMatchObject({
      status: 409,
      body: { error: 'ship "racer" was removed while creating slow/gone' },
    });
  });
});
