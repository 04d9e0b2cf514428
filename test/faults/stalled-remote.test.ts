// docs/security.md X9: a git remote that stops answering, under a create routed through the bridge.
// The ship's clone gives up when the transfer stalls (shortened here to 1 s; 30 s in production), answers
// with git's message, leaves no directory and no staging leftover, and the bridge holds no reservation: the
// same key is created at once from a remote that answers.
import { createServer, type Server } from 'node:http';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { insecureBridge } from '../helpers/bridge.js';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';

let root: string;
let remote: RemoteFixture;
let ship: TestShip;
let bridge: Bridge;
const stalls: Server[] = [];

/** An HTTP "remote" that accepts and then never answers, or answers 200 and then never sends a byte. */
async function stallingRemote(kind: 'silent' | 'headers-only'): Promise<string> {
  const server = createServer((_request, response) => {
    if (kind === 'headers-only') {
      response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
      response.flushHeaders();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stalls.push(server);
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/r.git`;
}

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  ship = await startTestShip(root, { name: 'slowpoke', cloneLimits: { timeoutMs: 20_000, stallSeconds: 1 } });
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
  });
  expect((await call(bridge.url, 'POST', '/ships', { url: ship.url })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await ship?.stop();
  for (const server of stalls) {
    server.closeAllConnections();
    server.close();
  }
  await removeRoot(root);
});

describe('a stalled git remote', () => {
  for (const kind of ['silent', 'headers-only'] as const) {
    it(`(${kind}) fails the create at the stall limit, leaves nothing, and holds no reservation`, async () => {
      const repo = `stalled-${kind}`;
      expect((await call(bridge.url, 'POST', '/repos', { name: repo, url: await stallingRemote(kind) })).status).toBe(
        201,
      );
      const started = Date.now();
      const failed = await call(bridge.url, 'POST', '/workspaces', {
        ship: 'slowpoke',
        repoName: repo,
        name: 'w',
        branch: 'main',
      });
      expect(failed.status).toBe(500);
      expect(failed.body.error).toMatch(
        /^git clone of http:\/\/127\.0\.0\.1:\d+\/r\.git failed: .*(too slow|Operation timed out)/i,
      );
      // stall limit 1 s; far from the 20 s deadline
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(existsSync(join(ship.ship.fleetDirectory, repo, 'w'))).toBe(false);
      const staging = join(ship.ship.fleetDirectory, '.svc-ship', 'staging');
      expect(existsSync(staging) ? readdirSync(staging) : []).toEqual([]);

      expect((await call(bridge.url, 'DELETE', `/repos/${repo}`)).status).toBe(200);
      expect((await call(bridge.url, 'POST', '/repos', { name: repo, url: remote.url })).status).toBe(201);
      const created = await call(bridge.url, 'POST', '/workspaces', {
        ship: 'slowpoke',
        repoName: repo,
        name: 'w',
        branch: 'main',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ repoName: repo, name: 'w', ship: 'slowpoke' });
    }, 30_000);
  }
});
