// Agent-credential pushes against a ship endpoint on a real socket: whatever order the calls land in and
// however many are retried, the ship ends up holding the newest token, the one the store accepts.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/store.js';
import { ShipClient } from '../ships/ship-client.js';
import { AgentCredentials } from './agent-credentials.js';
import { Authenticator } from './authenticator.js';

let dir: string;
let store: Store;
let authenticator: Authenticator;
let credentials: AgentCredentials;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-agent-credentials-'));
  store = await openStore({ dataDirectory: dir });
  await store.ships.add({ name: 'alpha', url: 'http://127.0.0.1:1', shipTokenHash: null, bridgeToken: null });
  authenticator = new Authenticator(store.credentials, Date.now);
  credentials = new AgentCredentials({
    store: store.agentTokens,
    authenticator,
    clock: Date.now,
    bridgeUrl: () => 'http://bridge.test',
    logger: pino({ level: 'silent' }),
  });
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A ship's POST /agent/credentials: records each token as its call lands, answering the n-th after `delays[n]` ms. */
function fakeShip(delays: number[] = []): {
  server: http.Server;
  landed: string[];
  listen(port?: number): Promise<number>;
} {
  const landed: string[] = [];
  let calls = 0;
  const server = http.createServer((request, response) => {
    const delay = delays[calls++] ?? 0;
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () =>
      setTimeout(() => {
        landed.push((JSON.parse(body) as { token: string }).token);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }, delay),
    );
  });
  const listen = (port = 0) =>
    new Promise<number>((resolve) =>
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    );
  return { server, landed, listen };
}

/** Whether `token` is the ship-agent credential the bridge now accepts for alpha. */
async function accepted(token: string): Promise<boolean> {
  authenticator.forgetShip('alpha');
  const principal = await authenticator.resolve(token);
  return principal?.kind === 'ship-agent' && principal.ship === 'alpha';
}

describe('agent credential pushes', () => {
  it('a push whose call lands late never leaves the ship holding a revoked token', async () => {
    // The first call is answered 400 ms late, the second at once: unordered, the first would land last.
    const ship = fakeShip([400, 0]);
    const port = await ship.listen();
    const client = new ShipClient(`http://127.0.0.1:${port}`, null);
    const first = credentials.push('alpha', client);
    // The order under test: the first push is on the wire before the second starts.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await Promise.all([first, credentials.push('alpha', client)]);
    expect(ship.landed).toHaveLength(2);
    expect(await accepted(ship.landed[0]!)).toBe(false);
    expect(await accepted(ship.landed[1]!)).toBe(true);
    ship.server.close();
  });

  it('a push that is being retried stops once a newer token was minted', async () => {
    // Nothing listens yet: both pushes fail and wait to retry; the ship comes up before either retries twice.
    const probe = fakeShip();
    const port = await probe.listen();
    await new Promise((resolve) => probe.server.close(resolve));
    const client = new ShipClient(`http://127.0.0.1:${port}`, null);
    const first = credentials.push('alpha', client);
    // The order under test: the first push has failed once and waits to retry before the second starts.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = credentials.push('alpha', client);
    const ship = fakeShip();
    await ship.listen(port);
    await Promise.all([first, second]);
    expect(ship.landed).toHaveLength(1);
    expect(await accepted(ship.landed[0]!)).toBe(true);
    ship.server.close();
  });
});
