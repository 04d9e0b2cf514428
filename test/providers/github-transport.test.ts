// The GitHub provider's own transport (github-fetch.ts) and the sweep's reads on it (github-reads.ts),
// against a bare local HTTP server where the fake forge cannot stage the case: the same headers as
// Octokit's own requests, a redirect handed to the global fetch (a renamed repository), a compressed answer,
// a kept-alive connection the server drops as it is reused, a 409 ending a list, and the Response Octokit
// gets being a real one.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BufferedResponse, GitHubTransport } from '../../bridge/providers/github-fetch.js';
import { GitHubProvider } from '../../bridge/providers/github.js';
import { ProviderError } from '../../bridge/providers/forge-provider.js';

const TOKEN = 'ghp_transport_0123456789';
const repo = { name: 'widget', url: 'https://github.example/acme/widget.git', provider: 'github' };

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server answering with `handler`; its base URL. */
async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
};

const issue = { number: 7, title: 'Seven', state: 'open' };

describe('the sweep reads', () => {
  it('send what Octokit sends: accept, user-agent and the token', async () => {
    const seen: IncomingMessage['headers'][] = [];
    const base = await serve((request, response) => {
      seen.push(request.headers);
      if (request.url === '/repos/acme/widget')
        return json(response, 200, {
          name: 'widget',
          full_name: 'acme/widget',
          html_url: 'x',
          default_branch: 'main',
          private: false,
          stargazers_count: 0,
          open_issues_count: 0,
        });
      json(response, 200, issue);
    });
    const provider = new GitHubProvider({ token: TOKEN, baseUrl: base });
    await provider.repoInfo(repo); // through Octokit
    expect(await provider.readIssue(repo, 7)).toEqual(issue); // the sweep's read
    const pick = (headers: IncomingMessage['headers']) => ({
      accept: headers.accept,
      'user-agent': headers['user-agent'],
      authorization: headers.authorization,
    });
    expect(pick(seen[1]!)).toEqual(pick(seen[0]!));
    expect(seen[1]!.authorization).toBe(`token ${TOKEN}`);
    expect(seen[1]!['user-agent']).toMatch(/^svc-bridge octokit-rest\.js\//);
  });

  it('a redirect (a renamed repository) is followed through Octokit', async () => {
    const paths: string[] = [];
    const base = await serve((request, response) => {
      paths.push(request.url!);
      if (request.url!.startsWith('/repos/acme/widget/')) {
        response.writeHead(301, { location: `${base}${request.url!.replace('/widget/', '/gadget/')}` });
        return response.end();
      }
      if (request.url!.startsWith('/repos/acme/gadget/pulls'))
        return json(response, 200, [
          { number: 3, state: 'closed', html_url: 'https://github.example/acme/gadget/pull/3' },
        ]);
      json(response, 200, issue);
    });
    const provider = new GitHubProvider({ token: TOKEN, baseUrl: base });
    expect(await provider.readIssue(repo, 7)).toEqual(issue);
    expect(await provider.pullsForBranch(repo, 'b')).toEqual([
      { number: 3, state: 'closed', url: 'https://github.example/acme/gadget/pull/3' },
    ]);
    expect(paths.filter((path) => path.includes('/gadget/'))).toHaveLength(2);
  });

  it('a compressed answer is decoded', async () => {
    const base = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(gzipSync(JSON.stringify(issue)));
    });
    expect(await new GitHubProvider({ token: TOKEN, baseUrl: base }).readIssue(repo, 7)).toEqual(issue);
  });

  it('a 409 ends a list as octokit.paginate does; other failures are the forge status with its message', async () => {
    let answer = 409;
    const base = await serve((request, response) => {
      if (request.url!.includes('page=2'))
        return json(response, answer, { message: answer === 409 ? 'Git Repository is empty.' : 'Validation Failed' });
      json(response, 200, [{ number: 1, state: 'open', html_url: 'u' }], {
        link: `<${base}/repos/acme/widget/pulls?head=acme%3Ab&state=all&per_page=100&page=2>; rel="next"`,
      });
    });
    const provider = new GitHubProvider({ token: TOKEN, baseUrl: base });
    expect(await provider.pullsForBranch(repo, 'b')).toEqual([{ number: 1, state: 'open', url: 'u' }]);
    answer = 422;
    const error = await provider.pullsForBranch(repo, 'b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 422, message: 'GitHub request failed (422): Validation Failed' });
  });
});

describe('the transport', () => {
  it('asks again on a fresh connection when a kept-alive one is dropped as it is reused', async () => {
    const sockets = new Set<Socket>();
    let requests = 0;
    const base = await serve((request, response) => {
      requests++;
      // The second request on a connection finds it closed by the server, as a keep-alive timeout races it.
      if (sockets.has(request.socket)) return request.socket.destroy();
      sockets.add(request.socket);
      json(response, 200, { n: requests });
    });
    const transport = new GitHubTransport();
    const first = await transport.read(new URL(`${base}/a`), 'GET', {});
    const second = await transport.read(new URL(`${base}/b`), 'GET', {});
    expect(JSON.parse(first.body.toString())).toEqual({ n: 1 });
    expect(JSON.parse(second.body.toString())).toEqual({ n: 3 });
    expect(sockets.size).toBe(2);
  });

  it('a connection dropped on its first request is a failure, not a retry', async () => {
    let requests = 0;
    const base = await serve((request) => {
      requests++;
      request.socket.destroy();
    });
    await expect(new GitHubTransport().read(new URL(`${base}/a`), 'GET', {})).rejects.toThrow(/socket hang up/);
    expect(requests).toBe(1);
  });

  it('gives Octokit a real Response with its body in memory; writes go to the fallback', async () => {
    const base = await serve((_request, response) =>
      json(response, 200, { ok: true }, { 'x-ratelimit-remaining': '10' }),
    );
    const fallen: string[] = [];
    const fetch = new GitHubTransport().fetch(async (input, init) => {
      fallen.push(`${init?.method} ${String(input)}`);
      return new Response('{}');
    });
    const response = await fetch(`${base}/x`, { method: 'GET', headers: { accept: 'application/json' } });
    expect(response).toBeInstanceOf(Response);
    expect(response).toBeInstanceOf(BufferedResponse);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${base}/x`);
    expect(response.headers.get('x-ratelimit-remaining')).toBe('10');
    expect(await response.clone().json()).toEqual({ ok: true });
    expect(await new Response(response.body).text()).toBe('{"ok":true}');
    expect(new TextDecoder().decode(await response.arrayBuffer())).toBe('{"ok":true}');
    await fetch(`${base}/x`, { method: 'POST', body: '{}', headers: {} });
    expect(fallen).toEqual([`POST ${base}/x`]);
  });
});
