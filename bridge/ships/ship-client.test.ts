// ShipClient over a real node:http server that drops a kept-alive connection the moment it is reused, as a
// ship whose keep-alive ended does when the bridge's next call races its close: a GET is sent once more on a
// fresh connection, any other method is ShipUnreachable (it may have reached the ship); an idle connection
// is let go before the ship's keep-alive would end it; a call cut short by the client's own close says so.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HTTP_LIMITS } from '../../protocol/index.js';
import { ShipClient, ShipClientClosed, ShipUnreachable } from './ship-client.js';

interface DroppingServer {
  url: string;
  /** Connections accepted so far. */
  connections: () => number;
  /** Requests answered so far. */
  answered: () => number;
  close: () => Promise<void>;
}

/** Answers the first request of each connection; destroys the connection when a second one arrives on it. */
async function droppingServer(): Promise<DroppingServer> {
  const served = new WeakMap<Socket, number>();
  let connections = 0;
  let answered = 0;
  const server: Server = createServer((request, response) => {
    const socket = request.socket;
    const count = (served.get(socket) ?? 0) + 1;
    served.set(socket, count);
    if (count > 1) {
      socket.destroy();
      return;
    }
    answered++;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: request.method }));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    answered: () => answered,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let server: DroppingServer | undefined;
let client: ShipClient | undefined;
afterEach(async () => {
  client?.close();
  await server?.close();
});

describe('ShipClient on a connection the ship closed', () => {
  it('sends a GET once more on a fresh connection', async () => {
    server = await droppingServer();
    client = new ShipClient(server.url, null);
    expect(await client.call({ method: 'GET', path: '/workspaces' })).toMatchObject({
      status: 200,
      text: '{"method":"GET"}',
    });
    expect(await client.call({ method: 'GET', path: '/workspaces' })).toMatchObject({
      status: 200,
      text: '{"method":"GET"}',
    });
    expect({ connections: server.connections(), answered: server.answered() }).toEqual({ connections: 2, answered: 2 });
  });

  it('does not repeat another method: it may have reached the ship', async () => {
    server = await droppingServer();
    client = new ShipClient(server.url, null);
    expect((await client.call({ method: 'GET', path: '/workspaces' })).status).toBe(200);
    const failed = await client.call({ method: 'DELETE', path: '/workspaces/a/b' }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ShipUnreachable);
    expect({ connections: server.connections(), answered: server.answered() }).toEqual({ connections: 1, answered: 1 });
  });

  it("keeps an idle connection for less than the ship's keep-alive", async () => {
    server = await droppingServer();
    client = new ShipClient(server.url, null);
    expect((await client.call({ method: 'GET', path: '/' })).status).toBe(200);
    const agent = (client as unknown as { agent: { freeSockets: Record<string, Socket[]> } }).agent;
    const idle = Object.values(agent.freeSockets).flat();
    expect(idle).toHaveLength(1);
    expect(idle[0]!.timeout).toBe(HTTP_LIMITS.keepAliveTimeoutMs - 1_000);
  });
});

describe('ShipClient closed while a call is in flight', () => {
  it('fails that call as ShipClientClosed, saying why, never resends it, and a call the ship drops is plain ShipUnreachable', async () => {
    const held: Array<() => void> = [];
    const requests: string[] = [];
    const holding = createServer((request, response) => {
      requests.push(request.url!);
      if (request.url === '/drop') request.socket.destroy();
      else if (request.url === '/answer') response.end('{}');
      else held.push(() => request.socket.destroy());
    });
    await new Promise<void>((resolve) => holding.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(holding.address() as AddressInfo).port}`;
    try {
      client = new ShipClient(url, null);
      const dropped = await client.call({ method: 'POST', path: '/drop', body: {} }).catch((error: unknown) => error);
      expect(dropped).toBeInstanceOf(ShipUnreachable);
      expect(dropped).not.toBeInstanceOf(ShipClientClosed);
      const pending = client.call({ method: 'POST', path: '/armory/sync', body: {} }).catch((error: unknown) => error);
      await expect.poll(() => held.length).toBe(1);
      client.close();
      const failed = await pending;
      expect(failed).toBeInstanceOf(ShipClientClosed);
      expect((failed as Error).message).toBe(
        `call to ${url} abandoned: the ship was removed or the bridge is stopping`,
      );
      // A GET on a reused connection is not sent again once the client is closed: the ship is gone.
      expect(
        (await client.call({ method: 'GET', path: '/answer' }).catch((error: unknown) => error)) as unknown,
      ).toMatchObject({ status: 200 });
      const pendingGet = client.call({ method: 'GET', path: '/hold' }).catch((error: unknown) => error);
      await expect.poll(() => held.length).toBe(2);
      client.close();
      expect(await pendingGet).toBeInstanceOf(ShipClientClosed);
      expect(requests).toEqual(['/drop', '/armory/sync', '/answer', '/hold']);
    } finally {
      for (const release of held) release();
      holding.close();
    }
  });
});
