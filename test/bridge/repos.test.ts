// The bridge's repo registry through its routes (app.inject on the built bridge, test/helpers/bridge-app.ts):
// create/list/delete with the spec's errors, persistence, and branch listing through `git ls-remote` (real
// local remotes; a stalling HTTP server; credential redaction). A raw `%2E%2E` path goes over a socket:
// inject resolves it away as a URL parser does, a client sending it as it is does not.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestBridge, type TestBridgeApp } from '../helpers/bridge-app.js';
import { git, makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { makeTempRoot, rawCall, removeRoot } from '../helpers/ship.js';

let root: string;
let remote: RemoteFixture;
let bridge: TestBridgeApp;
let stall: Server;
let stallUrl: string;

const start = () => buildTestBridge(root, { insecureNoAuth: true, branchProbe: { stallSeconds: 1, deadlineMs: 3000 } });
const call = (method: string, path: string, body?: unknown) => bridge.inject(method, path, body);

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
    const created = await call('POST', '/repos', { name: 'app', url: remote.url });
    expect(created).toMatchObject({ status: 201, body: { name: 'app', url: remote.url, provider: 'custom' } });
    expect(
      (await call('POST', '/repos', { name: 'gh', url: 'https://github.com/o/r.git', provider: 'github' })).status,
    ).toBe(201);
    expect((await call('GET', '/repos')).body).toEqual([
      { name: 'app', url: remote.url, provider: 'custom' },
      { name: 'gh', url: 'https://github.com/o/r.git', provider: 'github' },
    ]);
    expect((await call('DELETE', '/repos/gh')).body).toEqual({ ok: true });
    expect((await call('GET', '/repos')).body.map((r: { name: string }) => r.name)).toEqual(['app']);
  });

  it('answers the spec errors', async () => {
    expect(await call('POST', '/repos', { name: 'app', url: remote.url })).toMatchObject({
      status: 409,
      body: { error: 'repo already registered: app' },
    });
    expect(await call('POST', '/repos', { name: 'a/b', url: remote.url })).toMatchObject({
      status: 400,
      body: { error: 'invalid repo identifier: must not contain path separators' },
    });
    expect(await call('DELETE', '/repos/a%5Cb')).toMatchObject({
      status: 400,
      body: { error: 'invalid repo identifier: must not contain path separators' },
    });
    expect(await call('POST', '/repos', { name: 'evil', url: 'ext::sh -c id' })).toMatchObject({
      status: 400,
      body: { error: 'invalid repo: clone url transport "ext::" is not allowed' },
    });
    expect((await call('POST', '/repos', { name: 'nourl' })).status).toBe(422);
    expect((await call('POST', '/repos', { url: 'x' })).status).toBe(422);
    expect(await call('DELETE', '/repos/missing')).toMatchObject({
      status: 404,
      body: { error: 'repo not found: missing' },
    });
    expect(await call('GET', '/repos/missing/branches')).toMatchObject({
      status: 404,
      body: { error: 'repo not found: missing' },
    });
  });

  it('answers a raw dot-dot name sent over a socket as the spec says', async () => {
    const url = await bridge.app.listen({ port: 0, host: '127.0.0.1' });
    expect(await rawCall(url, 'GET', '/repos/%2E%2E/branches')).toMatchObject({
      status: 400,
      body: { error: 'invalid repo identifier: must not be . or ..' },
    });
  });

  it('lists the remote branches sorted with their shas, without tags', async () => {
    const reply = await call('GET', '/repos/app/branches');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(
      ['feature', 'main', 'other'].map((name) => ({ name, sha: git(remote.bare, 'rev-parse', name).trim() })),
    );
  });

  it('gives up on a remote that stalls, with a 502 that never shows the URL credentials', async () => {
    await call('POST', '/repos', { name: 'stall', url: stallUrl });
    const started = Date.now();
    const reply = await call('GET', '/repos/stall/branches');
    expect(Date.now() - started).toBeLessThan(6000);
    expect(reply.status).toBe(502);
    expect(reply.body.error).toMatch(/^could not list branches for repo "stall": /);
    expect(reply.text).not.toContain('sentinel-secret');
  });

  it("reports a remote git cannot reach as one clean line (ssh's stray \\r and git's blank lines dropped)", async () => {
    await call('POST', '/repos', { name: 'unresolvable', url: 'ssh://git@host.invalid/r.git' });
    try {
      const reply = await call('GET', '/repos/unresolvable/branches');
      expect(reply.status).toBe(502);
      expect(reply.body.error).toMatch(
        /^could not list branches for repo "unresolvable": ssh: Could not resolve hostname host\.invalid: .+ fatal: Could not read from remote repository\. Please make sure/,
      );
      expect(reply.body.error).not.toMatch(/[\r\n]| {2}/);
    } finally {
      await call('DELETE', '/repos/unresolvable');
    }
  });

  it('keeps the registry across a restart', async () => {
    await bridge.close();
    bridge = await start();
    expect((await call('GET', '/repos')).body.map((r: { name: string }) => r.name)).toEqual(['app', 'stall']);
  }, 60_000);
});
