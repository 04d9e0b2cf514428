// A ship that does not behave: one that accepts the event socket but never sends `sync`, and one that
// answers a routed status for another workspace or with a malformed body. The bridge answers 502 and
// never passes such answers on.
import { insecureBridge } from './../helpers/bridge.js';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pino } from 'pino';
import { WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { call, makeTempRoot, path, removeRoot } from '../helpers/ship.js';
import { settles, until } from '../helpers/poll.js';

let root: string;
let bridge: Bridge;
const servers: Server[] = [];

/** A fake ship: `/events` sends `sync` (unless mute) and `GET /workspaces/…` answers with `status`. */
const listCalls = new Map<string, number>();

const resourceCalls = new Map<string, number>();

/** Per fake ship: the most fleet-read calls (listing or resources) it had open at once, and those open now. */
const mostAtOnce = new Map<string, number>();
const openCalls = new Map<string, number>();
const answerLater = (ship: string, answer: () => void) => {
  openCalls.set(ship, (openCalls.get(ship) ?? 0) + 1);
  mostAtOnce.set(ship, Math.max(mostAtOnce.get(ship) ?? 0, openCalls.get(ship)!));
  setTimeout(() => {
    openCalls.set(ship, openCalls.get(ship)! - 1);
    answer();
  }, 100);
};

async function fakeShip(options: {
  name: string;
  mute?: boolean;
  status?: (repo: string, name: string) => unknown;
}): Promise<string> {
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/workspaces') {
      listCalls.set(options.name, (listCalls.get(options.name) ?? 0) + 1);
      answerLater(options.name, () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify([{ repoName: 'r', name: options.name, branch: 'main', active: false, agent: null }]),
        );
      });
      return;
    }
    if (request.method === 'GET' && request.url === '/system-resources') {
      resourceCalls.set(options.name, (resourceCalls.get(options.name) ?? 0) + 1);
      // An invalid body: the bridge reports the ship inline with an error, and a burst still costs few calls.
      answerLater(options.name, () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      return;
    }
    const match = /^\/workspaces\/([^/]+)\/([^/]+)$/.exec(request.url ?? '');
    if (request.method === 'GET' && match) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(options.status?.(decodeURIComponent(match[1]!), decodeURIComponent(match[2]!))));
      return;
    }
    response.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server, path: '/events' });
  wss.on('connection', (socket) => {
    if (options.mute) return;
    socket.send(
      JSON.stringify({
        type: 'sync',
        ship: options.name,
        at: new Date().toISOString(),
        workspaces: [{ repoName: 'r', name: options.name, branch: 'main', active: false, agent: null }],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

beforeAll(async () => {
  root = await makeTempRoot();
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
    registrationProbeMs: 700,
  });
}, 60_000);
afterAll(async () => {
  await bridge.close();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await removeRoot(root);
});

describe('misbehaving ships', () => {
  it('refuses to register a ship that opens the stream but never sends sync', async () => {
    const url = await fakeShip({ name: 'mute', mute: true });
    const reply = await call(bridge.url, 'POST', '/ships', { url });
    expect(reply.status).toBe(502);
    expect(reply.body.error).toBe(`ship at ${url} did not respond: no sync within 700 ms`);
  });

  it('answers 502 for a status naming another workspace, or one that does not parse', async () => {
    const liar = await fakeShip({
      name: 'liar',
      status: () => ({ state: 'inactive', repoName: 'r', name: 'someone-else', branch: 'main' }),
    });
    const broken = await fakeShip({ name: 'broken', status: () => ({ state: 'exploded' }) });
    expect((await call(bridge.url, 'POST', '/ships', { url: liar })).status).toBe(201);
    expect((await call(bridge.url, 'POST', '/ships', { url: broken })).status).toBe(201);
    const lie = await call(bridge.url, 'GET', path('r', 'liar'));
    expect(lie).toMatchObject({
      status: 502,
      body: { error: 'ship "liar" answered for r/someone-else instead of r/liar' },
    });
    expect(await call(bridge.url, 'GET', path('r', 'broken'))).toMatchObject({
      status: 502,
      body: { error: 'ship "broken" returned an invalid workspace status' },
    });
  });

  // Single flight without memory: a read arriving while a fetch runs waits for the next one, so a burst
  // costs each ship one call at a time, a few in all (docs/security.md H17: ≤ 5 per ship).
  it('answers a burst of fleet listings with a few calls per ship, one at a time (single flight)', async () => {
    listCalls.clear();
    mostAtOnce.clear();
    const replies = await Promise.all(Array.from({ length: 20 }, () => call(bridge.url, 'GET', '/workspaces')));
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    expect(listCalls.get('liar')).toBeLessThanOrEqual(5);
    expect(listCalls.get('broken')).toBeLessThanOrEqual(5);
    expect([mostAtOnce.get('liar'), mostAtOnce.get('broken')]).toEqual([1, 1]);
  });

  it('answers 200 concurrent fleet-wide resource reads with at most 5 calls per ship, one at a time (H17)', async () => {
    resourceCalls.clear();
    mostAtOnce.clear();
    const replies = await Promise.all(Array.from({ length: 200 }, () => call(bridge.url, 'GET', '/system-resources')));
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    expect(resourceCalls.get('liar')).toBeLessThanOrEqual(5);
    expect(resourceCalls.get('broken')).toBeLessThanOrEqual(5);
    expect([mostAtOnce.get('liar'), mostAtOnce.get('broken')]).toEqual([1, 1]);
    expect(replies[0]!.body.find((row: { ship: string }) => row.ship === 'liar')).toMatchObject({
      status: 'online',
      resources: null,
      error: 'ship "liar" returned invalid system resources',
    });
  });

  it("refuses the issue form for a repo that is not on GitHub, with the spec's combination rules", async () => {
    await call(bridge.url, 'POST', '/repos', { name: 'r', url: 'https://example.com/r.git' });
    const create = (body: Record<string, unknown>) =>
      call(bridge.url, 'POST', '/workspaces', { ship: 'liar', repoName: 'r', name: 'x', ...body });
    expect((await create({ branch: 'main', issueNumber: 3 })).status).toBe(400);
    expect((await create({})).status).toBe(400);
    expect((await create({ issueNumber: 0 })).body).toEqual({ error: 'issueNumber must be a positive integer' });
    expect((await create({ branch: 'main', ephemeral: true })).body).toEqual({
      error: 'ephemeral is only accepted together with issueNumber',
    });
    expect((await create({ issueNumber: 3 })).body).toEqual({
      error: 'creating a workspace from an issue needs a repo with provider "github"; repo "r" has provider "custom"',
    });
  });
});

describe('a flooding ship', () => {
  it('has its stream reset past the event budget while other routes stay responsive', async () => {
    const { createServer: createHttp } = await import('node:http');
    let connections = 0;
    const server = createHttp((_request, response) => response.writeHead(404).end());
    const wss = new WebSocketServer({ server, path: '/events' });
    wss.on('connection', (socket) => {
      connections++;
      const workspace = { repoName: 'f', name: 'flood', branch: 'main', active: false, agent: null };
      socket.send(
        JSON.stringify({ type: 'sync', ship: 'flooder', at: new Date().toISOString(), workspaces: [workspace] }),
      );
      // 5,000 events as fast as the socket takes them.
      for (let i = 0; i < 5000 && socket.readyState === socket.OPEN; i++) {
        socket.send(
          JSON.stringify({
            type: 'workspace.agent_status_changed',
            ship: 'flooder',
            at: new Date().toISOString(),
            workspace: { ...workspace, branch: `b${i}` },
          }),
        );
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const started = Date.now();
    expect((await call(bridge.url, 'POST', '/ships', { url })).status).toBe(201);
    const probe = await call(bridge.url, 'GET', '/ships');
    expect(probe.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3000);
    await settles(until(() => connections >= 2, 'a second connection', 2_000));
    expect(connections).toBeGreaterThanOrEqual(2);
    expect((await call(bridge.url, 'DELETE', '/ships/flooder')).status).toBe(200);
  });
});
