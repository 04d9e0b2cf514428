// The ship's MCP repository tools end to end: an agent's MCP client → real ship → real authenticating
// bridge (with the ship-agent credential the bridge pushed) → GitHub provider → fake forge. Proves the
// ship's docs/architecture.md §8 shapes and the bridge's routes agree, and that forge errors reach the agent as tool errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { GitHubProvider } from '../../bridge/providers/github.js';
import { ADMIN, startAuthBridge, type AuthHarness } from '../auth/harness.js';
import { until } from '../helpers/poll.js';
import { FakeGitHub } from '../fakes/github.js';

const TOKEN = 'ghp_mcp_e2e_secret_token_13579';
const BRIDGE_TOKEN = 'bridge-token-for-mcp-e2e-ship';
const SHA = 'f'.repeat(40);
let root: string;
let fake: FakeGitHub;
let harness: AuthHarness;
let ship: TestShip;

beforeAll(async () => {
  root = await makeTempRoot();
  fake = await new FakeGitHub().start();
  fake.token = TOKEN;
  harness = await startAuthBridge(root, {
    forgeProviders: { github: new GitHubProvider({ token: TOKEN, baseUrl: fake.url, retryAfterBaseValueMs: 5 }) },
  });
  const admin = await harness.login(ADMIN.username, ADMIN.password);
  expect(
    (
      await harness.as(admin, 'POST', '/repos', {
        name: 'widget',
        url: 'git@github.example:acme/widget.git',
        provider: 'github',
      })
    ).status,
  ).toBe(201);
  ship = await startTestShip(root, { name: 'mcp-e2e-ship', bridgeToken: BRIDGE_TOKEN });
  const remote = makeRemote(root);
  const auth = { authorization: `Bearer ${BRIDGE_TOKEN}` };
  expect(
    (
      await call(
        ship.url,
        'POST',
        '/workspaces',
        { url: remote.url, repoName: 'widget', name: 'w', branch: 'main' },
        auth,
      )
    ).status,
  ).toBe(201);
  expect((await call(ship.url, 'POST', path('widget', 'w', '/activate'), undefined, auth)).status).toBe(200);
  expect(
    (
      await harness.as(admin, 'POST', '/ships', {
        url: ship.url,
        shipToken: 'ship-token-for-mcp-e2e',
        bridgeToken: BRIDGE_TOKEN,
      })
    ).status,
  ).toBe(201);
  await until(() => ship.ship.bridgeCredentials.get(), 'agent credentials', 5000);
  fake.addIssue({ title: 'Crash on start', body: 'stack trace' });
  fake.addPull({ title: 'Fix crash', head: 'fix', headSha: SHA });
  fake.branches.set('fix', SHA);
  fake.checkRuns.set(SHA, [
    { name: 'test', status: 'completed', conclusion: 'failure', startedAt: null, completedAt: null },
  ]);
  fake.runs.push({
    id: 3,
    name: 'CI',
    workflowId: 1,
    headSha: SHA,
    jobs: [{ id: 31, name: 'unit', conclusion: 'failure', log: 'FAIL crash.test.ts' }],
  });
}, 60_000);

afterAll(async () => {
  await harness?.bridge.close();
  await ship?.stop();
  await fake?.stop();
  if (root) await removeRoot(root);
});

async function connect(): Promise<Client> {
  const token = (await ship.ship.tmux.sessionVariables(sessionName('widget', 'w'))).SVC_MCP_TOKEN!;
  const client = new Client({ name: 'svc-e2e', version: '0.0.1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(ship.url + path('widget', 'w', '/mcp')), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
type ToolResult = { isError?: boolean; content: Array<{ text: string }>; structuredContent?: any };
const text = (result: ToolResult) => result.content.map((c) => c.text).join('\n');

describe('MCP repository tools through a real bridge to the fake forge', () => {
  it('every repository tool succeeds with the agent credential, and writes land on the forge', async () => {
    const client = await connect();
    const run = async (name: string, args: Record<string, unknown> = {}) => {
      const result = (await client.callTool({ name, arguments: args })) as ToolResult;
      expect(result.isError, `${name}: ${text(result)}`).toBeFalsy();
      expect(text(result)).not.toContain(TOKEN);
      return result;
    };
    expect(text(await run('repo_info'))).toBe('acme/widget (default branch main): https://github.example/acme/widget');
    expect(text(await run('repo_issue_list'))).toBe('1 open issue');
    expect((await run('repo_issue_view', { number: 1 })).structuredContent).toMatchObject({
      title: 'Crash on start',
      body: 'stack trace',
      comments: [],
    });
    await run('repo_issue_comment', { number: 1, body: 'on it' });
    expect(text(await run('repo_pr_list'))).toBe('1 open pull request');
    expect((await run('repo_pr_view', { number: 2 })).structuredContent.headSha).toBe(SHA);
    await run('repo_pr_comment', { number: 2, body: 'ready' });
    expect(
      (await run('repo_pr_review', { number: 2, event: 'REQUEST_CHANGES', body: 'add a test' })).structuredContent
        .state,
    ).toBe('CHANGES_REQUESTED');
    expect(text(await run('repo_checks', { ref: 'fix' }))).toBe('1 check: 1 failed, 0 not completed');
    expect((await run('repo_failed_logs', { pr: 2 })).structuredContent).toEqual({
      jobs: [{ workflow: 'CI', job: 'unit', jobId: 31, log: 'FAIL crash.test.ts' }],
    });
    expect(fake.comments.get(1)!.map((c) => c.body)).toEqual(['on it']);
    expect(fake.comments.get(2)!.map((c) => c.body)).toEqual(['ready']);
    expect(fake.reviews.get(2)!.map((r) => r.body)).toEqual(['add a test']);

    // A forge failure reaches the agent as a tool error with the bridge's message.
    fake.injected.push({ status: 404, message: 'Not Found', pathIncludes: '/issues/9' });
    const missing = (await client.callTool({ name: 'repo_issue_view', arguments: { number: 9 } })) as ToolResult;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toBe('GitHub request failed (404): Not Found');
    // The forge refusing the bridge's GitHub token is not the agent credential being rotated.
    fake.token = 'another-token';
    const refused = (await client.callTool({ name: 'repo_info', arguments: {} })) as ToolResult;
    fake.token = TOKEN;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('GitHub request failed (401): Bad credentials');
    await client.close();
    expect(harness.logs()).not.toContain(TOKEN);
  }, 60_000);
});
