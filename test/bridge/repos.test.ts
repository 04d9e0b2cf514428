// The bridge's repo registry over HTTP: create/list/delete with the spec's errors, persistence, and branch
// listing through `git ls-remote` (real local remotes; a stalling HTTP server; credential redaction).
import { insecureBridge } from './../helpers/bridge.js';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { git, makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, rawCall, removeRoot } from '../helpers/ship.js';

let root: string;
let remote: RemoteFixture;
let bridge: Bridge;
let stall: Server;
let stallUrl: string;

const start = () =>
  startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge-data'),
    logger: pino({ level: 'silent' }),
    branchProbe: { stallSeconds: 1, deadlineMs: 3000 },
  });

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  bridge = await start();
  // Accepts the connection, answers nothing: git must give up on its own.
  stall = createServer(() => undefined);
  await new Promise<void>((resolve) => stall.listen(0, '127.0.0.1', resolve));
  const address = stall.address();
  stallUrl = `http://user:sentinel-secret@127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/r.git`;
}, 60_000);
afterAll(async () => {
  stall.closeAllConnections();
  stall.close();
  await bridge.close();
  await removeRoot(root);
});

describe('bridge repos', () => {
  it('registers, lists and removes repos; provider defaults to custom', async () => {
    const created = await call(bridge.url, 'POST', '/repos', { name: 'app', url: remote.url });
    expect(created).toMatchObject({ status: 201, body: { name: 'app', url: remote.url, provider: 'custom' } });
    expect(
      (await call(bridge.url, 'POST', '/repos', { name: 'gh', url: 'https://github.com/o/r.git', provider: 'github' }))
        .status,
    ).toBe(201);
    expect((await call(bridge.url, 'GET', '/repos')).body).toEqual([
      { name: 'app', url: remote.url, provider: 'custom' },
      { name: 'gh', url: 'https://github.com/o/r.git', provider: 'github' },
    ]);
    expect((await call(bridge.url, 'DELETE', '/repos/gh')).body).toEqual({ ok: true });
    expect((await call(bridge.url, 'GET', '/repos')).body.map((r: { name: string }) => r.name)).toEqual(['app']);
  });

  it('answers the spec errors', async () => {
    expect(await call(bridge.url, 'POST', '/repos', { name: 'app', url: remote.url })).toMatchObject({
      status: 409,
      body: { error: 'repo already registered: app' },
    });
    expect(await call(bridge.url, 'POST', '/repos', { name: 'a/b', url: remote.url })).toMatchObject({
      status: 400,
      body: { error: 'invalid repo identifier: must not contain path separators' },
    });
    expect(await rawCall(bridge.url, 'GET', '/repos/%2E%2E/branches')).toMatchObject({
      status: 400,
      body: { error: 'invalid repo identifier: must not be . or ..' },
    });
    expect(await call(bridge.url, 'DELETE', '/repos/a%5Cb')).toMatchObject({
      status: 400,
      body: { error: 'invalid repo identifier: must not contain path separators' },
    });
    expect(await call(bridge.url, 'POST', '/repos', { name: 'evil', url: 'ext::sh -c id' })).toMatchObject({
      status: 400,
      body: { error: 'invalid repo: clone url transport "ext::" is not allowed' },
    });
    expect((await call(bridge.url, 'POST', '/repos', { name: 'nourl' })).status).toBe(422);
    expect((await call(bridge.url, 'POST', '/repos', { url: 'x' })).status).toBe(422);
    expect(await call(bridge.url, 'DELETE', '/repos/missing')).toMatchObject({
      status: 404,
      body: { error: 'repo not found: missing' },
    });
    expect(await call(bridge.url, 'GET', '/repos/missing/branches')).toMatchObject({
      status: 404,
      body: { error: 'repo not found: missing' },
    });
  });

  it('lists the remote branches sorted with their shas, without tags', async () => {
    const reply = await call(bridge.url, 'GET', '/repos/app/branches');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(
      ['feature', 'main', 'other'].map((name) => ({ name, sha: git(remote.bare, 'rev-parse', name).trim() })),
    );
  });

  it('gives up on a remote that stalls, with a 502 that never shows the URL credentials', async () => {
    await call(bridge.url, 'POST', '/repos', { name: 'stall', url: stallUrl });
    const started = Date.now();
    const reply = await call(bridge.url, 'GET', '/repos/stall/branches');
    expect(Date.now() - started).toBeLessThan(6000);
    expect(reply.status).toBe(502);
    expect(reply.body.error).toMatch(/^could not list branches for repo "stall": /);
    expect(reply.text).not.toContain('sentinel-secret');
  });

  it("reports a remote git cannot reach as one clean line (ssh's stray \\r and git's blank lines dropped)", async () => {
    await call(bridge.url, 'POST', '/repos', { name: 'unresolvable', url: 'ssh://git@host.invalid/r.git' });
    try {
      const reply = await call(bridge.url, 'GET', '/repos/unresolvable/branches');
      expect(reply.status).toBe(502);
      expect(reply.body.error).toMatch(
        /^could not list branches for repo "unresolvable": ssh: Could not resolve hostname host\.invalid: .+ fatal: Could not read from remote repository\. Please make sure/,
      );
      expect(reply.body.error).not.toMatch(/[\r\n]| {2}/);
    } finally {
      await call(bridge.url, 'DELETE', '/repos/unresolvable');
    }
  });

  it('keeps the registry across a restart', async () => {
    await bridge.close();
    bridge = await start();
    expect((await call(bridge.url, 'GET', '/repos')).body.map((r: { name: string }) => r.name)).toEqual([
      'app',
      'stall',
    ]);
  }, 60_000);
});
