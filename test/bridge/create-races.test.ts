// Create reservations on the bridge: a key being created cannot be created again, a create whose ship is
// deregistered while it runs is a 409 (the slow part is a clone from a remote that takes its time), and a
// key deleted through the bridge can be created again at once (the index does not wait for the ship's event).
// The bridge is built without a socket (app.inject, test/helpers/bridge-app.ts); the ship is a real one.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestBridge, type TestBridgeApp } from '../helpers/bridge-app.js';
import { makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { makeRemote } from '../helpers/git-fixtures.js';

let root: string;
let bridge: TestBridgeApp;
let ship: TestShip;
let slowRemote: Server;
const call = (method: string, path: string, body?: unknown) => bridge.inject(method, path, body);

beforeAll(async () => {
  root = await makeTempRoot();
  ship = await startTestShip(root, { name: 'racer' });
  bridge = await buildTestBridge(root, { insecureNoAuth: true });
  // A git remote that takes 800 ms to say it has no such repository.
  slowRemote = createServer((_request, response) => setTimeout(() => response.writeHead(404).end(), 800));
  await new Promise<void>((resolve) => slowRemote.listen(0, '127.0.0.1', resolve));
  const port = (slowRemote.address() as { port: number }).port;
  await call('POST', '/repos', { name: 'slow', url: `http://127.0.0.1:${port}/slow.git` });
  await call('POST', '/repos', { name: 'app', url: makeRemote(root).url });
  await call('POST', '/ships', { url: ship.url });
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
    const first = call('POST', '/workspaces', {
      ship: 'racer',
      repoName: 'slow',
      name: 'k',
      branch: 'main',
    });
    // Let the first create reach the ship (the slow repo's clone runs far longer; nothing outside shows it started).
    await new Promise((r) => setTimeout(r, 100));
    const second = await call('POST', '/workspaces', {
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
    const third = call('POST', '/workspaces', {
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
      expect((await call('POST', '/workspaces', key)).status).toBe(201);
      expect((await call('DELETE', '/workspaces/app/again')).body).toEqual({ ok: true });
      expect((await call('GET', '/workspaces/app/again')).body).toEqual({
        error: 'workspace not found: app/again',
      });
    }
  });

  it('answers 409 when the target ship is removed while its create runs', async () => {
    const create = call('POST', '/workspaces', {
      ship: 'racer',
      repoName: 'slow',
      name: 'gone',
      branch: 'main',
    });
    // Let the create reach the ship (the slow repo's clone runs far longer; nothing outside shows it started).
    await new Promise((r) => setTimeout(r, 100));
    expect((await call('DELETE', '/ships/racer')).body).toEqual({ ok: true });
    expect(await create).toMatchObject({
      status: 409,
      body: { error: 'ship "racer" was removed while creating slow/gone' },
    });
  });
});
