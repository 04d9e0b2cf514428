// Issue-linked create through a real bridge and a real ship, against the fake forge backed by a real bare
// repository (its createLinkedBranch makes a real branch there, which the ship then clones through git's
// `insteadOf`, as a GitHub URL would be cloned): the spec's validation rows, the canonical branch, each
// fallback (linked, plain ref), the 409 substitution rule, provider errors passed through, the branch kept
// when the clone fails, and an ephemeral create's record on the answer, the status and the list. The bridge is
// built without a socket and asked through app.inject (test/helpers/bridge-app.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubProvider } from '../../bridge/providers/github.js';
import type { FakeGitHub } from '../fakes/github.js';
import { buildTestBridge, type TestBridgeApp } from '../helpers/bridge-app.js';
import { git, makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { cloneHome, startBackedForge, useHome } from '../helpers/github-clone.js';

const TOKEN = 'ghp_issue_create_secret_24680';
const GITHUB_URL = 'https://github.example/acme/widget.git';
let root: string;
let remote: RemoteFixture;
let fake: FakeGitHub;
let bridge: TestBridgeApp;
let ship: TestShip;
let restoreHome: (() => void) | undefined;
/** A request to the bridge, through app.inject. */
const bridgeCall = (method: string, path: string, body?: unknown) => bridge.inject(method, path, body);

const create = (body: Record<string, unknown>) =>
  bridgeCall('POST', '/workspaces', { ship: 'forge-ship', repoName: 'widget', ...body });
const remoteBranches = () =>
  git(remote.bare, 'for-each-ref', '--format=%(refname:short)', 'refs/heads').trim().split('\n').sort();

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  // The ship clones the GitHub URL from the bare repository (git reads $HOME/.gitconfig; the ship passes HOME).
  restoreHome = useHome(cloneHome(root, remote.bare, GITHUB_URL));
  fake = await startBackedForge(remote.bare, TOKEN);
  ship = await startTestShip(root, { name: 'forge-ship' });
  bridge = await buildTestBridge(root, {
    insecureNoAuth: true,
    forgeProviders: { github: new GitHubProvider({ token: TOKEN, baseUrl: fake.url, retryAfterBaseValueMs: 1 }) },
  });
  expect((await bridgeCall('POST', '/ships', { url: ship.url })).status).toBe(201);
  expect((await bridgeCall('POST', '/repos', { name: 'widget', url: GITHUB_URL, provider: 'github' })).status).toBe(
    201,
  );
  expect((await bridgeCall('POST', '/repos', { name: 'plain', url: remote.url })).status).toBe(201);
  expect(
    (
      await bridgeCall('POST', '/repos', {
        name: 'lab',
        url: 'https://gitlab.example/acme/widget.git',
        provider: 'gitlab',
      })
    ).status,
  ).toBe(201);
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await ship?.stop();
  await fake?.stop();
  restoreHome?.();
  if (root) await removeRoot(root);
});

describe('validation (spec 400 rows, before anything reaches the forge)', () => {
  it.each([
    [{ name: 'v1', branch: 'main', issueNumber: 1 }, 'give either a branch or an issueNumber, not both'],
    [{ name: 'v2' }, 'give either a branch or an issueNumber'],
    [{ name: 'v3', issueNumber: 0 }, 'issueNumber must be a positive integer'],
    [{ name: 'v4', issueNumber: -1 }, 'issueNumber must be a positive integer'],
    [{ name: 'v5', issueNumber: 1.5 }, 'issueNumber must be a positive integer'],
    [{ name: 'v6', branch: 'main', ephemeral: true }, 'ephemeral is only accepted together with issueNumber'],
    [{ name: 'v7', ephemeral: false }, 'ephemeral is only accepted together with issueNumber'],
    [{ name: 'v8', branch: '   ' }, 'branch must not be empty'],
    [{ name: 'v9', issueNumber: 1, repoName: 'nope' }, 'unknown repo: nope'],
    [{ name: 'v10', issueNumber: 1, ship: 'nowhere' }, 'unknown ship: nowhere'],
    [
      { name: 'v11', issueNumber: 1, repoName: 'plain' },
      'creating a workspace from an issue needs a repo with provider "github"; repo "plain" has provider "custom"',
    ],
  ])('%j → 400 %s', async (body, message) => {
    const before = fake.requests.length;
    const reply = await create(body);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: message });
    expect(fake.requests.length).toBe(before);
  });

  it('a provider the bridge has no implementation of → 501', async () => {
    const reply = await create({ name: 'v12', repoName: 'lab', issueNumber: 1 });
    expect(reply).toMatchObject({ status: 501, body: { error: 'provider "gitlab" is not supported yet' } });
  });
});

describe('the canonical branch, created and linked on the forge, then cloned', () => {
  it('creates <number>-<slug>, links it to the issue, and the ship checks it out', async () => {
    const issue = fake.addIssue({ title: 'Crash on start: NullPointer in Über-Parser! 🐛' });
    const reply = await create({ name: 'crash', issueNumber: issue.number });
    const branch = `${issue.number}-crash-on-start-nullpointer-in-ber-parser`;
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      repoName: 'widget',
      name: 'crash',
      branch,
      ship: 'forge-ship',
      ephemeral: null,
    });
    expect(remoteBranches()).toContain(branch);
    expect(fake.linkedBranches.get(issue.number)).toEqual([branch]);
    const onShip = await call(ship.url, 'GET', path('widget', 'crash'));
    expect(onShip.body.branch).toBe(branch);
    // The branch starts at the default branch's head.
    expect(git(remote.bare, 'rev-parse', branch)).toBe(git(remote.bare, 'rev-parse', 'main'));
  });

  it('a title that slugs to nothing gives the bare number; a 200-character title is capped at 60', async () => {
    const emoji = fake.addIssue({ title: '🚀🔥✨' });
    expect((await create({ name: 'emoji', issueNumber: emoji.number })).body.branch).toBe(String(emoji.number));
    const long = fake.addIssue({ title: 'refactor '.repeat(23).slice(0, 200) });
    const branch = (await create({ name: 'long', issueNumber: long.number })).body.branch as string;
    // Cut at 60 mid-word: `<n>-refactor-…-refa`.
    expect(branch).toHaveLength(60);
    expect(branch).toMatch(new RegExp(`^${long.number}-(refactor-)+[a-z]+$`));
    expect(branch.endsWith('-')).toBe(false);
  });
});

describe('when the forge will not create the branch', () => {
  it("uses the same name found among the issue's linked branches (a second workspace for one issue)", async () => {
    const issue = fake.addIssue({ title: 'Shared work' });
    const first = await create({ name: 'shared-a', issueNumber: issue.number });
    const second = await create({ name: 'shared-b', issueNumber: issue.number });
    expect(second.status).toBe(201);
    expect(second.body.branch).toBe(first.body.branch);
    expect(fake.linkedBranches.get(issue.number)).toEqual([first.body.branch]);
  });

  it('uses an existing plain ref of that name', async () => {
    const issue = fake.addIssue({ title: 'Already pushed' });
    const branch = `${issue.number}-already-pushed`;
    git(remote.bare, 'branch', branch, 'feature');
    const reply = await create({ name: 'pushed', issueNumber: issue.number });
    expect(reply.status).toBe(201);
    expect(reply.body.branch).toBe(branch);
    // The existing branch, not a new one from main.
    expect((await call(ship.url, 'GET', path('widget', 'pushed'))).body.branch).toBe(branch);
    expect(git(remote.bare, 'rev-parse', branch)).toBe(git(remote.bare, 'rev-parse', 'feature'));
  });

  it('never substitutes a branch linked under a different name: 409, nothing cloned', async () => {
    const issue = fake.addIssue({ title: 'Renamed' });
    git(remote.bare, 'branch', 'my-own-name', 'main');
    fake.linkedBranches.set(issue.number, ['my-own-name']);
    fake.graphqlInjected.push({
      operation: 'mutation',
      type: 'UNPROCESSABLE',
      message: 'Validation failed: Branch name has already been taken',
    });
    const reply = await create({ name: 'renamed', issueNumber: issue.number });
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({
      error: `issue #${issue.number} is linked to branch "my-own-name", not "${issue.number}-renamed"; svc never substitutes a differently named branch`,
    });
    expect((await call(ship.url, 'GET', path('widget', 'renamed'))).status).toBe(404);
    expect((await bridgeCall('GET', path('widget', 'renamed'))).status).toBe(404);
  });

  it("goes on to the lookup whatever the forge's refusal says: a branch linked under another name is 409, nothing cloned", async () => {
    const issue = fake.addIssue({ title: 'Reworded' });
    git(remote.bare, 'branch', `${issue.number}-old-name`, 'main');
    fake.linkedBranches.set(issue.number, [`${issue.number}-old-name`]);
    fake.graphqlInjected.push({
      operation: 'mutation',
      type: 'UNPROCESSABLE',
      message: 'Could not create a linked branch for this issue',
    });
    const reply = await create({ name: 'reworded', issueNumber: issue.number });
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({
      error: `issue #${issue.number} is linked to branch "${issue.number}-old-name", not "${issue.number}-reworded"; svc never substitutes a differently named branch`,
    });
    expect((await call(ship.url, 'GET', path('widget', 'reworded'))).status).toBe(404);
    expect((await bridgeCall('GET', path('widget', 'reworded'))).status).toBe(404);
  });
});

describe("forge errors pass through with the forge's status", () => {
  it('an unknown issue → 404', async () => {
    const reply = await create({ name: 'ghost', issueNumber: 9999 });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toMatch(/^GitHub request failed \(404\)/);
  });

  it("a pull request's number → 404 (it is not an issue)", async () => {
    const pull = fake.addPull({ title: 'A PR', head: 'feature' });
    const reply = await create({ name: 'pr-number', issueNumber: pull.number });
    expect(reply.status).toBe(404);
  });

  it('a token without write scope → 403 and no branch', async () => {
    const issue = fake.addIssue({ title: 'No scope' });
    fake.scopes.delete('repo');
    try {
      const reply = await create({ name: 'noscope', issueNumber: issue.number });
      expect(reply.status).toBe(403);
      expect(reply.body.error).toContain('Resource not accessible by personal access token');
    } finally {
      fake.scopes.add('repo');
    }
    expect(remoteBranches()).not.toContain(`${issue.number}-no-scope`);
  });

  it('a forge 5xx → 502; the token never appears in the answer', async () => {
    const issue = fake.addIssue({ title: 'Flaky' });
    for (let i = 0; i < 3; i++)
      fake.injected.push({ status: 503, message: `upstream down ${TOKEN}`, pathIncludes: `/issues/${issue.number}` });
    const reply = await create({ name: 'flaky', issueNumber: issue.number });
    expect(reply.status).toBe(502);
    expect(JSON.stringify(reply.body)).not.toContain(TOKEN);
  });

  it("a token the forge does not accept → 401 with the forge's words", async () => {
    const issue = fake.addIssue({ title: 'Rotated token' });
    fake.token = 'ghp_some_other_token';
    try {
      const reply = await create({ name: 'rotated', issueNumber: issue.number });
      expect(reply).toMatchObject({ status: 401, body: { error: 'GitHub request failed (401): Bad credentials' } });
    } finally {
      fake.token = TOKEN;
    }
  });
});

describe('the branch is made before the clone and kept when the clone fails', () => {
  it('a clone the ship refuses leaves the branch on the forge, and no workspace', async () => {
    const issue = fake.addIssue({ title: 'Clone fails' });
    // A plain file where the workspace directory would go: the ship refuses the create.
    mkdirSync(join(root, 'fleet', 'widget'), { recursive: true });
    writeFileSync(join(root, 'fleet', 'widget', 'blocked'), 'not a directory');
    const reply = await create({ name: 'blocked', issueNumber: issue.number, ephemeral: true });
    expect(reply).toMatchObject({ status: 409, body: { error: 'workspace already exists: widget/blocked' } });
    expect(remoteBranches()).toContain(`${issue.number}-clone-fails`);
    expect((await bridgeCall('GET', path('widget', 'blocked'))).status).toBe(404);
    // No record either.
    expect((await bridge.services.store.ephemeral.list()).some((r) => r.name === 'blocked')).toBe(false);
  });
});

describe('ephemeral: true', () => {
  it('answers, lists and reports the record; the store holds it as watching', async () => {
    const issue = fake.addIssue({ title: 'Ephemeral fix' });
    const branch = `${issue.number}-ephemeral-fix`;
    const expected = {
      issueNumber: issue.number,
      branch,
      cleanup: 'watching',
      blockedReason: null,
      blockedAt: null,
      pullRequest: null,
    };
    const reply = await create({ name: 'eph', issueNumber: issue.number, ephemeral: true });
    expect(reply.status).toBe(201);
    expect(reply.body.ephemeral).toEqual(expected);
    expect((await bridgeCall('GET', path('widget', 'eph'))).body.ephemeral).toEqual(expected);
    const listed = (await bridgeCall('GET', '/workspaces')).body as Array<{ name: string; ephemeral: unknown }>;
    expect(listed.find((w) => w.name === 'eph')!.ephemeral).toEqual(expected);
    expect(listed.find((w) => w.name === 'crash')!.ephemeral).toBeNull();
    const rows = await bridge.services.store.ephemeral.list();
    expect(rows.find((r) => r.name === 'eph')).toMatchObject({
      repoName: 'widget',
      ship: 'forge-ship',
      cleanup: 'watching',
      branch,
    });
    // The ship neither stores nor reports it.
    expect((await call(ship.url, 'GET', path('widget', 'eph'))).body).not.toHaveProperty('ephemeral');
  });

  it('a workspace deleted through the bridge takes its record with it', async () => {
    const issue = fake.addIssue({ title: 'Short lived' });
    expect((await create({ name: 'short', issueNumber: issue.number, ephemeral: true })).status).toBe(201);
    expect((await bridgeCall('DELETE', path('widget', 'short'))).status).toBe(200);
    expect((await bridge.services.store.ephemeral.list()).some((r) => r.name === 'short')).toBe(false);
  });
});
