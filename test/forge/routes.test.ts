// The /repos/:name/… forge routes through a real authenticating bridge whose GitHub provider comes from
// SVC_GITHUB_TOKEN / SVC_GITHUB_API_URL and talks to the fake forge: every route as a member and as the
// ship-agent (the credential the bridge pushed to a real ship), each forge error passed through as docs/architecture.md §8
// says, and the GitHub token in no response and no line of the bridge's log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempRoot, rawCall, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { ADMIN, startAuthBridge, type AuthHarness } from '../auth/harness.js';
import { until } from '../helpers/poll.js';
import { FakeGitHub } from '../fakes/github.js';

const TOKEN = 'ghp_routes_secret_token_9876543210';
const SHA = 'e'.repeat(40);
let root: string;
let fake: FakeGitHub;
let harness: AuthHarness;
let ship: TestShip;
const tokens = { admin: '', member: '', agent: '' };
const replies: string[] = [];
const saved = { token: process.env.SVC_GITHUB_TOKEN, url: process.env.SVC_GITHUB_API_URL };

const as = async (who: keyof typeof tokens, method: string, path: string, body?: unknown) => {
  const reply = await harness.as(tokens[who], method, path, body);
  replies.push(reply.text);
  return reply;
};

beforeAll(async () => {
  root = await makeTempRoot();
  fake = await new FakeGitHub().start();
  fake.token = TOKEN;
  process.env.SVC_GITHUB_TOKEN = TOKEN;
  process.env.SVC_GITHUB_API_URL = fake.url;
  harness = await startAuthBridge(root);
  tokens.admin = await harness.login(ADMIN.username, ADMIN.password);
  const member = await harness.addUser(tokens.admin, 'member');
  tokens.member = await harness.login(member.username, member.password);
  ship = await startTestShip(root, { name: 'forge-ship', bridgeToken: 'bridge-token-for-forge-ship' });
  expect(
    (
      await harness.as(tokens.admin, 'POST', '/ships', {
        url: ship.url,
        shipToken: 'ship-token-for-forge-ship',
        bridgeToken: 'bridge-token-for-forge-ship',
      })
    ).status,
  ).toBe(201);
  tokens.agent = (await until(() => ship.ship.bridgeCredentials.get(), 'agent credentials', 5000)).token;
  for (const repo of [
    { name: 'widget', url: 'https://github.example/acme/widget.git', provider: 'github' },
    { name: 'widget-ssh', url: 'git@github.example:acme/widget', provider: 'github' },
    { name: 'odd', url: 'https://someone:hunter2@forge.example/a/b/c.git', provider: 'github' },
    { name: 'plain', url: 'https://forge.example/acme/plain.git', provider: 'custom' },
  ]) {
    expect((await harness.as(tokens.admin, 'POST', '/repos', repo)).status).toBe(201);
  }
  fake.addIssue({ title: 'first bug', body: 'details' });
  for (let i = 0; i < 120; i++) fake.addIssue({ title: `bulk ${i}` });
  fake.addPull({ title: 'fix bug', head: 'fix', headSha: SHA, body: 'fixes #1' });
  fake.branches.set('fix', SHA);
  fake.checkRuns.set(SHA, [
    {
      name: 'test',
      status: 'completed',
      conclusion: 'failure',
      startedAt: '2026-01-01T00:00:00Z',
      completedAt: '2026-01-01T00:02:00Z',
    },
  ]);
  fake.runs.push({
    id: 5,
    name: 'CI',
    workflowId: 1,
    headSha: SHA,
    jobs: [{ id: 51, name: 'test', conclusion: 'failure', log: 'FAIL src/x.test.ts\n' }],
  });
}, 60_000);

afterAll(async () => {
  process.env.SVC_GITHUB_TOKEN = saved.token;
  process.env.SVC_GITHUB_API_URL = saved.url;
  if (saved.token === undefined) delete process.env.SVC_GITHUB_TOKEN;
  if (saved.url === undefined) delete process.env.SVC_GITHUB_API_URL;
  await harness?.bridge.close();
  await ship?.stop();
  await fake?.stop();
  await removeRoot(root);
});

describe.each(['member', 'agent'] as const)('every forge route as %s', (who) => {
  it('reads', async () => {
    const info = await as(who, 'GET', '/repos/widget/info');
    expect(info.status).toBe(200);
    expect(info.body).toEqual({
      name: 'widget',
      fullName: 'acme/widget',
      description: 'A widget',
      url: 'https://github.example/acme/widget',
      defaultBranch: 'main',
      private: false,
      stars: 7,
      openIssues: 122,
    });
    expect((await as(who, 'GET', '/repos/widget-ssh/info')).body.fullName).toBe('acme/widget');
    const issues = await as(who, 'GET', '/repos/widget/issues');
    expect(issues.status).toBe(200);
    expect(issues.body).toHaveLength(121);
    expect(issues.body.at(-1)).toEqual({
      number: 1,
      title: 'first bug',
      state: 'open',
      author: 'alice',
      url: 'https://github.example/acme/widget/issues/1',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-02T00:00:00Z',
    });
    expect((await as(who, 'GET', '/repos/widget/issues?state=closed')).body).toEqual([]);
    const issue = await as(who, 'GET', '/repos/widget/issues/1');
    expect(issue.body).toMatchObject({ number: 1, body: 'details', comments: expect.any(Array) });
    const pulls = await as(who, 'GET', '/repos/widget/pulls?state=all');
    expect(pulls.body).toEqual([
      expect.objectContaining({ number: 122, title: 'fix bug', draft: false, baseBranch: 'main', headBranch: 'fix' }),
    ]);
    expect((await as(who, 'GET', '/repos/widget/pulls/122')).body).toMatchObject({
      body: 'fixes #1',
      merged: false,
      mergeable: true,
      additions: 10,
      deletions: 2,
      changedFiles: 3,
      headSha: SHA,
    });
    const checks = [
      {
        name: 'test',
        status: 'completed',
        conclusion: 'failure',
        detailsUrl: 'https://github.example/acme/widget/runs/1',
        startedAt: '2026-01-01T00:00:00Z',
        completedAt: '2026-01-01T00:02:00Z',
      },
    ];
    expect((await as(who, 'GET', '/repos/widget/checks?ref=fix')).body).toEqual(checks);
    expect((await as(who, 'GET', '/repos/widget/checks?pr=122')).body).toEqual(checks);
    const logs = [{ workflow: 'CI', job: 'test', jobId: 51, log: 'FAIL src/x.test.ts\n' }];
    expect((await as(who, 'GET', '/repos/widget/checks/logs?pr=122')).body).toEqual(logs);
    expect((await as(who, 'GET', '/repos/widget/checks/logs?ref=fix')).body).toEqual(logs);
  });

  it('comments and reviews', async () => {
    const comment = await as(who, 'POST', '/repos/widget/issues/1/comments', { body: `from ${who}` });
    expect(comment.status).toBe(201);
    expect(comment.body).toMatchObject({
      id: expect.any(Number),
      author: 'svc-bot',
      body: `from ${who}`,
      url: expect.stringContaining('/issues/1#issuecomment-'),
      createdAt: expect.any(String),
    });
    expect(
      (await as(who, 'GET', '/repos/widget/issues/1')).body.comments.map((c: { body: string }) => c.body),
    ).toContain(`from ${who}`);
    const prComment = await as(who, 'POST', '/repos/widget/pulls/122/comments', { body: 'pr note' });
    expect(prComment.status).toBe(201);
    const review = await as(who, 'POST', '/repos/widget/pulls/122/reviews', { event: 'COMMENT', body: 'nit' });
    expect(review.status).toBe(201);
    expect(review.body).toEqual({
      id: expect.any(Number),
      state: 'COMMENTED',
      author: 'svc-bot',
      body: 'nit',
      url: expect.stringContaining('/pull/122#pullrequestreview-'),
    });
    expect((await as(who, 'POST', '/repos/widget/pulls/122/reviews', { event: 'APPROVE' })).body).toMatchObject({
      state: 'APPROVED',
      body: null,
    });
  });
});

describe('errors', () => {
  it("the bridge's own: unknown repo, invalid identifier, unsupported provider, unmapped URL, checks without a target", async () => {
    expect(await as('agent', 'GET', '/repos/nope/info')).toMatchObject({
      status: 404,
      body: { error: 'repo not found: nope' },
    });
    expect(
      await rawCall(harness.bridge.url, 'GET', '/repos/%2E%2E/info', { authorization: `Bearer ${tokens.member}` }),
    ).toMatchObject({ status: 400, body: { error: 'invalid repo identifier: must not be . or ..' } });
    expect(await as('agent', 'GET', '/repos/plain/issues')).toMatchObject({
      status: 501,
      body: { error: 'provider "custom" is not supported yet' },
    });
    const odd = await as('member', 'GET', '/repos/odd/info');
    expect(odd.status).toBe(400);
    expect(odd.body.error).toMatch(
      /^repo "odd" is not a GitHub repository: https:\/\/[^@]*@forge\.example\/a\/b\/c\.git$/,
    );
    expect(odd.text).not.toContain('hunter2');
    expect(await as('agent', 'GET', '/repos/widget/checks')).toMatchObject({
      status: 400,
      body: { error: 'checks require a ref or pr' },
    });
    expect(await as('agent', 'GET', '/repos/widget/checks/logs')).toMatchObject({
      status: 400,
      body: { error: 'checks require a ref or pr' },
    });
    expect((await as('agent', 'POST', '/repos/widget/issues/1/comments', { body: '' })).status).toBe(422);
    expect((await as('agent', 'POST', '/repos/widget/pulls/122/reviews', { event: 'MERGE' })).status).toBe(422);
  });

  it('forge statuses pass through; 5xx is 502', async () => {
    expect(await as('agent', 'GET', '/repos/widget/issues/999')).toMatchObject({
      status: 404,
      body: { error: 'GitHub request failed (404): Not Found' },
    });
    fake.scopes.clear();
    expect(await as('agent', 'POST', '/repos/widget/issues/1/comments', { body: 'x' })).toMatchObject({
      status: 403,
      body: { error: 'GitHub request failed (403): Resource not accessible by personal access token' },
    });
    fake.scopes.add('repo');
    fake.token = 'a-different-token';
    expect(await as('member', 'GET', '/repos/widget/info')).toMatchObject({
      status: 401,
      body: { error: 'GitHub request failed (401): Bad credentials' },
    });
    fake.token = TOKEN;
    fake.injected.push(...[1, 2, 3].map(() => ({ status: 500, message: 'Server Error', pathIncludes: '/pulls' })));
    expect(await as('agent', 'GET', '/repos/widget/pulls')).toMatchObject({
      status: 502,
      body: { error: 'GitHub request failed (500): Server Error' },
    });
    const limited = fake.primaryRateLimit(3600, '/issues');
    fake.injected.push(limited);
    const reset = new Date(Number(limited.headers!['x-ratelimit-reset']) * 1000).toISOString();
    expect(await as('member', 'GET', '/repos/widget/issues')).toMatchObject({
      status: 403,
      body: {
        error: `GitHub request failed (403): API rate limit exceeded for user ID 1. (rate limit resets at ${reset})`,
      },
    });
  }, 30_000);

  it('the GitHub token went to the forge and nowhere else', () => {
    expect(
      fake.requests.filter((r) => !r.path.startsWith('/_logs/')).every((r) => r.authorization === `token ${TOKEN}`),
    ).toBe(true);
    expect(fake.requests.some((r) => r.path.startsWith('/_logs/'))).toBe(true);
    for (const text of replies) expect(text).not.toContain(TOKEN);
    const logs = harness.logs();
    expect(logs).toContain('forge.issue_comment');
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain('hunter2');
  });
});
