// Browser attacks on the bridge (docs/security.md H1): a foreign Origin or a cross-site fetch is refused
// before routing and before any WebSocket upgrade (no side effect, no 101), on an authenticating bridge and
// on an insecure one; an insecure bridge also refuses a rebinding Host (421) while an authenticating one
// needs no Host check; the bridge's own public origin is accepted.
import { connect } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { call, makeTempRoot, rawCall, removeRoot } from '../helpers/ship.js';
import { insecureBridge } from '../helpers/bridge.js';
import { ADMIN, startAuthBridge, type AuthHarness } from '../auth/harness.js';

/** Sends a raw upgrade request and returns the status line the server answers with. */
function upgradeStatus(url: string, path: string, headers: Record<string, string>): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const lines = [
        `GET ${path} HTTP/1.1`,
        `Host: ${headers.host ?? `${hostname}:${port}`}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        ...Object.entries(headers)
          .filter(([key]) => key !== 'host')
          .map(([key, value]) => `${key}: ${value}`),
        '',
        '',
      ];
      socket.write(lines.join('\r\n'));
    });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) {
        resolve(answer.split('\r\n')[0]!);
        socket.destroy();
      }
    });
    socket.on('error', reject);
  });
}

let root: string;
let secure: AuthHarness;
let insecure: Bridge;
let token: string;

beforeAll(async () => {
  root = await makeTempRoot();
  secure = await startAuthBridge(root);
  token = await secure.login(ADMIN.username, ADMIN.password);
  insecure = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'insecure'),
    logger: pino({ level: 'silent' }),
  });
}, 60_000);

afterAll(async () => {
  await secure?.bridge.close();
  await insecure?.close();
  await removeRoot(root);
});

describe('the bridge against browsers', () => {
  it('refuses a foreign Origin before the route runs: nothing is created', async () => {
    for (const [url, headers] of [
      [secure.bridge.url, { authorization: `Bearer ${token}` }],
      [insecure.url, {}],
    ] as const) {
      const reply = await call(
        url,
        'POST',
        '/repos',
        { name: 'csrf', url: 'https://example.com/x.git' },
        { ...headers, origin: 'http://evil.example' },
      );
      expect(reply.status).toBe(403);
      const crossSite = await call(
        url,
        'POST',
        '/repos',
        { name: 'csrf', url: 'https://example.com/x.git' },
        { ...headers, 'sec-fetch-site': 'cross-site' },
      );
      expect(crossSite.status).toBe(403);
      expect((await call(url, 'GET', '/repos', undefined, headers)).body).toEqual([]);
    }
  });

  it('refuses a foreign Origin on a WebSocket upgrade before any 101, with a valid ticket or none', async () => {
    const { ticket } = (await secure.as(token, 'POST', '/auth/ws-ticket')).body;
    expect(
      await upgradeStatus(secure.bridge.url, `/events?ticket=${ticket}`, { origin: 'http://evil.example' }),
    ).toMatch(/^HTTP\/1.1 403/);
    expect(await upgradeStatus(insecure.url, '/events', { origin: 'http://evil.example' })).toMatch(/^HTTP\/1.1 403/);
    expect(await upgradeStatus(insecure.url, '/workspaces/r/n/terminal', { origin: 'null' })).toMatch(/^HTTP\/1.1 403/);
    // The refused upgrade did not spend the ticket's chance to be refused for its own reasons: it is
    // still single-use and now works from the bridge's own origin.
    expect(
      await upgradeStatus(secure.bridge.url, `/events?ticket=${ticket}`, {
        origin: new URL(secure.bridge.publicUrl).origin,
      }),
    ).toMatch(/^HTTP\/1.1 101/);
  });

  it('accepts its own public origin', async () => {
    const own = new URL(insecure.publicUrl).origin;
    expect((await call(insecure.url, 'GET', '/repos', undefined, { origin: own })).status).toBe(200);
    expect(await upgradeStatus(insecure.url, '/events', { origin: own })).toMatch(/^HTTP\/1.1 101/);
  });

  it('refuses a rebinding Host while authentication is off, and needs no Host check while it is on', async () => {
    expect((await rawCall(insecure.url, 'GET', '/repos', { host: 'rebind.evil.example:4800' })).status).toBe(421);
    expect(await upgradeStatus(insecure.url, '/events', { host: 'rebind.evil.example:4800' })).toMatch(
      /^HTTP\/1.1 421/,
    );
    expect((await rawCall(insecure.url, 'GET', '/repos', { host: '127.0.0.1:4800' })).status).toBe(200);
    expect((await rawCall(insecure.url, 'GET', '/repos', { host: 'localhost:4800' })).status).toBe(200);
    expect(
      (
        await rawCall(secure.bridge.url, 'GET', '/repos', {
          host: 'bridge.example.com',
          authorization: `Bearer ${token}`,
        })
      ).status,
    ).toBe(200);
    expect((await rawCall(secure.bridge.url, 'GET', '/repos', { host: 'bridge.example.com' })).status).toBe(401);
  });
});
