// Login guessing (docs/security.md H17/H22): wrong passwords from one address slow that address down (and a
// name that is guessed at slows down too), while a good login from another address stays fast. Requests
// leave from distinct loopback addresses (127.0.0.1 and 127.0.0.2).
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempRoot, removeRoot } from '../helpers/ship.js';
import { ADMIN, startAuthBridge, type AuthHarness } from '../auth/harness.js';

let root: string;
let h: AuthHarness;

beforeAll(async () => {
  root = await makeTempRoot();
  h = await startAuthBridge(root, { clock: undefined });
  const admin = await h.login(ADMIN.username, ADMIN.password);
  await h.addUser(admin, 'victim');
  await h.addUser(admin, 'bystander');
}, 60_000);

afterAll(async () => {
  await h?.bridge.close();
  await removeRoot(root);
});

function login(from: string, username: string, password: string): Promise<{ status: number; ms: number }> {
  const { hostname, port } = new URL(h.bridge.url);
  const body = JSON.stringify({ username, password });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: hostname === 'localhost' ? '127.0.0.1' : hostname,
        port,
        path: '/auth/login',
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('a login flood', () => {
  it('slows the guessing address and the guessed name, not a good login from elsewhere', async () => {
    // 20 wrong passwords spread over many names from one address are free; the 21st waits.
    for (let i = 0; i < 20; i++) expect((await login('127.0.0.1', `nobody-${i}`, 'wrong-password')).status).toBe(401);
    const slowed = await login('127.0.0.1', 'nobody-x', 'wrong-password');
    expect(slowed.status).toBe(401);
    expect(slowed.ms).toBeGreaterThanOrEqual(950);
    // A user logging in from another address is not held up by that address's failures.
    const bystander = await login('127.0.0.2', 'bystander', 'bystander-password-1');
    expect(bystander.status).toBe(200);
    expect(bystander.ms).toBeLessThan(900);
    // A guessed name: five free failures from a fresh address, then each attempt waits, the right password included.
    for (let i = 0; i < 5; i++) await login('127.0.0.3', 'victim', 'wrong-password');
    const held = await login('127.0.0.3', 'victim', 'victim-password-1');
    expect(held.status).toBe(200);
    expect(held.ms).toBeGreaterThanOrEqual(950);
  }, 60_000);
});
