// The ship's MCP endpoint (issue #16), driven by the SDK's own Streamable HTTP client against a real ship
// with SVC_BRIDGE_TOKEN set: the 13 tools and their schemas, the agent status lifecycle with its events,
// JSON and event-stream answers, GET/DELETE, who may call it, and the repository tools against a small real
// HTTP server standing in for the bridge's /repos routes (answering docs/architecture.md §8 shapes, then 404, then 401).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Value } from 'typebox/value';
import { pino } from 'pino';
import { makeRemote } from '../helpers/git-fixtures.js';
import { connectEvents } from '../helpers/events.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { AgentStatus, UpdateAgentStatusRequest } from '../../protocol/index.js';
import { agentStatus as agentStatusSchema, agentStatusInput } from '../../ship/agents/mcp/schemas.js';
import * as z from 'zod';

const BRIDGE_TOKEN = 'sentinel-bridge-token-mcp-0123456789';
const AGENT_TOKEN = 'sentinel-agent-token-mcp-9876543210';
const bridgeAuth = { authorization: `Bearer ${BRIDGE_TOKEN}` };
const init = { model: 'claude-x', provider: 'anthropic', harness: 'claude-code' };
const TOOLS = [
  'agent_init',
  'agent_status',
  'agent_status_get',
  'repo_info',
  'repo_issue_list',
  'repo_issue_view',
  'repo_issue_comment',
  'repo_pr_list',
  'repo_pr_view',
  'repo_pr_comment',
  'repo_pr_review',
  'repo_checks',
  'repo_failed_logs',
];

let root: string;
let ship: TestShip;
let bridge: Server;
let bridgeUrl: string;
let bridgeMode: 'serve' | 'missing' | 'rotated' | 'odd' = 'serve';
/** Everything the ship logs, at debug level: no credential may appear in it. */
const logLines: string[] = [];
const mcpTokensSeen = new Set<string>();
const bridgeSeen: Array<{ method: string; url: string; authorization: string | undefined; body: any }> = [];

const mcpToken = async (name: string) => {
  const token = (await ship.ship.tmux.sessionVariables(sessionName('r', name))).SVC_MCP_TOKEN!;
  mcpTokensSeen.add(token);
  return token;
};
const mcpUrl = (name: string) => new URL(ship.url + path('r', name, '/mcp'));

/** The SDK client over HTTP; `sse` makes each POST ask for an event stream first (the SDK lists JSON first). */
async function connect(
  name: string,
  token: string | null,
  options: { sse?: boolean; contentTypes?: string[] } = {},
): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '0.0.1' });
  const fetchFn: typeof fetch = async (input, requestInit) => {
    const headers = new Headers(requestInit?.headers);
    if (options.sse && requestInit?.method === 'POST') headers.set('accept', 'text/event-stream, application/json');
    const response = await fetch(input, { ...requestInit, headers });
    options.contentTypes?.push(
      `${requestInit?.method} ${response.status} ${response.headers.get('content-type') ?? ''}`,
    );
    return response;
  };
  const transport = new StreamableHTTPClientTransport(mcpUrl(name), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
    fetch: fetchFn,
  });
  await client.connect(transport);
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: Array<{ type: string; text: string }>;
    structuredContent?: any;
  };
}
const text = (result: { content: Array<{ text: string }> }) => result.content.map((c) => c.text).join('\n');

const rpc = (method: string, params: unknown = {}, id = 1) => ({ jsonrpc: '2.0', id, method, params });
const INITIALIZE = rpc('initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'raw', version: '0' },
});

async function readBody(request: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString();
  return raw ? JSON.parse(raw) : undefined;
}

// The bridge's /repos routes as docs/architecture.md §8 describes them, for repo `r`.
const issue = {
  number: 7,
  title: 'Crash on start',
  state: 'open',
  author: 'ann',
  url: 'https://forge.test/r/issues/7',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
};
const pull = {
  ...issue,
  number: 8,
  title: 'Fix crash',
  url: 'https://forge.test/r/pull/8',
  draft: false,
  baseBranch: 'main',
  headBranch: 'fix',
};
const posted = {
  id: 99,
  author: 'svc-agent',
  body: 'on it',
  url: 'https://forge.test/r/issues/7#c99',
  createdAt: '2026-01-03T00:00:00Z',
};
const answers: Record<string, [number, unknown]> = {
  'GET /repos/r/info': [
    200,
    {
      name: 'r',
      fullName: 'org/r',
      description: null,
      url: 'https://forge.test/org/r',
      defaultBranch: 'main',
      private: true,
      stars: 3,
      openIssues: 1,
    },
  ],
  'GET /repos/r/issues?state=all': [200, [issue]],
  'GET /repos/r/issues': [200, [issue]],
  'GET /repos/r/issues/7': [200, { ...issue, body: 'it crashes', comments: [posted] }],
  'GET /repos/r/issues/404': [404, { error: 'Not Found' }],
  'POST /repos/r/issues/7/comments': [201, posted],
  'GET /repos/r/pulls': [200, [pull]],
  'GET /repos/r/pulls/8': [
    200,
    {
      ...pull,
      body: 'fixes #7',
      merged: false,
      mergeable: true,
      additions: 3,
      deletions: 1,
      changedFiles: 1,
      headSha: 'abc123',
    },
  ],
  'POST /repos/r/pulls/8/comments': [201, { ...posted, url: 'https://forge.test/r/pull/8#c99' }],
  'POST /repos/r/pulls/8/reviews': [
    201,
    { id: 5, state: 'APPROVED', author: 'svc-agent', body: null, url: 'https://forge.test/r/pull/8#r5' },
  ],
  'GET /repos/r/checks?ref=fix': [
    200,
    [
      {
        name: 'test',
        status: 'completed',
        conclusion: 'failure',
        detailsUrl: 'https://ci.test/1',
        startedAt: '2026-01-01T00:00:00Z',
        completedAt: '2026-01-01T00:01:00Z',
      },
    ],
  ],
  'GET /repos/r/checks/logs?pr=8': [200, [{ workflow: 'ci', job: 'test', jobId: 11, log: 'FAIL x.test.ts' }]],
};

beforeAll(async () => {
  root = await makeTempRoot();
  const remote = makeRemote(root);
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
  ship = await startTestShip(root, { bridgeToken: BRIDGE_TOKEN, logger });
  for (const name of ['a', 'b', 'cold']) {
    expect(
      (
        await call(
          ship.url,
          'POST',
          '/workspaces',
          { url: remote.url, repoName: 'r', name, branch: 'main' },
          bridgeAuth,
        )
      ).status,
    ).toBe(201);
    if (name !== 'cold')
      expect((await call(ship.url, 'POST', path('r', name, '/activate'), undefined, bridgeAuth)).status).toBe(200);
  }
  bridge = createServer(async (request, response) => {
    const body = await readBody(request);
    bridgeSeen.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization, body });
    const send = (status: number, value: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (request.headers.authorization !== `Bearer ${AGENT_TOKEN}` || bridgeMode === 'rotated')
      return send(401, { error: 'authentication required' });
    if (bridgeMode === 'odd') return send(200, { surprise: true });
    if (bridgeMode === 'missing')
      return send(404, { error: `route not found: ${request.method} ${request.url!.split('?')[0]}` });
    const answer = answers[`${request.method} ${request.url}`];
    if (!answer)
      return send(404, {
        message: `Route ${request.method}:${request.url} not found`,
        error: 'Not Found',
        statusCode: 404,
      });
    send(...answer);
  });
  await new Promise<void>((resolve) => bridge.listen(0, '127.0.0.1', resolve));
  const address = bridge.address();
  bridgeUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  bridge?.close();
  await ship?.stop();
  if (root) await removeRoot(root);
});

describe('MCP endpoint: tools and schemas', () => {
  it('is svc-agent with instructions, and lists the 13 tools with input and output schemas and annotations', async () => {
    const client = await connect('a', await mcpToken('a'));
    expect(client.getServerVersion()?.name).toBe('svc-agent');
    const instructions = client.getInstructions() ?? '';
    for (const phrase of [
      'agent_init once',
      'agent_status at every phase change',
      'awaiting before you ask a human',
      'idle when you are done',
    ]) {
      expect(instructions).toContain(phrase);
    }
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(t.description).toMatch(/^Call /);
      expect(JSON.stringify(t.inputSchema)).not.toMatch(/"(repo|repoName|workspace)"/);
      const readOnly = /_(get|list|view|info|checks|logs)$/.test(t.name);
      expect(t.annotations?.readOnlyHint ?? false).toBe(readOnly);
      expect(t.annotations?.openWorldHint ?? false).toBe(t.name.startsWith('repo_'));
      if (/comment|review/.test(t.name)) expect(t.annotations?.destructiveHint).toBe(false);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.agent_status!.inputSchema.required).toEqual(['state', 'description']);
    expect(Object.keys(byName.agent_status!.inputSchema.properties!)).toEqual(['state', 'description', 'link']);
    expect(byName.repo_pr_review!.inputSchema.required).toEqual(['number', 'event']);
    expect(Object.keys(byName.repo_info!.outputSchema!.properties!)).toEqual([
      'name',
      'fullName',
      'description',
      'url',
      'defaultBranch',
      'private',
      'stars',
      'openIssues',
    ]);
    await client.close();
  });

  it('the zod agent shapes accept and reject what the protocol types do', () => {
    const update = z.object(agentStatusInput);
    const samples = [
      { state: 'building', description: 'x' },
      { state: 'building', description: 'x', link: 'https://forge.test/pr/1' },
      { state: 'building', description: 'x', link: 'ftp://forge.test/pr/1' },
      { state: 'building', description: 'x', link: 'https://a b' },
      { state: 'sleeping', description: 'x' },
      { state: 'idle' },
    ];
    for (const sample of samples)
      expect(update.safeParse(sample).success, JSON.stringify(sample)).toBe(
        Value.Check(UpdateAgentStatusRequest, sample),
      );
    const status = { state: 'idle', description: 'd', ...init };
    expect(agentStatusSchema.safeParse(status).success).toBe(Value.Check(AgentStatus, status));
    expect(agentStatusSchema.safeParse({ ...status, link: 'http://x/y' }).success).toBe(
      Value.Check(AgentStatus, { ...status, link: 'http://x/y' }),
    );
  });
});

describe('MCP endpoint: agent tools', () => {
  it('runs the whole status lifecycle, each change on /events, the same status the HTTP routes read', async () => {
    const events = await connectEvents(ship.url, bridgeAuth);
    await events.waitFor(1);
    const client = await connect('a', await mcpToken('a'));

    expect(await tool(client, 'agent_status_get')).toMatchObject({ structuredContent: { agent: null } });
    const early = await tool(client, 'agent_status', { state: 'building', description: 'x' });
    expect(early.isError).toBe(true);
    expect(text(early)).toBe('agent not initialized: r/a');

    const created = await tool(client, 'agent_init', init);
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ state: 'idle', ...init });
    expect(created.structuredContent.description).toMatch(/^Created session at \d{4}-/);
    expect(text(created)).toMatch(/^Agent initialized \(claude-code, claude-x\): idle: Created session at /);

    const longDescription = `planning the fix ${'x'.repeat(100_000)}`;
    const steps = [
      { state: 'planning', description: longDescription },
      { state: 'building', description: 'writing the fix', link: 'https://forge.test/r/issues/7' },
      { state: 'verifying', description: 'running tests' },
      { state: 'awaiting', description: 'may I push to main?' },
      { state: 'idle', description: 'done', link: 'https://forge.test/r/pull/8' },
    ];
    for (const step of steps) {
      const result = await tool(client, 'agent_status', step);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ ...init, ...step });
      expect(text(result)).toBe(`Status set to ${step.state}: ${step.description.split('\n')[0]}`);
    }
    const last = { ...init, ...steps.at(-1)! };
    expect((await tool(client, 'agent_status_get')).structuredContent).toEqual({ agent: last });
    expect((await call(ship.url, 'GET', path('r', 'a', '/agent/status'), undefined, bridgeAuth)).body).toEqual(last);

    const changes = (await events.waitFor(1 + 1 + steps.length)).slice(1);
    expect(changes.every((e) => e.type === 'workspace.agent_status_changed' && e.workspace.name === 'a')).toBe(true);
    expect(changes.map((e) => e.workspace.agent.state)).toEqual(['idle', ...steps.map((s) => s.state)]);
    expect(changes[1].workspace.agent.description).toBe(longDescription);
    expect(changes[2].workspace.agent.link).toBe('https://forge.test/r/issues/7');
    expect(changes[3].workspace.agent.link).toBeUndefined();
    await events.close();
    await client.close();
  });

  it('refuses a bad link or state as a tool-call error, and init of an inactive workspace as a tool error', async () => {
    const client = await connect('a', await mcpToken('a'));
    for (const args of [
      { state: 'idle', description: 'd', link: 'javascript:alert(1)' },
      { state: 'sleeping', description: 'd' },
    ]) {
      const result = await tool(client, 'agent_status', args);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/Input validation error/);
    }
    await client.close();
    const cold = await connect('cold', BRIDGE_TOKEN);
    const result = await tool(cold, 'agent_init', init);
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'workspace not active: r/cold' }] });
    await cold.close();
  });

  it('the HTTP route takes the link too', async () => {
    const reply = await call(
      ship.url,
      'POST',
      path('r', 'a', '/agent/status'),
      { state: 'building', description: 'b', link: 'https://ci.test/run/1' },
      bridgeAuth,
    );
    expect(reply.body).toEqual({ ...init, state: 'building', description: 'b', link: 'https://ci.test/run/1' });
    expect(
      (
        await call(
          ship.url,
          'POST',
          path('r', 'a', '/agent/status'),
          { state: 'building', description: 'b', link: 'file:///etc/passwd' },
          bridgeAuth,
        )
      ).status,
    ).toBe(422);
  });
});

describe('MCP endpoint: HTTP', () => {
  it('answers JSON by default and an event stream when the Accept header asks for it first', async () => {
    const base = { ...bridgeAuth, 'content-type': 'application/json' };
    const json = await fetch(mcpUrl('a'), {
      method: 'POST',
      headers: { ...base, accept: 'application/json, text/event-stream' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json.headers.get('mcp-session-id')).toBeNull();
    expect(((await json.json()) as any).result.serverInfo.name).toBe('svc-agent');

    const sse = await fetch(mcpUrl('a'), {
      method: 'POST',
      headers: { ...base, accept: 'text/event-stream, application/json' },
      body: JSON.stringify(rpc('tools/list')),
    });
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = await sse.text();
    expect(stream).toMatch(/^event: message\ndata: /m);
    const payload = JSON.parse(
      stream
        .split('\n')
        .find((line) => line.startsWith('data: '))!
        .slice(6),
    );
    expect(payload.result.tools).toHaveLength(13);

    // The SDK client over event streams, end to end.
    const seen: string[] = [];
    const client = await connect('a', await mcpToken('a'), { sse: true, contentTypes: seen });
    expect((await tool(client, 'agent_status_get')).structuredContent.agent.state).toBe('building');
    expect(seen.some((entry) => /^POST 200 text\/event-stream/.test(entry))).toBe(true);
    await client.close();
  });

  it('GET and DELETE answer 405 (Allow: POST); a missing workspace is 404 {error}; invalid identifiers 400', async () => {
    for (const method of ['GET', 'DELETE']) {
      const reply = await call(ship.url, method, path('r', 'a', '/mcp'), undefined, {
        authorization: `Bearer ${await mcpToken('a')}`,
      });
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toBe('POST');
      expect(reply.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
    for (const method of ['GET', 'POST', 'DELETE']) {
      expect(
        await call(ship.url, method, path('r', 'nope', '/mcp'), method === 'POST' ? INITIALIZE : undefined, bridgeAuth),
      ).toMatchObject({
        status: 404,
        body: { error: 'workspace not found: r/nope' },
      });
      const invalid = await call(
        ship.url,
        method,
        path('r', 'x/y', '/mcp'),
        method === 'POST' ? INITIALIZE : undefined,
        bridgeAuth,
      );
      expect(invalid.status).toBe(400);
      expect(invalid.body.error).toMatch(/^invalid workspace identifier/);
    }
  });

  it('admits the workspace token and the bridge token; refuses another workspace token, a stale one, none (401)', async () => {
    const tokenA = await mcpToken('a');
    const tokenB = await mcpToken('b');
    for (const token of [tokenA, BRIDGE_TOKEN]) {
      const client = await connect('a', token);
      expect((await tool(client, 'agent_status_get')).isError).toBeFalsy();
      await client.close();
    }
    for (const token of [tokenB, null, 'not-a-token']) {
      await expect(connect('a', token)).rejects.toThrow(/401|authentication required/i);
    }
    // Stale: deactivate and re-activate b; the old token is unbound, the new one works.
    await call(ship.url, 'POST', path('r', 'b', '/deactivate'), undefined, bridgeAuth);
    await call(ship.url, 'POST', path('r', 'b', '/activate'), undefined, bridgeAuth);
    await expect(connect('b', tokenB)).rejects.toThrow(/401|authentication required/i);
    const fresh = await mcpToken('b');
    expect(fresh).not.toBe(tokenB);
    const client = await connect('b', fresh);
    expect((await tool(client, 'agent_status_get')).structuredContent).toEqual({ agent: null });
    await client.close();
    // Stale after delete: the token of a deleted workspace is 401 (not 404) even once the name is re-created.
    const remote = makeRemote(root, 'gone-remote');
    await call(
      ship.url,
      'POST',
      '/workspaces',
      { url: remote.url, repoName: 'r', name: 'gone', branch: 'main' },
      bridgeAuth,
    );
    await call(ship.url, 'POST', path('r', 'gone', '/activate'), undefined, bridgeAuth);
    const goneToken = await mcpToken('gone');
    expect((await call(ship.url, 'DELETE', path('r', 'gone'), undefined, bridgeAuth)).status).toBe(200);
    await expect(connect('gone', goneToken)).rejects.toThrow(/401|authentication required/i);
    await call(
      ship.url,
      'POST',
      '/workspaces',
      { url: remote.url, repoName: 'r', name: 'gone', branch: 'main' },
      bridgeAuth,
    );
    await call(ship.url, 'POST', path('r', 'gone', '/activate'), undefined, bridgeAuth);
    await expect(connect('gone', goneToken)).rejects.toThrow(/401|authentication required/i);
  });
});

describe('MCP endpoint: repository tools', () => {
  const calls: Array<[string, Record<string, unknown>]> = [
    ['repo_info', {}],
    ['repo_issue_list', {}],
    ['repo_issue_view', { number: 7 }],
    ['repo_issue_comment', { number: 7, body: 'on it' }],
    ['repo_pr_list', {}],
    ['repo_pr_view', { number: 8 }],
    ['repo_pr_comment', { number: 8, body: 'on it' }],
    ['repo_pr_review', { number: 8, event: 'APPROVE' }],
    ['repo_checks', { ref: 'fix' }],
    ['repo_failed_logs', { pr: 8 }],
  ];

  it('fail with a clear tool error until a bridge has pushed credentials, while agent tools keep working', async () => {
    const client = await connect('a', await mcpToken('a'));
    for (const [name, args] of calls) {
      const result = await tool(client, name, args);
      expect(result.isError, name).toBe(true);
      expect(text(result)).toMatch(
        /^no bridge has connected to this ship yet, so repository tools have no credentials/,
      );
    }
    expect((await tool(client, 'agent_status_get')).isError).toBeFalsy();
    await client.close();
  });

  it('call the bridge /repos/r/… routes as ship-agent and return structured content with a one-line summary', async () => {
    expect(
      (await call(ship.url, 'POST', '/agent/credentials', { bridgeUrl, token: AGENT_TOKEN }, bridgeAuth)).status,
    ).toBe(200);
    bridgeMode = 'serve';
    bridgeSeen.length = 0;
    const client = await connect('a', await mcpToken('a'));
    const results: Record<string, any> = {};
    for (const [name, args] of calls) {
      const result = await tool(client, name, args);
      expect(result.isError, `${name}: ${text(result)}`).toBeFalsy();
      expect(text(result)).not.toContain('\n');
      expect(text(result)).not.toContain(AGENT_TOKEN);
      results[name] = result;
    }
    expect(bridgeSeen.every((seen) => seen.authorization === `Bearer ${AGENT_TOKEN}`)).toBe(true);
    expect(bridgeSeen.map((seen) => `${seen.method} ${seen.url}`)).toEqual([
      'GET /repos/r/info',
      'GET /repos/r/issues',
      'GET /repos/r/issues/7',
      'POST /repos/r/issues/7/comments',
      'GET /repos/r/pulls',
      'GET /repos/r/pulls/8',
      'POST /repos/r/pulls/8/comments',
      'POST /repos/r/pulls/8/reviews',
      'GET /repos/r/checks?ref=fix',
      'GET /repos/r/checks/logs?pr=8',
    ]);
    expect(bridgeSeen[3]!.body).toEqual({ body: 'on it' });
    expect(bridgeSeen[7]!.body).toEqual({ event: 'APPROVE' });
    expect(results.repo_info.structuredContent).toEqual(answers['GET /repos/r/info']![1]);
    expect(text(results.repo_info)).toBe('org/r (default branch main): https://forge.test/org/r');
    expect(results.repo_issue_list.structuredContent).toEqual({ issues: [issue] });
    expect(text(results.repo_issue_list)).toBe('1 open issue');
    expect(results.repo_issue_view.structuredContent.comments).toEqual([posted]);
    expect(results.repo_issue_comment.structuredContent).toEqual(posted);
    expect(results.repo_pr_list.structuredContent).toEqual({ pulls: [pull] });
    expect(results.repo_pr_view.structuredContent.headSha).toBe('abc123');
    expect(results.repo_pr_review.structuredContent.state).toBe('APPROVED');
    expect(text(results.repo_checks)).toBe('1 check: 1 failed, 0 not completed');
    expect(results.repo_failed_logs.structuredContent).toEqual({
      jobs: [{ workflow: 'ci', job: 'test', jobId: 11, log: 'FAIL x.test.ts' }],
    });
    expect(text(await tool(client, 'repo_issue_list', { state: 'all' }))).toBe('1 all issue');

    // Checks need exactly one of ref and pr; a forge's own 404 passes through with its message.
    expect(text(await tool(client, 'repo_checks', {}))).toBe('checks require a ref or pr');
    expect(text(await tool(client, 'repo_checks', { ref: 'x', pr: 1 }))).toBe('give a ref or a pr, not both');
    expect(await tool(client, 'repo_issue_view', { number: 404 })).toMatchObject({
      isError: true,
      content: [{ text: 'Not Found' }],
    });
    await client.close();
  });

  it('say the bridge does not serve the route yet when it answers 404, and name a refused credential on 401', async () => {
    const client = await connect('a', BRIDGE_TOKEN);
    bridgeMode = 'missing';
    for (const [name, args] of calls) {
      const result = await tool(client, name, args);
      expect(result.isError, name).toBe(true);
      expect(text(result)).toMatch(
        /^the bridge at http:\/\/127\.0\.0\.1:\d+ does not serve (GET|POST) \/repos\/:name\/\S+ yet \(it answered 404\)/,
      );
    }
    bridgeMode = 'rotated';
    const result = await tool(client, 'repo_info');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/refused this ship's agent credential \(401\): it was rotated or revoked/);
    expect(JSON.stringify(result)).not.toContain(AGENT_TOKEN);
    bridgeMode = 'odd';
    const odd = await tool(client, 'repo_issue_list');
    expect(odd.isError).toBe(true);
    expect(text(odd)).toMatch(
      /^the bridge at http:\/\/127\.0\.0\.1:\d+ answered GET \/repos\/:name\/issues with an unexpected shape: /,
    );
    bridgeMode = 'serve';
    await client.close();
  });
});

describe('MCP endpoint: guards and secrets', () => {
  it('the Origin guard sits in front of it: a foreign Origin or cross-site fetch is 403, even with a valid token', async () => {
    const headers = { authorization: `Bearer ${await mcpToken('a')}`, accept: 'application/json, text/event-stream' };
    expect(
      (await call(ship.url, 'POST', path('r', 'a', '/mcp'), INITIALIZE, { ...headers, origin: 'https://evil.example' }))
        .status,
    ).toBe(403);
    expect(
      (await call(ship.url, 'POST', path('r', 'a', '/mcp'), INITIALIZE, { ...headers, 'sec-fetch-site': 'cross-site' }))
        .status,
    ).toBe(403);
    expect((await call(ship.url, 'POST', path('r', 'a', '/mcp'), INITIALIZE, headers)).status).toBe(200);
  });

  it('no credential appears in the ship log', () => {
    const logs = logLines.join('');
    expect(logs).toContain('/mcp');
    for (const secret of [BRIDGE_TOKEN, AGENT_TOKEN, ...mcpTokensSeen]) expect(logs).not.toContain(secret);
  });
});
