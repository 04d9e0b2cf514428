// The GitHub provider with the real Octokit (and its request policy: retries, rate limits, write spacing)
// against the fake GitHub server: shapes, pagination past 100 items, every error mode, the spacing of
// writes, and the token never in a message. Waits are scaled down (`retryAfterBaseValueMs`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubProvider, githubRepoPath } from '../../bridge/providers/github.js';
import { ProviderError } from '../../bridge/providers/forge-provider.js';
import { DEFAULT_HEAD_SHA, FakeGitHub } from '../fakes/github.js';
import { git, makeRemote } from '../helpers/git-fixtures.js';

const TOKEN = 'ghp_faketoken_0123456789abcdef';
let fake: FakeGitHub;
let logged: string[];
let provider: GitHubProvider;
const repo = () => ({ name: 'widget', url: 'https://github.example/acme/widget.git', provider: 'github' });

const failure = async (work: Promise<unknown>): Promise<ProviderError> => {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
};

beforeEach(async () => {
  fake = await new FakeGitHub().start();
  fake.token = TOKEN;
  logged = [];
  provider = new GitHubProvider({
    token: TOKEN,
    baseUrl: fake.url,
    retryAfterBaseValueMs: 5,
    log: (m, f) => logged.push(`${m} ${JSON.stringify(f)}`),
  });
});
afterEach(async () => fake.stop());

describe('clone URL → owner/name', () => {
  it.each([
    ['https://github.com/acme/widget', 'acme/widget'],
    ['https://github.com/acme/widget.git', 'acme/widget'],
    ['https://user:secret@github.com/acme/widget.git', 'acme/widget'],
    ['git@github.com:acme/widget.git', 'acme/widget'],
    ['git@github.com:acme/widget', 'acme/widget'],
    ['ssh://git@ghe.example:2222/acme/widget.git', 'acme/widget'],
  ])('%s', (url, want) => {
    const path = githubRepoPath(url);
    expect(path && `${path.owner}/${path.name}`).toBe(want);
  });
  it.each([
    '/srv/git/widget',
    'file:///srv/widget.git',
    'https://github.com/acme',
    'https://github.com/acme/widget/extra',
    'git@github.com:/abs/path',
    'not a url',
  ])('%s does not map', (url) => {
    expect(githubRepoPath(url)).toBeNull();
  });
  it('an unmapped URL is a 400 naming the repo, credentials redacted', async () => {
    const error = await failure(
      provider.repoInfo({ name: 'odd', url: 'https://user:hunter2@forge.example/a/b/c', provider: 'github' }),
    );
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^repo "odd" is not a GitHub repository: https:\/\/[^@]*@forge.example\/a\/b\/c$/);
    expect(error.message).not.toContain('hunter2');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('reads and writes', () => {
  it('repo info', async () => {
    expect(await provider.repoInfo(repo())).toEqual({
      name: 'widget',
      fullName: 'acme/widget',
      description: 'A widget',
      url: 'https://github.example/acme/widget',
      defaultBranch: 'main',
      private: false,
      stars: 7,
      openIssues: 0,
    });
    expect(fake.requests[0]!.authorization).toBe(`token ${TOKEN}`);
  });

  it('lists every issue over several pages (no 100 cap), pull requests filtered out, by state', async () => {
    for (let i = 0; i < 230; i++) fake.addIssue({ title: `issue ${i}`, state: i % 10 === 0 ? 'closed' : 'open' });
    fake.addPull({ title: 'a pull', head: 'feature' });
    const open = await provider.listIssues(repo(), 'open');
    expect(open).toHaveLength(207);
    expect(open.every((i) => i.state === 'open')).toBe(true);
    expect(fake.requests.filter((r) => r.path.includes('/issues'))).toHaveLength(3);
    expect(await provider.listIssues(repo(), 'all')).toHaveLength(230);
    expect((await provider.listIssues(repo(), 'closed')).map((i) => i.title)).toContain('issue 0');
    expect(open[0]).toEqual({
      number: 230,
      title: 'issue 229',
      state: 'open',
      author: 'alice',
      url: 'https://github.example/acme/widget/issues/230',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-02T00:00:00Z',
    });
  });

  it('views an issue with all its comments and comments on it', async () => {
    const issue = fake.addIssue({ title: 'bug', body: 'it breaks' });
    fake.comments.set(
      issue.number,
      Array.from({ length: 120 }, (_, i) => ({
        id: i + 1,
        user: 'carol',
        body: `c${i}`,
        createdAt: '2026-01-05T00:00:00Z',
      })),
    );
    const view = await provider.viewIssue(repo(), issue.number);
    expect(view.body).toBe('it breaks');
    expect(view.comments).toHaveLength(120);
    expect(view.comments[119]).toEqual({
      id: 120,
      author: 'carol',
      body: 'c119',
      url: `https://github.example/acme/widget/issues/1#issuecomment-120`,
      createdAt: '2026-01-05T00:00:00Z',
    });
    const posted = await provider.commentIssue(repo(), issue.number, 'on it');
    expect(posted).toMatchObject({ author: 'svc-bot', body: 'on it' });
    expect(fake.comments.get(issue.number)!.at(-1)!.body).toBe('on it');
  });

  it('pulls: list, view, comment, review', async () => {
    for (let i = 0; i < 105; i++) fake.addPull({ title: `pr ${i}`, head: `b${i}`, draft: i === 0 });
    const pulls = await provider.listPulls(repo(), 'open');
    expect(pulls).toHaveLength(105);
    expect(pulls.at(-1)).toMatchObject({ number: 1, draft: true, baseBranch: 'main', headBranch: 'b0' });
    expect(await provider.viewPull(repo(), 1)).toMatchObject({
      merged: false,
      mergeable: true,
      additions: 10,
      deletions: 2,
      changedFiles: 3,
      headSha: 'a'.repeat(40),
    });
    expect(await provider.commentPull(repo(), 1, 'looks good')).toMatchObject({
      body: 'looks good',
      author: 'svc-bot',
    });
    expect(await provider.reviewPull(repo(), 1, 'APPROVE')).toMatchObject({
      state: 'APPROVED',
      author: 'svc-bot',
      body: null,
    });
    expect(await provider.reviewPull(repo(), 1, 'REQUEST_CHANGES', 'fix it')).toMatchObject({
      state: 'CHANGES_REQUESTED',
      body: 'fix it',
    });
    fake.addIssue({ title: 'not a pr' });
    expect((await failure(provider.commentPull(repo(), 106, 'x'))).status).toBe(404);
  });

  it('checks and failed job logs by ref and by pr, over pages', async () => {
    const sha = 'c'.repeat(40);
    fake.branches.set('feature', sha);
    fake.addPull({ title: 'p', head: 'feature', headSha: sha });
    fake.checkRuns.set(
      sha,
      Array.from({ length: 150 }, (_, i) => ({
        name: `check ${i}`,
        status: 'completed',
        conclusion: i === 3 ? 'failure' : 'success',
        startedAt: '2026-01-01T00:00:00Z',
        completedAt: '2026-01-01T00:01:00Z',
      })),
    );
    const checks = await provider.checks(repo(), { ref: 'feature' });
    expect(checks).toHaveLength(150);
    expect(checks[3]).toEqual({
      name: 'check 3',
      status: 'completed',
      conclusion: 'failure',
      detailsUrl: 'https://github.example/acme/widget/runs/4',
      startedAt: '2026-01-01T00:00:00Z',
      completedAt: '2026-01-01T00:01:00Z',
    });
    expect(await provider.checks(repo(), { pr: 1 })).toHaveLength(150);
    fake.runs.push(
      {
        id: 1,
        name: 'CI',
        workflowId: 9,
        headSha: sha,
        jobs: [
          { id: 11, name: 'test', conclusion: 'failure', log: 'boom\n' },
          { id: 12, name: 'lint', conclusion: 'success', log: 'ok' },
        ],
      },
      {
        id: 2,
        name: 'Other',
        workflowId: 8,
        headSha: 'd'.repeat(40),
        jobs: [{ id: 21, name: 'x', conclusion: 'failure', log: 'other sha' }],
      },
    );
    const want = [{ workflow: 'CI', job: 'test', jobId: 11, log: 'boom\n' }];
    expect(await provider.failedJobLogs(repo(), { pr: 1 })).toEqual(want);
    expect(await provider.failedJobLogs(repo(), { ref: 'feature' })).toEqual(want);
    expect(await provider.failedJobLogs(repo(), { ref: sha })).toEqual(want);
  });
});

describe('hostile input', () => {
  it('a ref is one encoded path segment: slashes and dots do not reach another endpoint', async () => {
    const sha = '9'.repeat(40);
    fake.branches.set('feat/x', sha);
    fake.checkRuns.set(sha, [
      { name: 'ok', status: 'completed', conclusion: 'success', startedAt: null, completedAt: null },
    ]);
    expect(await provider.checks(repo(), { ref: 'feat/x' })).toHaveLength(1);
    expect(await provider.checks(repo(), { ref: '../../../user' })).toEqual([]);
    expect(fake.requests.map((r) => r.path)).toEqual([
      '/repos/acme/widget/commits/feat%2Fx/check-runs?per_page=100',
      '/repos/acme/widget/commits/..%2F..%2F..%2Fuser/check-runs?per_page=100',
    ]);
  });
});

describe('errors', () => {
  it('401 without the token, 403 without scope, 404, 5xx after retries; the token in no message', async () => {
    const anonymous = new GitHubProvider({ baseUrl: fake.url, retryAfterBaseValueMs: 5 });
    expect(await failure(anonymous.repoInfo(repo()))).toMatchObject({
      status: 401,
      message: 'GitHub request failed (401): Bad credentials',
    });
    fake.scopes.clear();
    fake.addIssue({ title: 'x' });
    expect(await failure(provider.commentIssue(repo(), 1, 'x'))).toMatchObject({
      status: 403,
      message: 'GitHub request failed (403): Resource not accessible by personal access token',
    });
    expect(await failure(provider.viewIssue(repo(), 99))).toMatchObject({
      status: 404,
      message: 'GitHub request failed (404): Not Found',
    });
    fake.injected.push(...[1, 2, 3].map(() => ({ status: 502, message: `upstream ${TOKEN} down` })));
    const error = await failure(provider.repoInfo(repo()));
    expect(error.status).toBe(502);
    expect(error.message).toBe('GitHub request failed (502): upstream [redacted] down');
    expect(fake.requests.filter((r) => r.path === '/repos/acme/widget')).toHaveLength(4);
    fake.injected.push({ status: 503, message: 'blip' });
    expect((await provider.repoInfo(repo())).name).toBe('widget');
    await fake.stop();
    const unreachable = await failure(provider.repoInfo(repo()));
    expect(unreachable.status).toBe(502);
    expect(unreachable.message).toMatch(/^GitHub request failed \(no answer\): /);
    expect(unreachable.message).not.toContain(TOKEN);
  });

  it('a short primary or secondary rate limit is waited out once', async () => {
    fake.injected.push(fake.primaryRateLimit(1));
    expect((await provider.repoInfo(repo())).name).toBe('widget');
    fake.injected.push(fake.secondaryRateLimit(2));
    expect((await provider.repoInfo(repo())).name).toBe('widget');
    expect(logged.join('\n')).toMatch(/primary rate limit, retrying/);
    expect(logged.join('\n')).toMatch(/secondary rate limit, retrying after 2 s/);
    expect(logged.join('\n')).not.toContain(TOKEN);
  });

  it('writes go one at a time, a "second" apart and three for comments; reads are not held behind them', async () => {
    const spaced = new GitHubProvider({ token: TOKEN, baseUrl: fake.url, retryAfterBaseValueMs: 100 });
    fake.addIssue({ title: 'spacing' });
    // A first comment opens the connection (and starts the global fetch, on a first use), so that the two
    // measured ones reach the fake as they leave the policy.
    await spaced.commentIssue(repo(), 1, 'zero');
    await Promise.all([
      spaced.commentIssue(repo(), 1, 'one'),
      spaced.commentIssue(repo(), 1, 'two'),
      spaced.repoInfo(repo()),
    ]);
    // The second comment is sent the first one's three "seconds" (300 ms) after it; the read goes at once, before it.
    const [one, two] = fake.requests.filter((r) => r.method === 'POST').slice(1);
    expect(two!.at - one!.at).toBeGreaterThanOrEqual(290);
    expect(fake.requests.findIndex((r) => r.path === '/repos/acme/widget')).toBeLessThan(fake.requests.indexOf(two!));
    expect(fake.comments.get(1)!.map((c) => c.body)).toEqual(['zero', 'one', 'two']);
  });

  it('a long or repeated rate limit is surfaced with the forge status and reset time', async () => {
    const limited = fake.primaryRateLimit(3600);
    fake.injected.push(limited);
    const error = await failure(provider.repoInfo(repo()));
    const reset = new Date(Number(limited.headers!['x-ratelimit-reset']) * 1000).toISOString();
    expect(error).toMatchObject({
      status: 403,
      message: `GitHub request failed (403): API rate limit exceeded for user ID 1. (rate limit resets at ${reset})`,
    });
    fake.injected.push(fake.secondaryRateLimit(1), fake.secondaryRateLimit(1));
    expect(await failure(provider.repoInfo(repo()))).toMatchObject({
      status: 403,
      message: expect.stringMatching(/secondary rate limit.*\(retry after 1 s\)$/),
    });
    expect(logged.join('\n')).toMatch(/giving up/);
  });
});

describe('issue-linked branches', () => {
  const graphqlCalls = () => fake.requests.filter((r) => r.path === '/graphql').map((r) => r.operation);

  it('reads an issue; a pull request or an unknown number is 404', async () => {
    fake.addIssue({ title: 'Crash on start', state: 'closed' });
    fake.addPull({ title: 'a pull', head: 'x' });
    expect(await provider.readIssue(repo(), 1)).toEqual({ number: 1, title: 'Crash on start', state: 'closed' });
    expect(await failure(provider.readIssue(repo(), 2))).toMatchObject({
      status: 404,
      message: 'GitHub request failed (404): #2 is a pull request, not an issue',
    });
    expect(await failure(provider.readIssue(repo(), 3))).toMatchObject({
      status: 404,
      message: 'GitHub request failed (404): Not Found',
    });
  });

  it('creates and links a branch from the default head; any UNPROCESSABLE is a refusal (null), whatever it says', async () => {
    const issue = fake.addIssue({ title: 'Crash on start' });
    expect(await provider.createLinkedBranch(repo(), issue.number, '1-crash-on-start')).toBe('1-crash-on-start');
    expect(fake.linkedBranches.get(1)).toEqual(['1-crash-on-start']);
    expect(fake.branches.get('1-crash-on-start')).toBe(DEFAULT_HEAD_SHA);
    expect(graphqlCalls()).toEqual(['IssueAndHead', 'CreateLinkedBranch']);
    const mutation = fake.requests.find((r) => r.operation === 'CreateLinkedBranch')!;
    expect(mutation.authorization).toBe(`token ${TOKEN}`);
    expect((mutation.body as { variables: unknown }).variables).toEqual({
      input: {
        issueId: fake.issueNodeId(1),
        repositoryId: fake.repoNodeId,
        oid: DEFAULT_HEAD_SHA,
        name: '1-crash-on-start',
      },
    });

    // The same name again: the branch exists ("Name already exists on this repository").
    expect(await provider.createLinkedBranch(repo(), issue.number, '1-crash-on-start')).toBeNull();
    // Linked (to any issue) but its branch gone: "Branch name has already been taken".
    fake.linkedBranches.set(1, ['1-crash-on-start', '1-old']);
    expect(await provider.createLinkedBranch(repo(), issue.number, '1-old')).toBeNull();
    // "Ref cannot be created", and wording GitHub has not used yet: refusals too; the caller's lookup decides.
    expect(await provider.createLinkedBranch(repo(), issue.number, 'bad..name')).toBeNull();
    fake.graphqlInjected.push({ operation: 'mutation', type: 'UNPROCESSABLE', message: 'Something new went wrong' });
    expect(await provider.createLinkedBranch(repo(), issue.number, '1-fresh')).toBeNull();
    expect(fake.linkedBranches.get(1)).toEqual(['1-crash-on-start', '1-old']);
  });

  it('create errors: unknown issue or a pull request 404, no token 401, missing scope 403, empty repo 409', async () => {
    fake.addIssue({ title: 'x' });
    fake.addPull({ title: 'p', head: 'p' });
    expect(await failure(provider.createLinkedBranch(repo(), 9, '9-x'))).toMatchObject({
      status: 404,
      message: 'GitHub request failed (404): Could not resolve to an Issue with the number of 9. (repository.issue)',
    });
    expect((await failure(provider.createLinkedBranch(repo(), 2, '2-p'))).status).toBe(404);
    const anonymous = new GitHubProvider({ baseUrl: fake.url, retryAfterBaseValueMs: 5 });
    expect(await failure(anonymous.createLinkedBranch(repo(), 1, '1-x'))).toMatchObject({
      status: 401,
      message: 'GitHub request failed (401): This endpoint requires you to be authenticated.',
    });
    const wrong = new GitHubProvider({ token: 'ghp_wrong', baseUrl: fake.url, retryAfterBaseValueMs: 5 });
    expect(await failure(wrong.linkedBranches(repo(), 1))).toMatchObject({
      status: 401,
      message: 'GitHub request failed (401): Bad credentials',
    });
    fake.scopes.clear();
    expect(await failure(provider.createLinkedBranch(repo(), 1, '1-x'))).toMatchObject({
      status: 403,
      message: 'GitHub request failed (403): Resource not accessible by personal access token (createLinkedBranch)',
    });
    fake.scopes.add('repo');
    fake.branches.clear();
    expect(await failure(provider.createLinkedBranch(repo(), 1, '1-x'))).toMatchObject({
      status: 409,
      message: 'GitHub request failed (409): acme/widget has no default branch (the repository is empty)',
    });
    expect(fake.linkedBranches.size).toBe(0);
  });

  it('GraphQL 5xx retried then 502; rate limits waited once or surfaced; the token in no message', async () => {
    fake.addIssue({ title: 'x' });
    fake.injected.push({ status: 503, message: 'blip', pathIncludes: '/graphql' });
    expect(await provider.createLinkedBranch(repo(), 1, '1-x')).toBe('1-x');
    fake.injected.push(
      ...[1, 2, 3].map(() => ({ status: 502, message: `upstream ${TOKEN} down`, pathIncludes: '/graphql' })),
    );
    expect(await failure(provider.linkedBranches(repo(), 1))).toMatchObject({
      status: 502,
      message: 'GitHub request failed (502): upstream [redacted] down',
    });
    // The 503 once and the mutation (3 requests), then three 502s: the first try and the two retries.
    expect(fake.requests.filter((r) => r.path === '/graphql')).toHaveLength(3 + 3);

    fake.graphqlInjected.push(fake.graphqlRateLimit(1));
    expect(await provider.linkedBranches(repo(), 1)).toEqual(['1-x']);
    expect(logged.join('\n')).toMatch(/primary rate limit, retrying/);
    const limited = fake.graphqlRateLimit(3600);
    fake.graphqlInjected.push(limited);
    const reset = new Date(Number(limited.headers!['x-ratelimit-reset']) * 1000).toISOString();
    expect(await failure(provider.linkedBranches(repo(), 1))).toMatchObject({
      status: 403,
      message: `GitHub request failed (403): API rate limit already exceeded for user ID 1. (rate limit resets at ${reset})`,
    });
    // An untyped GraphQL error (what a malformed query gets) is the forge failing to answer: 502.
    fake.graphqlInjected.push({ message: `Something went wrong with ${TOKEN}`, operation: 'mutation' });
    expect(await failure(provider.createLinkedBranch(repo(), 1, '1-y'))).toMatchObject({
      status: 502,
      message: 'GitHub request failed (502): Something went wrong with [redacted]',
    });
    expect(logged.join('\n')).not.toContain(TOKEN);
  });

  it('lists every linked branch over several pages', async () => {
    fake.addIssue({ title: 'many' });
    fake.addIssue({ title: 'none' });
    const names = Array.from({ length: 250 }, (_, i) => `1-many-${i}`);
    fake.linkedBranches.set(1, names);
    expect(await provider.linkedBranches(repo(), 1)).toEqual(names);
    expect(graphqlCalls()).toEqual(['LinkedBranches', 'LinkedBranches', 'LinkedBranches']);
    expect(await provider.linkedBranches(repo(), 2)).toEqual([]);
    expect(await failure(provider.linkedBranches(repo(), 7))).toMatchObject({
      status: 404,
      message: expect.stringMatching(/Could not resolve to an Issue with the number of 7/),
    });
  });

  it('finds a branch by its exact name', async () => {
    fake.branches.set('feat/x', '1'.repeat(40));
    expect(await provider.branchExists(repo(), 'feat/x')).toBe(true);
    expect(await provider.branchExists(repo(), 'main')).toBe(true);
    expect(await provider.branchExists(repo(), 'feat')).toBe(false);
    expect(await provider.branchExists(repo(), 'gone')).toBe(false);
    expect(fake.requests.map((r) => r.path)[0]).toBe('/repos/acme/widget/git/ref/heads%2Ffeat%2Fx');
    fake.injected.push(...[1, 2, 3].map(() => ({ status: 500, message: 'Server Error' })));
    expect(await failure(provider.branchExists(repo(), 'feat/x'))).toMatchObject({
      status: 500,
      message: 'GitHub request failed (500): Server Error',
    });
    const anonymous = new GitHubProvider({ baseUrl: fake.url, retryAfterBaseValueMs: 5 });
    expect((await failure(anonymous.branchExists(repo(), 'main'))).status).toBe(401);
  });

  it("a branch's pull requests in every state, over pages, in one list call sequence", async () => {
    for (let i = 0; i < 230; i++)
      fake.addPull({ title: `pr ${i}`, head: 'feat/x', state: i % 3 === 0 ? 'closed' : 'open' });
    fake.addPull({ title: 'other branch', head: 'feat/y' });
    fake.addPull({ title: "a fork's branch of the same name", head: 'feat/x', headOwner: 'mallory' });
    const pulls = await provider.pullsForBranch(repo(), 'feat/x');
    expect(pulls).toHaveLength(230);
    expect(pulls[0]).toEqual({ number: 230, state: 'open', url: 'https://github.example/acme/widget/pull/230' });
    expect(pulls.at(-1)).toEqual({ number: 1, state: 'closed', url: 'https://github.example/acme/widget/pull/1' });
    expect(fake.requests.map((r) => r.path)).toEqual([
      '/repos/acme/widget/pulls?head=acme%3Afeat%2Fx&state=all&per_page=100',
      '/repos/acme/widget/pulls?head=acme%3Afeat%2Fx&state=all&per_page=100&page=2',
      '/repos/acme/widget/pulls?head=acme%3Afeat%2Fx&state=all&per_page=100&page=3',
    ]);
    fake.requests.length = 0;
    expect(await provider.pullsForBranch(repo(), 'nothing')).toEqual([]);
    expect(fake.requests).toHaveLength(1);
    fake.injected.push(...[1, 2, 3].map(() => ({ status: 502, message: 'Bad Gateway', pathIncludes: '/pulls' })));
    expect(await failure(provider.pullsForBranch(repo(), 'feat/x'))).toMatchObject({ status: 502 });
  });

  it('with a backing repository the created branch is a real ref that clones', async () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-fake-forge-'));
    try {
      const remote = makeRemote(root);
      fake.backingRepo = remote.bare;
      const head = git(root, '--git-dir', remote.bare, 'rev-parse', 'main').trim();
      fake.addIssue({ title: 'Real branch' });
      expect(await provider.branchExists(repo(), 'feature')).toBe(true);
      expect(await provider.branchExists(repo(), '1-real-branch')).toBe(false);
      expect(await provider.createLinkedBranch(repo(), 1, '1-real-branch')).toBe('1-real-branch');
      expect(git(root, '--git-dir', remote.bare, 'rev-parse', '1-real-branch').trim()).toBe(head);
      expect(await provider.branchExists(repo(), '1-real-branch')).toBe(true);
      git(root, 'clone', '--quiet', '--branch', '1-real-branch', remote.url, join(root, 'clone'));
      expect(git(join(root, 'clone'), 'rev-parse', 'HEAD').trim()).toBe(head);
      // `feature` exists in the backing repo (not in `branches`): a refusal.
      expect(await provider.createLinkedBranch(repo(), 1, 'feature')).toBeNull();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
