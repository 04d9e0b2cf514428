// Ephemeral workspaces and the sweeper end to end (spec "EphemeralWorkspace", "Ephemeral cleanup", "POST
// /workspaces/sweep"; docs/architecture.md §9; DECISIONS "Issue-linked and ephemeral workspaces, the sweeper"): a real
// bridge with real ships and real git, the GitHub provider against the fake forge whose branches live in
// the bare repository the ships clone. Every pass's five counters are asserted exactly, with the record as
// the bridge shows it (status, list, events), the workspace as its ship has it, and the forge calls made.
// The repo's clone URL is a GitHub one; the ships' git reaches the bare repository through an `insteadOf`
// in this file's own $HOME/.gitconfig (the ship passes HOME to git), so nothing leaves the machine.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GitHubProvider } from '../../bridge/providers/github.js';
import { startBridge, type Bridge, type BridgeOptions } from '../../bridge/server.js';
import type { SweepCounters } from '../../protocol/index.js';
import type { FakeGitHub, FakeIssue } from '../fakes/github.js';
import { insecureBridge, shipStatus } from '../helpers/bridge.js';
import { connectEvents, type EventClient } from '../helpers/events.js';
import { git, makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { until } from '../helpers/poll.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { cloneHome, startBackedForge, useHome } from '../helpers/github-clone.js';

const TOKEN = 'ghp_ephemeral_sweep_token_97531';
const CLONE_URL = 'https://github.example/acme/widget.git';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let root: string;
let restoreHome: (() => void) | undefined;
let remote: RemoteFixture;
/** The forge of repo `widget` (provider `github`), and of repo `gadget` (provider `ghe`, same clone URL). */
let fake: FakeGitHub;
let fake2: FakeGitHub;
let alpha: TestShip;
let beta: TestShip;
let bridge: Bridge;
let events: EventClient;

const providers = () => ({
  github: new GitHubProvider({ token: TOKEN, baseUrl: fake.url, retryAfterBaseValueMs: 5 }),
  ghe: new GitHubProvider({ token: TOKEN, baseUrl: fake2.url, retryAfterBaseValueMs: 5 }),
});
const bridgeOptions = (sweepIntervalMs: number): BridgeOptions => ({
  ...insecureBridge,
  port: 0,
  dataDirectory: join(root, 'bridge'),
  logger: pino({ level: 'silent' }),
  reconnect: { initialMs: 50, maxMs: 200 },
  forgeProviders: providers(),
  sweepIntervalMs,
});

const counters = (some: Partial<SweepCounters> = {}): SweepCounters => ({
  checked: 0,
  destroyed: 0,
  blocked: 0,
  skipped: 0,
  forgotten: 0,
  ...some,
});
const slug = (title: string) => title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
const pullUrl = (number: number) => `https://github.example/acme/widget/pull/${number}`;
const workspaceDir = (ship: 'alpha' | 'beta', name: string, repo = 'widget') => join(root, `fleet-${ship}`, repo, name);

/** An open issue on `forge` and the branch an issue-linked create makes for it. */
function newIssue(title: string, forge = fake): { issue: FakeIssue; branch: string } {
  const issue = forge.addIssue({ title });
  return { issue, branch: `${issue.number}-${slug(title)}` };
}

async function createEphemeral(name: string, issueNumber: number, ship = 'alpha', repoName = 'widget') {
  const reply = await call(bridge.url, 'POST', '/workspaces', { ship, repoName, name, issueNumber, ephemeral: true });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function sweep(): Promise<SweepCounters> {
  const reply = await call(bridge.url, 'POST', '/workspaces/sweep');
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** The bridge's status of a workspace (404 → null). */
async function bridgeStatus(name: string, repo = 'widget') {
  const reply = await call(bridge.url, 'GET', path(repo, name));
  return reply.status === 404 ? null : reply.body;
}
const listed = async (name: string, repo = 'widget') =>
  (
    (await call(bridge.url, 'GET', '/workspaces')).body as Array<{ repoName: string; name: string; ephemeral: unknown }>
  ).find((w) => w.repoName === repo && w.name === name);
/** The ship's own answer for the workspace: 200 when it has it, 404 when not. */
const onShip = async (ship: TestShip, name: string, repo = 'widget') =>
  (await call(ship.url, 'GET', path(repo, name))).status;
/** The stored records, without the write time of their row (compared as the spec's fields). */
const stored = async () => (await bridge.store.ephemeral.list()).map(({ createdAt: _written, ...record }) => record);

/** The forge calls since `mark`, as `pulls <branch>`, `issue <n>` or `METHOD path`. */
function forgeCalls(mark: number, forge = fake): string[] {
  return forge.requests
    .slice(mark)
    .map((request) => {
      const url = new URL(request.path, 'http://forge');
      if (
        request.method === 'GET' &&
        url.pathname === `/repos/acme/widget/pulls` &&
        url.searchParams.get('head')?.startsWith('acme:')
      ) {
        return `pulls ${url.searchParams.get('head')!.slice('acme:'.length)}`;
      }
      const issue = /^\/repos\/acme\/widget\/issues\/(\d+)$/.exec(url.pathname);
      if (request.method === 'GET' && issue) return `issue ${issue[1]}`;
      return `${request.method} ${request.path}${request.operation ? ` ${request.operation}` : ''}`;
    })
    .sort();
}

/** The first `sync` since event `from` whose workspaces satisfy `check`. */
async function syncSince(from: number, check: (workspaces: any[]) => boolean, what: string) {
  return until(
    async () => events.events.slice(from).find((event) => event.type === 'sync' && check(event.workspaces)) ?? null,
    what,
    5_000,
  );
}
const entry = (workspaces: any[], name: string, repo = 'widget') =>
  workspaces.find((w) => w.repoName === repo && w.name === name);

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  // The ships' git (and this file's own pushes) reach the bare repository for the GitHub URL.
  restoreHome = useHome(cloneHome(root, remote.bare, CLONE_URL));
  fake = await startBackedForge(remote.bare, TOKEN);
  fake2 = await startBackedForge(remote.bare, TOKEN);
  alpha = await startTestShip(root, { name: 'alpha', fleetDirectory: join(root, 'fleet-alpha') });
  beta = await startTestShip(root, { name: 'beta', fleetDirectory: join(root, 'fleet-beta') });
  bridge = await startBridge(bridgeOptions(0));
  expect(
    (await call(bridge.url, 'POST', '/repos', { name: 'widget', url: CLONE_URL, provider: 'github' })).status,
  ).toBe(201);
  expect((await call(bridge.url, 'POST', '/repos', { name: 'gadget', url: CLONE_URL, provider: 'ghe' })).status).toBe(
    201,
  );
  expect((await call(bridge.url, 'POST', '/ships', { url: alpha.url })).status).toBe(201);
  expect((await call(bridge.url, 'POST', '/ships', { url: beta.url })).status).toBe(201);
  events = await connectEvents(bridge.url);
}, 60_000);

afterEach(async () => {
  fake.injected.length = 0;
  fake2.injected.length = 0;
  // Every test leaves no workspace and no record: the next one's counters count only its own.
  for (const w of (await call(bridge.url, 'GET', '/workspaces')).body as Array<{ repoName: string; name: string }>) {
    expect((await call(bridge.url, 'DELETE', path(w.repoName, w.name))).status).toBe(200);
  }
  for (const ship of [alpha, beta]) {
    for (const w of (await call(ship.url, 'GET', '/workspaces')).body as Array<{ repoName: string; name: string }>) {
      await call(ship.url, 'DELETE', path(w.repoName, w.name));
    }
  }
  expect(await stored()).toEqual([]);
});

afterAll(async () => {
  await events?.close();
  await bridge?.close();
  await alpha?.stop();
  await beta?.stop();
  await fake?.stop();
  await fake2?.stop();
  restoreHome?.();
  if (root) await removeRoot(root);
});

describe('ephemeral records', () => {
  it('an ephemeral create watches; a pass with the issue open and no pull request only checks; a pull request is shown, the open one first', async () => {
    const from = events.events.length;
    const { issue, branch } = newIssue('Fix the crash');
    const created = await createEphemeral('e1', issue.number);
    const watching = {
      issueNumber: issue.number,
      branch,
      cleanup: 'watching',
      blockedReason: null,
      blockedAt: null,
      pullRequest: null,
    };
    expect(created).toMatchObject({
      repoName: 'widget',
      name: 'e1',
      branch,
      active: false,
      ship: 'alpha',
      ephemeral: watching,
    });
    // The branch was made on the forge (in the bare repository the ship cloned) and linked to the issue.
    expect(fake.linkedBranches.get(issue.number)).toEqual([branch]);
    expect(fake.resolveRef(branch)).toBe(git(remote.bare, 'rev-parse', 'main').trim());
    expect(await onShip(alpha, 'e1')).toBe(200);
    expect(await bridgeStatus('e1')).toEqual({
      state: 'inactive',
      repoName: 'widget',
      name: 'e1',
      branch,
      ship: 'alpha',
      ephemeral: watching,
    });
    expect(await listed('e1')).toEqual({
      repoName: 'widget',
      name: 'e1',
      branch,
      active: false,
      agent: null,
      ship: 'alpha',
      ephemeral: watching,
    });
    expect(await stored()).toEqual([{ repoName: 'widget', name: 'e1', ship: 'alpha', ...watching }]);
    await syncSince(
      from,
      (ws) => entry(ws, 'e1')?.ephemeral?.cleanup === 'watching',
      'a sync with the record watching',
    );

    // Issue open, no pull request: checked, two forge calls (the branch's pulls, then the issue).
    let mark = fake.requests.length;
    expect(await sweep()).toEqual(counters({ checked: 1 }));
    expect(forgeCalls(mark)).toEqual([`issue ${issue.number}`, `pulls ${branch}`]);
    expect((await bridgeStatus('e1')).ephemeral).toEqual(watching);
    expect(await onShip(alpha, 'e1')).toBe(200);

    // A pull request opened for the branch: shown, still watching, the issue no longer read.
    const pull = fake.addPull({ title: 'Fix the crash', head: branch });
    let since = events.events.length;
    mark = fake.requests.length;
    expect(await sweep()).toEqual(counters({ checked: 1 }));
    expect(forgeCalls(mark)).toEqual([`pulls ${branch}`]);
    const shown = { ...watching, pullRequest: { number: pull.number, state: 'open', url: pullUrl(pull.number) } };
    expect((await bridgeStatus('e1')).ephemeral).toEqual(shown);
    expect((await listed('e1'))!.ephemeral).toEqual(shown);
    await syncSince(
      since,
      (ws) => entry(ws, 'e1')?.ephemeral?.pullRequest?.number === pull.number,
      'a sync with the pull request',
    );

    // The issue closed while a pull request is open: nothing to clean up. A later, closed pull request does
    // not hide the open one.
    issue.state = 'closed';
    const later = fake.addPull({ title: 'Another try', head: branch, state: 'closed' });
    expect(later.number).toBeGreaterThan(pull.number);
    expect(await sweep()).toEqual(counters({ checked: 1 }));
    expect((await bridgeStatus('e1')).ephemeral).toEqual(shown);
    expect(await onShip(alpha, 'e1')).toBe(200);

    // A fork's pull request from a branch of the same name is another branch's: not counted.
    const fork = fake.addPull({ title: 'Fork', head: branch, headOwner: 'someone' });
    pull.state = 'closed';
    since = events.events.length;
    expect(await sweep()).toEqual(counters({ checked: 1, destroyed: 1 }));
    expect(fork.state).toBe('open');
    expect(await onShip(alpha, 'e1')).toBe(404);
    expect(await bridgeStatus('e1')).toBeNull();
    expect(await stored()).toEqual([]);
    await syncSince(since, (ws) => !entry(ws, 'e1'), 'a sync without the destroyed workspace');
  });

  it('a branch whose pull requests are all closed or merged is destroyed: gone from the ship, the bridge and the store', async () => {
    const { issue, branch } = newIssue('Merged already');
    await createEphemeral('merged', issue.number);
    const first = fake.addPull({ title: 'First go', head: branch, state: 'closed' });
    const merged = fake.addPull({ title: 'Second go', head: branch, state: 'closed', merged: true });
    // The issue stays open: with pull requests, only theirs decide.
    const mark = fake.requests.length;
    const since = events.events.length;
    expect(await sweep()).toEqual(counters({ checked: 1, destroyed: 1 }));
    expect(forgeCalls(mark)).toEqual([`pulls ${branch}`]);
    expect(first.number).toBeLessThan(merged.number);
    expect(await onShip(alpha, 'merged')).toBe(404);
    expect(await bridgeStatus('merged')).toBeNull();
    expect(await listed('merged')).toBeUndefined();
    expect(await stored()).toEqual([]);
    await syncSince(since, (ws) => !entry(ws, 'merged'), 'a sync without the destroyed workspace');
    // Nothing left to look at.
    expect(await sweep()).toEqual(counters());
  });

  it('no pull request and the issue closed: destroyed', async () => {
    const { issue, branch } = newIssue('Closed without a PR');
    await createEphemeral('closed', issue.number);
    issue.state = 'closed';
    const mark = fake.requests.length;
    expect(await sweep()).toEqual(counters({ checked: 1, destroyed: 1 }));
    expect(forgeCalls(mark)).toEqual([`issue ${issue.number}`, `pulls ${branch}`]);
    expect(await onShip(alpha, 'closed')).toBe(404);
    expect(await bridgeStatus('closed')).toBeNull();
    expect(await stored()).toEqual([]);
  });

  it("unpushed work blocks the cleanup with the ship's refusal; a PR opened again unblocks; once pushed and closed it is destroyed", async () => {
    const { issue, branch } = newIssue('Keep my work');
    await createEphemeral('keep', issue.number);
    const dir = workspaceDir('alpha', 'keep');
    // Work no remote has: a commit on the issue branch, two more local branches, an untracked file.
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    git(dir, 'add', 'notes.txt');
    git(dir, 'commit', '--quiet', '-m', 'notes');
    for (const scratch of ['scratch-branch-kept-for-later-number-one', 'scratch-branch-kept-for-later-number-two']) {
      git(dir, 'switch', '--quiet', '-c', scratch);
      writeFileSync(join(dir, `${scratch}.txt`), 'scratch\n');
      git(dir, 'add', '.');
      git(dir, 'commit', '--quiet', '-m', scratch);
    }
    git(dir, 'switch', '--quiet', branch);
    writeFileSync(join(dir, 'draft.txt'), 'not yet\n');
    // What the ship says to a guarded delete (it deletes nothing), longer than the record keeps.
    const refusal = await call(alpha.url, 'DELETE', `${path('widget', 'keep')}?force=false`);
    expect(refusal.status).toBe(409);
    const reason: string = refusal.body.error;
    expect(reason).toMatch(
      /^workspace widget\/keep holds work that is not on a remote: uncommitted changes \(1 path\); 1 commit on branch /,
    );
    expect(reason.length).toBeGreaterThan(200);

    issue.state = 'closed';
    let since = events.events.length;
    const before = Date.now();
    expect(await sweep()).toEqual(counters({ checked: 1, blocked: 1 }));
    const after = Date.now();
    const blocked = (await bridgeStatus('keep')).ephemeral;
    expect(blocked).toEqual({
      issueNumber: issue.number,
      branch,
      cleanup: 'blocked',
      blockedReason: reason.slice(0, 200),
      blockedAt: expect.stringMatching(ISO),
      pullRequest: null,
    });
    expect(Date.parse(blocked.blockedAt)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(blocked.blockedAt)).toBeLessThanOrEqual(after + 5);
    expect((await listed('keep'))!.ephemeral).toEqual(blocked);
    expect(await stored()).toEqual([{ repoName: 'widget', name: 'keep', ship: 'alpha', ...blocked }]);
    expect(await onShip(alpha, 'keep')).toBe(200);
    await syncSince(
      since,
      (ws) => entry(ws, 'keep')?.ephemeral?.cleanup === 'blocked',
      'a sync with the record blocked',
    );

    // A second pass: refused again, counted again, blockedAt kept from the first refusal.
    expect(await sweep()).toEqual(counters({ checked: 1, blocked: 1 }));
    expect((await bridgeStatus('keep')).ephemeral).toEqual(blocked);
    expect(await onShip(alpha, 'keep')).toBe(200);

    // A pull request opened for the branch: watching again, refusal and time cleared.
    const pull = fake.addPull({ title: 'Keep my work', head: branch });
    since = events.events.length;
    expect(await sweep()).toEqual(counters({ checked: 1 }));
    const watching = {
      issueNumber: issue.number,
      branch,
      cleanup: 'watching',
      blockedReason: null,
      blockedAt: null,
      pullRequest: { number: pull.number, state: 'open', url: pullUrl(pull.number) },
    };
    expect((await bridgeStatus('keep')).ephemeral).toEqual(watching);
    expect(await stored()).toEqual([{ repoName: 'widget', name: 'keep', ship: 'alpha', ...watching }]);
    await syncSince(
      since,
      (ws) => entry(ws, 'keep')?.ephemeral?.cleanup === 'watching',
      'a sync with the record watching again',
    );

    // The work pushed (every branch) and the draft dropped; the pull request closed: destroyed.
    git(dir, 'push', '--quiet', 'origin', '--all');
    git(dir, 'clean', '--quiet', '-f');
    pull.state = 'closed';
    expect(await sweep()).toEqual(counters({ checked: 1, destroyed: 1 }));
    expect(await onShip(alpha, 'keep')).toBe(404);
    expect(await bridgeStatus('keep')).toBeNull();
    expect(await stored()).toEqual([]);
    // The pushed work is on the forge's repository.
    expect(git(remote.bare, 'log', '--format=%s', '-1', branch).trim()).toBe('notes');
  });

  it('a refusal cut at 200 characters never splits a character: the record reads the same from memory and from the store', async () => {
    const { issue } = newIssue('Emoji at the cut');
    await createEphemeral('emo', issue.number);
    const dir = workspaceDir('alpha', 'emo');
    // One local branch with a commit no remote has, named so that an emoji straddles characters 200 and 201.
    const prefix = 'workspace widget/emo holds work that is not on a remote: 1 commit on branch ';
    const scratch = `${'x'.repeat(199 - prefix.length)}\u{1F600}-tail`;
    git(dir, 'switch', '--quiet', '-c', scratch);
    writeFileSync(join(dir, 'emoji.txt'), 'grin\n');
    git(dir, 'add', 'emoji.txt');
    git(dir, 'commit', '--quiet', '-m', 'emoji');
    const reason = `${prefix}${scratch} not on any remote`;
    expect((await call(alpha.url, 'DELETE', `${path('widget', 'emo')}?force=false`)).body).toEqual({ error: reason });
    expect(reason.charCodeAt(199)).toBe(0xd83d);
    issue.state = 'closed';
    expect(await sweep()).toEqual(counters({ checked: 1, blocked: 1 }));
    const shown: string = (await bridgeStatus('emo')).ephemeral.blockedReason;
    expect(shown).toBe(reason.slice(0, 199));
    expect(shown).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect((await stored())[0]!.blockedReason).toBe(shown);
  });

  it('a workspace deleted on the ship itself is forgotten at the next pass, without a forge call', async () => {
    const { issue } = newIssue('Deleted behind our back');
    await createEphemeral('gone', issue.number);
    expect((await call(alpha.url, 'DELETE', path('widget', 'gone'))).status).toBe(200);
    await until(async () => (await bridgeStatus('gone')) === null, 'the bridge saw the ship remove it');
    expect((await stored()).map((r) => r.name)).toEqual(['gone']);
    const mark = fake.requests.length;
    const since = events.events.length;
    expect(await sweep()).toEqual(counters({ forgotten: 1 }));
    expect(forgeCalls(mark)).toEqual([]);
    expect(await stored()).toEqual([]);
    await syncSince(since, (ws) => !entry(ws, 'gone'), 'a sync after the record was forgotten');
    expect(await sweep()).toEqual(counters());
  });

  it('a record left by a workspace deleted on the ship never adopts an ordinary workspace later created under its key', async () => {
    const { issue } = newIssue('Reused name');
    await createEphemeral('reuse', issue.number);
    expect((await call(alpha.url, 'DELETE', path('widget', 'reuse'))).status).toBe(200);
    await until(async () => (await listed('reuse')) === undefined, 'the bridge saw the ship remove it');
    // Before any pass forgets the record, the key is created again, as an ordinary workspace.
    const since = events.events.length;
    const created = await call(bridge.url, 'POST', '/workspaces', {
      ship: 'alpha',
      repoName: 'widget',
      name: 'reuse',
      branch: 'main',
    });
    expect(created).toMatchObject({ status: 201, body: { name: 'reuse', branch: 'main', ephemeral: null } });
    expect(await bridgeStatus('reuse')).toMatchObject({ branch: 'main', ephemeral: null });
    expect(await listed('reuse')).toMatchObject({ ephemeral: null });
    expect(await stored()).toEqual([]);
    await syncSince(
      since,
      (ws) => entry(ws, 'reuse')?.branch === 'main' && entry(ws, 'reuse').ephemeral === null,
      'a sync with the new workspace, ordinary',
    );
    // The old issue closes: the ordinary workspace is nobody's to clean up.
    issue.state = 'closed';
    expect(await sweep()).toEqual(counters());
    expect(await onShip(alpha, 'reuse')).toBe(200);
  });

  it("an offline ship's records are skipped and kept; back online, the cleanup proceeds", async () => {
    const { issue } = newIssue('On a ship that sleeps');
    await createEphemeral('sleepy', issue.number, 'beta');
    issue.state = 'closed';
    const port = beta.ship.port;
    await beta.stopShipOnly();
    await until(async () => (await shipStatus(bridge.url, 'beta')) === 'offline', 'beta offline');
    const mark = fake.requests.length;
    expect(await sweep()).toEqual(counters({ skipped: 1 }));
    expect(forgeCalls(mark)).toEqual([]);
    expect(await stored()).toMatchObject([{ name: 'sleepy', ship: 'beta', cleanup: 'watching' }]);
    beta = await startTestShip(root, { name: 'beta', fleetDirectory: join(root, 'fleet-beta'), port });
    await until(async () => (await shipStatus(bridge.url, 'beta')) === 'online', 'beta back online');
    expect(await onShip(beta, 'sleepy')).toBe(200);
    expect(await sweep()).toEqual(counters({ checked: 1, destroyed: 1 }));
    expect(await onShip(beta, 'sleepy')).toBe(404);
    expect(await stored()).toEqual([]);
  }, 60_000);

  it("a forge failure (5xx, or a rate limit with a far reset) skips that repo's records; another repo's are checked", async () => {
    const failing = newIssue('Forge trouble');
    const fine = newIssue('Other forge', fake2);
    await createEphemeral('w-fail', failing.issue.number);
    await createEphemeral('g-ok', fine.issue.number, 'alpha', 'gadget');
    // Were the forge answering, `w-fail` would be destroyed.
    failing.issue.state = 'closed';

    // Three 502s: the request and the provider's two retries.
    for (let i = 0; i < 3; i++) fake.injected.push({ status: 502, message: 'Bad Gateway', pathIncludes: '/pulls' });
    let mark = fake.requests.length;
    let mark2 = fake2.requests.length;
    expect(await sweep()).toEqual(counters({ checked: 1, skipped: 1 }));
    expect(fake.injected).toEqual([]);
    expect(forgeCalls(mark)).toEqual([`pulls ${failing.branch}`, `pulls ${failing.branch}`, `pulls ${failing.branch}`]);
    expect(forgeCalls(mark2, fake2)).toEqual([`issue ${fine.issue.number}`, `pulls ${fine.branch}`]);
    expect(await onShip(alpha, 'w-fail')).toBe(200);
    expect((await bridgeStatus('w-fail')).ephemeral).toMatchObject({ cleanup: 'watching', pullRequest: null });

    // A primary rate limit whose reset is an hour away: not waited for, the repo skipped.
    fake.injected.push(fake.primaryRateLimit(3600, '/pulls'));
    mark = fake.requests.length;
    mark2 = fake2.requests.length;
    expect(await sweep()).toEqual(counters({ checked: 1, skipped: 1 }));
    expect(fake.injected).toEqual([]);
    expect(forgeCalls(mark)).toEqual([`pulls ${failing.branch}`]);
    expect(forgeCalls(mark2, fake2)).toEqual([`issue ${fine.issue.number}`, `pulls ${fine.branch}`]);
    expect(await onShip(alpha, 'w-fail')).toBe(200);

    // The pull requests read, the issue not (5xx thrice): the record counts as checked (its pull requests
    // were read) and as skipped (left for the next pass), as the spec defines the two counters.
    for (let i = 0; i < 3; i++)
      fake.injected.push({ status: 503, message: 'Service Unavailable', pathIncludes: '/issues/' });
    mark = fake.requests.length;
    expect(await sweep()).toEqual(counters({ checked: 2, skipped: 1 }));
    expect(fake.injected).toEqual([]);
    expect(forgeCalls(mark)).toEqual([
      `issue ${failing.issue.number}`,
      `issue ${failing.issue.number}`,
      `issue ${failing.issue.number}`,
      `pulls ${failing.branch}`,
    ]);
    expect(await onShip(alpha, 'w-fail')).toBe(200);

    // The forge answers again: the failing repo's record is destroyed, the other checked.
    expect(await sweep()).toEqual(counters({ checked: 2, destroyed: 1 }));
    expect(await onShip(alpha, 'w-fail')).toBe(404);
    expect(await onShip(alpha, 'g-ok', 'gadget')).toBe(200);
    expect((await stored()).map((r) => `${r.repoName}/${r.name}`)).toEqual(['gadget/g-ok']);
  });

  it('two concurrent POST /workspaces/sweep share one pass: identical bodies, one pass of forge calls', async () => {
    const one = newIssue('Concurrent one');
    const two = newIssue('Concurrent two');
    await createEphemeral('c1', one.issue.number);
    await createEphemeral('c2', two.issue.number);
    // The pass's first pull-request list meets a secondary rate limit (40 "s" of 5 ms: 200 ms), so the
    // second request surely arrives while the first one's pass runs.
    fake.injected.push(fake.secondaryRateLimit(40, '/pulls'));
    const mark = fake.requests.length;
    const first = call(bridge.url, 'POST', '/workspaces/sweep');
    await until(async () => fake.requests.length > mark, 'the first pass reached the forge');
    const second = call(bridge.url, 'POST', '/workspaces/sweep');
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body).toEqual(counters({ checked: 2 }));
    expect(b.body).toEqual(a.body);
    // One pass: each branch's pulls once (one of them again after the rate limit), each issue once.
    const calls = forgeCalls(mark);
    expect(calls.filter((c) => c.startsWith('issue '))).toEqual(
      [`issue ${one.issue.number}`, `issue ${two.issue.number}`].sort(),
    );
    const pulls = calls.filter((c) => c.startsWith('pulls '));
    expect(pulls).toHaveLength(3);
    expect(new Set(pulls)).toEqual(new Set([`pulls ${one.branch}`, `pulls ${two.branch}`]));
    expect(calls).toHaveLength(5);
  });

  it("at most 2 forge calls a record, one pull-request list per branch even when two workspaces share an issue's branch", async () => {
    const shared = newIssue('Shared branch');
    const other = newIssue('Separate branch');
    const s1 = await createEphemeral('s1', shared.issue.number);
    // The second create from the same issue: the forge refuses to create the branch again, the bridge finds
    // it among the issue's linked branches.
    const mark0 = fake.requests.length;
    const s2 = await createEphemeral('s2', shared.issue.number);
    expect(forgeCalls(mark0)).toEqual(
      [
        'POST /graphql CreateLinkedBranch',
        'POST /graphql IssueAndHead',
        'POST /graphql LinkedBranches',
        `issue ${shared.issue.number}`,
      ].sort(),
    );
    expect(s1.ephemeral.branch).toBe(shared.branch);
    expect(s2.ephemeral.branch).toBe(shared.branch);
    expect(s2.branch).toBe(shared.branch);
    expect(fake.linkedBranches.get(shared.issue.number)).toEqual([shared.branch]);
    await createEphemeral('t1', other.issue.number);

    let mark = fake.requests.length;
    expect(await sweep()).toEqual(counters({ checked: 3 }));
    let calls = forgeCalls(mark);
    expect(calls).toEqual(
      [
        `issue ${shared.issue.number}`,
        `issue ${other.issue.number}`,
        `pulls ${shared.branch}`,
        `pulls ${other.branch}`,
      ].sort(),
    );

    const pull = fake.addPull({ title: 'Shared work', head: shared.branch });
    mark = fake.requests.length;
    expect(await sweep()).toEqual(counters({ checked: 3 }));
    calls = forgeCalls(mark);
    expect(calls).toEqual([`issue ${other.issue.number}`, `pulls ${shared.branch}`, `pulls ${other.branch}`].sort());
    const shown = { number: pull.number, state: 'open', url: pullUrl(pull.number) };
    expect((await bridgeStatus('s1')).ephemeral.pullRequest).toEqual(shown);
    expect((await bridgeStatus('s2')).ephemeral.pullRequest).toEqual(shown);
    expect((await bridgeStatus('t1')).ephemeral.pullRequest).toBeNull();
  });
});

describe('records dropped and kept', () => {
  it('dropped when the bridge deletes the workspace', async () => {
    const { issue } = newIssue('Deleted by the bridge');
    await createEphemeral('del', issue.number);
    expect((await call(bridge.url, 'DELETE', path('widget', 'del'))).body).toEqual({ ok: true });
    expect(await stored()).toEqual([]);
    expect(await onShip(alpha, 'del')).toBe(404);
    expect(await sweep()).toEqual(counters());
  });

  it('dropped when the repo is removed: the workspace stays, ordinary', async () => {
    const { issue, branch } = newIssue('Repo removed');
    await createEphemeral('orphan', issue.number);
    expect((await call(bridge.url, 'DELETE', '/repos/widget')).body).toEqual({ ok: true });
    try {
      expect(await stored()).toEqual([]);
      expect(await bridgeStatus('orphan')).toMatchObject({ branch, ship: 'alpha', ephemeral: null });
      expect(await listed('orphan')).toMatchObject({ ephemeral: null });
      expect(await sweep()).toEqual(counters());
    } finally {
      expect(
        (await call(bridge.url, 'POST', '/repos', { name: 'widget', url: CLONE_URL, provider: 'github' })).status,
      ).toBe(201);
    }
    // Registered again, the repo brings no record back.
    expect((await bridgeStatus('orphan')).ephemeral).toBeNull();
  });

  it('dropped when the ship is removed; registered again, its workspace is ordinary', async () => {
    const { issue, branch } = newIssue('Ship removed');
    await createEphemeral('adrift', issue.number, 'beta');
    expect((await call(bridge.url, 'DELETE', '/ships/beta')).body).toEqual({ ok: true });
    expect(await stored()).toEqual([]);
    expect(await onShip(beta, 'adrift')).toBe(200);
    expect(await sweep()).toEqual(counters());
    expect((await call(bridge.url, 'POST', '/ships', { url: beta.url })).status).toBe(201);
    expect(await bridgeStatus('adrift')).toMatchObject({ branch, ship: 'beta', ephemeral: null });
    expect(await sweep()).toEqual(counters());
  });

  it('a failed create leaves no record (the branch it made stays on the forge)', async () => {
    // A directory the ship did not create, in the way of the clone: the ship refuses the create.
    const stray = workspaceDir('alpha', 'stray');
    mkdirSync(stray, { recursive: true });
    writeFileSync(join(stray, 'someone-elses.txt'), 'hands off\n');
    const { issue, branch } = newIssue('Refused by the ship');
    const reply = await call(bridge.url, 'POST', '/workspaces', {
      ship: 'alpha',
      repoName: 'widget',
      name: 'stray',
      issueNumber: issue.number,
      ephemeral: true,
    });
    expect(reply).toMatchObject({ status: 409, body: { error: 'workspace already exists: widget/stray' } });
    expect(await stored()).toEqual([]);
    expect(await bridgeStatus('stray')).toBeNull();
    expect(fake.resolveRef(branch)).toBeDefined();
    expect(fake.linkedBranches.get(issue.number)).toEqual([branch]);
    // Refused before the ship is asked: no record either.
    expect(
      (
        await call(bridge.url, 'POST', '/workspaces', {
          ship: 'alpha',
          repoName: 'widget',
          name: 'x',
          branch: 'main',
          ephemeral: true,
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(bridge.url, 'POST', '/workspaces', {
          ship: 'nowhere',
          repoName: 'widget',
          name: 'x',
          issueNumber: issue.number,
          ephemeral: true,
        })
      ).status,
    ).toBe(400);
    expect(await stored()).toEqual([]);
    expect(await sweep()).toEqual(counters());
    rmSync(stray, { recursive: true, force: true });
  });

  it('a bridge restarted on its data directory keeps the records; with a short interval it sweeps by itself', async () => {
    const { issue, branch } = newIssue('Survives a restart');
    await createEphemeral('kept', issue.number);
    const pull = fake.addPull({ title: 'Survives', head: branch });
    expect(await sweep()).toEqual(counters({ checked: 1 }));
    const before = await stored();
    expect(before).toEqual([
      {
        repoName: 'widget',
        name: 'kept',
        ship: 'alpha',
        issueNumber: issue.number,
        branch,
        cleanup: 'watching',
        blockedReason: null,
        blockedAt: null,
        pullRequest: { number: pull.number, state: 'open', url: pullUrl(pull.number) },
      },
    ]);
    await events.close();
    await bridge.close();
    bridge = await startBridge(bridgeOptions(200));
    events = await connectEvents(bridge.url);
    expect(await stored()).toEqual(before);
    await until(async () => (await shipStatus(bridge.url, 'alpha')) === 'online', 'alpha online again');
    const { repoName: _r, name: _n, ship: _s, ...view } = before[0]!;
    expect((await bridgeStatus('kept')).ephemeral).toEqual(view);
    // No POST: the timer's passes find the pull request closed and destroy the workspace.
    pull.state = 'closed';
    // The ship deletes before it answers: the record goes when the answer is in.
    await until(async () => (await stored()).length === 0, 'the timer swept the workspace', 10_000);
    expect(await onShip(alpha, 'kept')).toBe(404);
    expect(await bridgeStatus('kept')).toBeNull();
  }, 60_000);
});
