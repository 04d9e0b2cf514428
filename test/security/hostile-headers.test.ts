// Hostile request heads against a ship and an authenticating bridge (docs/security.md §5 "Headers and auth"):
// an oversized header block is 431, a request without Host is 400, 2,000 headers do not crash anything, and
// odd upgrade requests (no Connection header, a bad key, Origin: null) never get a 101. Raw sockets, so
// nothing normalizes the bytes on the way.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { ADMIN, startAuthBridge, type AuthHarness } from '../auth/harness.js';

let root: string;
let ship: TestShip;
let h: AuthHarness;
let token: string;

beforeAll(async () => {
  root = await makeTempRoot();
  ship = await startTestShip(root, { bridgeToken: 'hostile-headers-bridge-token' });
  h = await startAuthBridge(root);
  token = await h.login(ADMIN.username, ADMIN.password);
}, 60_000);

afterAll(async () => {
  await h?.bridge.close();
  await ship?.stop();
  await removeRoot(root);
});

/** Sends raw bytes and resolves with the status line answered (or 'closed' when the server just hangs up). */
function rawStatus(url: string, head: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) {
        resolve(answer.split('\r\n')[0]!);
        socket.destroy();
      }
    });
    socket.on('end', () => resolve(answer ? answer.split('\r\n')[0]! : 'closed'));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? resolve(answer || 'closed') : reject(error),
    );
  });
}

const targets = () => [
  { name: 'ship', url: ship.url, auth: 'Bearer hostile-headers-bridge-token' },
  { name: 'bridge', url: h.bridge.url, auth: `Bearer ${token}` },
];

describe('hostile request heads', () => {
  it('answers an oversized header block with 431', async () => {
    for (const target of targets()) {
      const head = `GET /workspaces HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${target.auth}\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`;
      expect(await rawStatus(target.url, head), target.name).toMatch(/^HTTP\/1\.1 431/);
    }
  });

  it('refuses a request without Host', async () => {
    for (const target of targets()) {
      expect(
        await rawStatus(target.url, `GET /workspaces HTTP/1.1\r\nAuthorization: ${target.auth}\r\n\r\n`),
        target.name,
      ).toMatch(/^HTTP\/1\.1 400/);
    }
  });

  it('survives 2,000 headers', async () => {
    for (const target of targets()) {
      const many = Array.from({ length: 2000 }, (_, i) => `X-H${i}: ${i}`).join('\r\n');
      const status = await rawStatus(
        target.url,
        `GET /workspaces HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${target.auth}\r\n${many}\r\n\r\n`,
      );
      expect(status, target.name).toMatch(/^HTTP\/1\.1 (200|431)/);
    }
    // Still serving.
    expect((await fetch(`${h.bridge.url}/auth/mode`)).status).toBe(200);
  });

  it('never upgrades a malformed handshake', async () => {
    for (const target of targets()) {
      const base = `GET /events HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${target.auth}\r\nSec-WebSocket-Version: 13\r\n`;
      const withoutConnection = await rawStatus(
        target.url,
        `${base}Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      );
      const badKey = await rawStatus(
        target.url,
        `${base}Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: not-a-key\r\n\r\n`,
      );
      const nullOrigin = await rawStatus(
        target.url,
        `${base}Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: null\r\n\r\n`,
      );
      for (const status of [withoutConnection, badKey, nullOrigin])
        expect(status, target.name).not.toMatch(/^HTTP\/1\.1 101/);
      expect(nullOrigin, target.name).toMatch(/^HTTP\/1\.1 403/);
    }
  });
});
