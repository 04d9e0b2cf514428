// The shared client of svc's servers (server/svc-client.ts) against real local HTTP servers: what it sends,
// each kind of RequestFailed (refused, unauthorized, unavailable for a 5xx, a redirect or no answer, timeout for
// a silent server or a stalled body), a route's verdict 5xx, the one renewal on 401, the wording, and `observe`.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { type FailedCall, RequestFailed } from './request-failed.js';
import { ANONYMOUS, type Credential, fixedToken, type ObservedCall, SvcClient } from './svc-client.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const servers: (Server | TcpServer)[] = [];
const sockets = new Set<Socket>();

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

async function listen(server: Server | TcpServer): Promise<string> {
  servers.push(server);
  server.on('connection', (socket: Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** A server that records each request and answers it with `answer`. */
async function serve(answer: (request: Received, response: ServerResponse) => void) {
  const received: Received[] = [];
  const url = await listen(
    createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const seen = {
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        received.push(seen);
        answer(seen, response);
      });
    }),
  );
  return { url, received };
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

async function rejection(promise: Promise<unknown>): Promise<RequestFailed> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RequestFailed);
    return error as RequestFailed;
  }
  throw new Error('expected a rejection');
}

describe('a call that succeeds', () => {
  it('sends the method, path, JSON body and bearer token, and returns the parsed answer, null for an empty one, or text', async () => {
    const { url, received } = await serve((request, response) => {
      if (request.url === '/empty') return void response.writeHead(204).end();
      if (request.url === '/diff') return void response.writeHead(200, { 'content-type': 'text/plain' }).end('+a\n');
      json(response, 201, { echoed: JSON.parse(request.body || 'null') });
    });
    const client = new SvcClient({ url: `${url}/`, credential: fixedToken('t0k') });
    expect(client.url).toBe(url);
    expect(await client.request({ method: 'POST', path: '/things?x=1', body: { name: 'a' } })).toEqual({
      echoed: { name: 'a' },
    });
    expect(received[0]).toMatchObject({ method: 'POST', url: '/things?x=1', body: '{"name":"a"}' });
    expect(received[0]!.headers).toMatchObject({
      authorization: 'Bearer t0k',
      'content-type': 'application/json',
      'content-length': '12',
      accept: 'application/json',
      connection: 'close',
    });
    expect(await client.request({ method: 'DELETE', path: '/empty' })).toBeNull();
    expect(await client.request({ method: 'GET', path: '/diff', text: true })).toBe('+a\n');
    // A per-call credential replaces the client's: none at all here.
    await client.request({ method: 'GET', path: '/empty', credential: ANONYMOUS });
    expect(received.at(-1)!.headers.authorization).toBeUndefined();
  });
});

describe('each failure is a RequestFailed of one kind', () => {
  it('a 4xx is refused with the server\'s {error} as detail, worded "request failed (<status>): <detail>"', async () => {
    const { url } = await serve((_request, response) => json(response, 404, { error: 'workspace not found: r/n' }));
    const failure = await rejection(new SvcClient({ url }).request({ method: 'GET', path: '/workspaces/r/n' }));
    expect(failure).toMatchObject({
      kind: 'refused',
      status: 404,
      detail: 'workspace not found: r/n',
      message: 'request failed (404): workspace not found: r/n',
    });
  });

  it('401 and 403 are unauthorized', async () => {
    const { url } = await serve((request, response) =>
      json(response, request.url === '/admin' ? 403 : 401, { error: 'nope' }),
    );
    const client = new SvcClient({ url });
    expect(await rejection(client.request({ method: 'GET', path: '/me' }))).toMatchObject({
      kind: 'unauthorized',
      status: 401,
    });
    expect(await rejection(client.request({ method: 'GET', path: '/admin' }))).toMatchObject({
      kind: 'unauthorized',
      status: 403,
    });
  });

  it("a 5xx is unavailable, unless the route declares it its verdict and the body is the server's {error}", async () => {
    const { url } = await serve((request, response) => {
      if (request.url === '/proxy') {
        response.writeHead(502, { 'content-type': 'text/html' });
        return void response.end('<html>Bad Gateway</html>');
      }
      json(response, request.url === '/down' ? 503 : 502, { error: 'ship at http://s did not respond: ECONNREFUSED' });
    });
    const client = new SvcClient({ url });
    expect(await rejection(client.request({ method: 'GET', path: '/down', verdicts: [502] }))).toMatchObject({
      kind: 'unavailable',
      status: 503,
    });
    expect(await rejection(client.request({ method: 'POST', path: '/ships', verdicts: [502] }))).toMatchObject({
      kind: 'refused',
      status: 502,
      detail: 'ship at http://s did not respond: ECONNREFUSED',
    });
    expect(await rejection(client.request({ method: 'POST', path: '/ships' }))).toMatchObject({
      kind: 'unavailable',
      status: 502,
    });
    // Something in front of the server answered: its text is the detail, and it is never a verdict.
    expect(await rejection(client.request({ method: 'POST', path: '/proxy', verdicts: [502] }))).toMatchObject({
      kind: 'unavailable',
      status: 502,
      detail: '<html>Bad Gateway</html>',
    });
  });

  it('a redirect is not followed: unavailable, naming where it pointed', async () => {
    const target = await serve((_request, response) => json(response, 200, { followed: true }));
    const { url } = await serve((_request, response) => {
      response.writeHead(307, { location: `${target.url}/elsewhere` });
      response.end();
    });
    const failure = await rejection(new SvcClient({ url }).request({ method: 'POST', path: '/x', body: { a: 1 } }));
    expect(failure).toMatchObject({
      kind: 'unavailable',
      status: 307,
      message: `request failed (307): redirected to ${target.url}/elsewhere, which svc does not follow`,
    });
    expect(target.received).toEqual([]);
  });

  it('nothing listening is unavailable with no status, the system error as cause, and the hint in the message', async () => {
    const closed = await listen(createTcpServer());
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const failure = await rejection(
      new SvcClient({ url: closed, unreachableHint: 'is the bridge running?' }).request({ method: 'GET', path: '/' }),
    );
    expect(failure).toMatchObject({ kind: 'unavailable', status: undefined, detail: undefined });
    expect(failure.message).toBe(`cannot reach ${closed} (ECONNREFUSED): is the bridge running?`);
    expect((failure.cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('a server that never answers, or stops halfway through the body, is a timeout at the deadline', async () => {
    const silent = await listen(createTcpServer(() => {}));
    const client = new SvcClient({ url: silent, timeoutMs: 60_000 });
    const failure = await rejection(client.request({ method: 'GET', path: '/ships', timeoutMs: 100 }));
    expect(failure).toMatchObject({ kind: 'timeout', status: undefined });
    expect(failure.message).toBe(`cannot reach ${silent} (timed out)`);

    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"half":');
    });
    const stalled = await rejection(new SvcClient({ url, timeoutMs: 100 }).request({ method: 'GET', path: '/' }));
    expect(stalled).toMatchObject({ kind: 'timeout', status: undefined });
  });

  it('a 2xx that is not JSON is unavailable', async () => {
    const { url } = await serve((_request, response) => response.writeHead(200).end('<html>portal</html>'));
    expect(await rejection(new SvcClient({ url }).request({ method: 'GET', path: '/' }))).toMatchObject({
      kind: 'unavailable',
      status: 200,
      detail: 'the answer is not JSON',
    });
  });

  it("the detail is {error}, else {message}, else the text, else HTTP <status>, cut to the client's limit", async () => {
    const { url } = await serve((request, response) => {
      if (request.url === '/message') return json(response, 400, { message: 'body/name must be string' });
      if (request.url === '/text') return void response.writeHead(400).end('  plain words \n');
      if (request.url === '/long') return json(response, 409, { error: 'x'.repeat(600) });
      response.writeHead(418).end();
    });
    const detail = async (path: string, detailLimit?: number) =>
      (await rejection(new SvcClient({ url, detailLimit }).request({ method: 'GET', path }))).detail;
    expect(await detail('/message')).toBe('body/name must be string');
    expect(await detail('/text')).toBe('plain words');
    expect(await detail('/empty')).toBe('HTTP 418');
    expect(await detail('/long')).toHaveLength(600);
    expect(await detail('/long', 500)).toHaveLength(500);
  });

  it("the caller's wording replaces the default, per client and per call", async () => {
    const { url } = await serve((_request, response) => json(response, 409, { error: 'taken' }));
    const seen: FailedCall[] = [];
    const client = new SvcClient({
      url,
      describe: (failure) => {
        seen.push(failure);
        return `the bridge said ${failure.detail} to ${failure.method} ${failure.route}`;
      },
    });
    const failure = await rejection(client.request({ method: 'DELETE', path: '/ships/a', route: '/ships/:name' }));
    expect(failure.message).toBe('the bridge said taken to DELETE /ships/:name');
    expect(seen).toEqual([
      { kind: 'refused', status: 409, detail: 'taken', method: 'DELETE', route: '/ships/:name', url },
    ]);
    const own = await rejection(client.request({ method: 'GET', path: '/x', describe: () => 'my words' }));
    expect(own.message).toBe('my words');
  });
});

describe('a 401 renews the credential once', () => {
  /** A server that accepts only `valid` tokens, and a credential that hands out `tokens` in turn. */
  async function setUp(valid: string[], tokens: (string | undefined)[]) {
    const { url, received } = await serve((request, response) => {
      const token = request.headers.authorization?.replace('Bearer ', '');
      if (token && valid.includes(token)) return json(response, 200, { token });
      json(response, 401, { error: 'authentication required' });
    });
    const renewals: (string | null)[] = [];
    let next = 0;
    const credential: Credential = {
      token: async () => tokens[0]!,
      renew: async (rejected) => {
        renewals.push(rejected);
        return tokens[++next];
      },
    };
    const observed: ObservedCall[] = [];
    const client = new SvcClient({ url, credential, observe: (call) => observed.push(call) });
    const sentTokens = () => received.map((request) => request.headers.authorization);
    return { client, renewals, sentTokens, observed };
  }

  it('sends the call again with the fresh token', async () => {
    const { client, renewals, sentTokens, observed } = await setUp(['fresh'], ['stale', 'fresh']);
    expect(await client.request({ method: 'GET', path: '/ships/a', route: '/ships/:name' })).toEqual({
      token: 'fresh',
    });
    expect(renewals).toEqual(['stale']);
    expect(sentTokens()).toEqual(['Bearer stale', 'Bearer fresh']);
    expect(observed.map(({ method, route, status }) => ({ method, route, status }))).toEqual([
      { method: 'GET', route: '/ships/:name', status: 401 },
      { method: 'GET', route: '/ships/:name', status: 200 },
    ]);
  });

  it('a second 401 fails the call: never a third attempt', async () => {
    const { client, renewals, sentTokens } = await setUp([], ['stale', 'also-stale', 'never-asked']);
    expect(await rejection(client.request({ method: 'GET', path: '/' }))).toMatchObject({
      kind: 'unauthorized',
      status: 401,
      message: 'request failed (401): authentication required',
    });
    expect(renewals).toEqual(['stale']);
    expect(sentTokens()).toEqual(['Bearer stale', 'Bearer also-stale']);
  });

  it('a credential that cannot be renewed fails at the first 401', async () => {
    const { client, sentTokens } = await setUp([], ['stale', undefined]);
    expect(await rejection(client.request({ method: 'GET', path: '/' }))).toMatchObject({ status: 401 });
    expect(sentTokens()).toEqual(['Bearer stale']);
  });
});

it('observe sees every exchange, status 0 when nothing answered', async () => {
  const closed = await listen(createTcpServer());
  await new Promise((resolve) => servers.pop()!.close(resolve));
  const observed: ObservedCall[] = [];
  await rejection(
    new SvcClient({ url: closed, observe: (call) => observed.push(call) }).request({ method: 'GET', path: '/repos' }),
  );
  expect(observed).toEqual([{ method: 'GET', route: '/repos', status: 0, durationMs: expect.any(Number) }]);
});
