// The forge verbs of `svc client` (issue #17) through the real binary: `repos issues|pulls`, `create --issue
// [--ephemeral]`, `ls --wide`'s ISSUE/PR/CLEANUP columns and `sweep`, against a real authenticating bridge
// whose GitHub provider talks to the fake forge, and a real `svc ship` process. The fake keeps its branches
// in a real bare repository, so the branch it links to an issue is one the ship really clones: the repo is
// registered under a GitHub URL, and the ship's git rewrites that URL to the bare repository through a
// `url.<bare>.insteadOf` in the ship's own ~/.gitconfig (its git children keep HOME but drop every GIT_CONFIG_*
// variable, so the environment form of that setting does not reach them). Local refusals are checked to
// reach neither the bridge's forge nor the ship.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubProvider } from '../../bridge/providers/github.js';
import { ADMIN, startAuthBridge, type AuthHarness } from '../auth/harness.js';
import type { FakeGitHub } from '../fakes/github.js';
import { killFleetTmux, runCli, startShipCli, type RunningCli } from '../helpers/cli.js';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { freePort } from '../helpers/ports.js';
import { makeTempRoot, removeRoot } from '../helpers/ship.js';
import { cloneHome, startBackedForge } from '../helpers/github-clone.js';

const TOKEN = 'ghp_fake-forge-token-for-the-cli-test';
const FORGE_URL = 'https://github.example/acme/widget.git';
const EPHEMERAL_LINE =
  'ephemeral: deleted automatically once its pull request is merged or closed (or the issue is closed without one)\n';

let root: string;
let fleet: string;
let remote: RemoteFixture;
let fake: FakeGitHub;
let h: AuthHarness;
let ship: RunningCli;
let shipUrl: string;
let env: Record<string, string>;

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root, 'widget');
  fake = await startBackedForge(remote.bare, TOKEN);
  h = await startAuthBridge(root, {
    clock: undefined,
    sweepIntervalMs: 0,
    forgeProviders: { github: new GitHubProvider({ token: TOKEN, baseUrl: fake.url, retryAfterBaseValueMs: 1 }) },
  });
  const admin = await h.login(ADMIN.username, ADMIN.password);
  env = { SVC_TOKEN: admin, XDG_CONFIG_HOME: join(root, 'config'), NO_COLOR: '1' };

  const home = cloneHome(root, remote.bare, FORGE_URL, 'ship-home');
  fleet = join(root, 'fleet');
  const port = await freePort();
  ship = await startShipCli(fleet, port, 'one', { HOME: home });
  shipUrl = `http://localhost:${port}`;
  expect((await h.as(admin, 'POST', '/ships', { url: shipUrl })).status).toBe(201);
  expect((await h.as(admin, 'POST', '/repos', { name: 'widget', url: FORGE_URL, provider: 'github' })).status).toBe(
    201,
  );
  expect((await h.as(admin, 'POST', '/repos', { name: 'plain', url: remote.url })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await h?.bridge.close();
  await ship?.stop();
  if (fleet) await killFleetTmux(fleet);
  await fake?.stop();
  if (root) await removeRoot(root);
});

const svc = (...args: string[]) => runCli(['client', '--bridge-url', h.bridge.url, ...args], env);
const svcJson = async (...args: string[]) => {
  const result = await svc('--json', ...args);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout);
};
const lines = (text: string) =>
  text
    .split('\n')
    .slice(0, -1)
    .map((line) => line.split(/ {2,}/));
const row = async (name: string) => lines((await svc('ls', '--wide')).stdout).find((cells) => cells[1] === name);

describe('svc client repos issues|pulls', () => {
  beforeAll(() => {
    fake.addIssue({ title: 'Fix the login page', user: 'alice' }); // #1
    fake.addIssue({ title: 'Old crash on start', state: 'closed', user: 'carol' }); // #2
    fake.addPull({ title: 'Add a widget', head: 'feature', user: 'bob' }); // #3
    fake.addPull({ title: 'Rework the parser', head: 'other', user: 'dave', draft: true }); // #4
    fake.addIssue({
      title: 'Document every flag of the command line interface in one long reference page',
      user: 'erin',
    }); // #5
  });

  it('lists open issues by default (pull requests left out), titles cut at 60 characters', async () => {
    expect(await svc('repos', 'issues', 'widget')).toEqual({
      code: 0,
      stderr: '',
      stdout:
        'NUMBER  TITLE                                                         STATE  AUTHOR\n' +
        '#5      Document every flag of the command line interface in one lo…  open   erin\n' +
        '#1      Fix the login page                                            open   alice\n',
    });
    expect((await svc('repos', 'issues', 'widget', '--state', 'closed')).stdout).toBe(
      'NUMBER  TITLE               STATE   AUTHOR\n#2      Old crash on start  closed  carol\n',
    );
    expect(lines((await svc('repos', 'issues', 'widget', '--state', 'all')).stdout).map((cells) => cells[0])).toEqual([
      'NUMBER',
      '#5',
      '#2',
      '#1',
    ]);
    const listed = await svcJson('repos', 'issues', 'widget');
    expect(listed.map((issue: { number: number }) => issue.number)).toEqual([5, 1]);
    expect(listed[1]).toEqual({
      number: 1,
      title: 'Fix the login page',
      state: 'open',
      author: 'alice',
      url: 'https://github.example/acme/widget/issues/1',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-02T00:00:00Z',
    });
  });

  it('lists pull requests with their head branch, drafts marked', async () => {
    expect(await svc('repos', 'pulls', 'widget')).toEqual({
      code: 0,
      stderr: '',
      stdout:
        'NUMBER  TITLE              STATE         AUTHOR  HEAD\n' +
        '#4      Rework the parser  open (draft)  dave    other\n' +
        '#3      Add a widget       open          bob     feature\n',
    });
    expect(await svc('repos', 'pulls', 'widget', '--state', 'closed')).toEqual({
      code: 0,
      stderr: '',
      stdout: 'no closed pull requests\n',
    });
    expect(
      (await svcJson('repos', 'pulls', 'widget', '--state', 'all')).map(
        (pull: { headBranch: string }) => pull.headBranch,
      ),
    ).toEqual(['other', 'feature']);
  });

  it("refuses a bad --state and a bad repo name itself, and shows the bridge's refusals", async () => {
    const before = fake.requests.length;
    const state = await svc('repos', 'issues', 'widget', '--state', 'merged');
    expect(state.code).toBe(2);
    expect(state.stderr).toContain(
      "svc: option '--state <state>' argument 'merged' is invalid. Allowed choices are open, closed, all.",
    );
    expect(await svc('repos', 'pulls', '..')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: invalid repo identifier: must not be . or ..\n',
    });
    expect(fake.requests.length).toBe(before);
    expect(await svc('repos', 'issues', 'nope')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: request failed (404): repo not found: nope\n',
    });
    expect(await svc('repos', 'pulls', 'plain')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: request failed (501): provider "custom" is not supported yet\n',
    });
    fake.injected.push({ status: 403, message: 'Resource not accessible by integration', pathIncludes: '/issues' });
    expect(await svc('repos', 'issues', 'widget')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: request failed (403): GitHub request failed (403): Resource not accessible by integration\n',
    });
  });
});

describe('svc client create --issue', () => {
  it('refuses bad combinations and numbers before any request', async () => {
    const before = fake.requests.length;
    const refused = async (args: string[], message: string) =>
      expect(await svc('create', 'widget', 'x', ...args)).toEqual({ code: 1, stdout: '', stderr: `svc: ${message}\n` });
    await refused(['--ship', 'one', '--issue', '1', '-b', 'main'], 'give exactly one of -b <branch> or --issue <n>');
    await refused(['--ship', 'one'], 'give exactly one of -b <branch> or --issue <n>');
    await refused(
      ['--ship', 'one', '-b', 'main', '--ephemeral'],
      '--ephemeral needs --issue <n>: only a workspace made from an issue is cleaned up automatically',
    );
    await refused(['--ship', 'one', '--ephemeral'], 'give exactly one of -b <branch> or --issue <n>');
    for (const value of ['0', '-1', '1.5', 'abc', '#1', '1e3'])
      await refused(
        ['--ship', 'one', '--issue', value],
        `--issue takes an issue number (a positive integer), not "${value}"`,
      );
    await refused(['--issue', '1'], '--ship <ship> is required when creating through the bridge');
    expect(
      await runCli(['client', '--url', shipUrl, 'create', 'widget', 'x', '--issue', '1', '--ephemeral'], env),
    ).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: --ship, --issue and --ephemeral go through the bridge, not --url\n',
    });
    expect(fake.requests.length).toBe(before);
    expect(await svc('ls')).toMatchObject({ code: 0, stdout: 'no workspaces\n' });
  });

  it("shows the bridge's and the forge's refusals", async () => {
    expect(await svc('create', 'widget', 'x', '--ship', 'one', '--issue', '99')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: request failed (404): GitHub request failed (404): Not Found\n',
    });
    expect(await svc('create', 'plain', 'x', '--ship', 'one', '--issue', '1')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'svc: request failed (400): creating a workspace from an issue needs a repo with provider "github"; repo "plain" has provider "custom"\n',
    });
    expect(await svc('create', 'widget', 'x', '--ship', 'nowhere', '--issue', '1')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: request failed (400): unknown ship: nowhere\n',
    });
  });

  it('creates on the branch the bridge linked to the issue; ls --wide shows no ephemeral record for it', async () => {
    expect(await svc('create', 'widget', 'login', '--ship', 'one', '--issue', '1')).toEqual({
      code: 0,
      stderr: '',
      stdout: 'created widget/login on branch 1-fix-the-login-page for issue #1 (ship one)\n',
    });
    expect(fake.linkedBranches.get(1)).toEqual(['1-fix-the-login-page']);
    expect(await svc('ls')).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(
        /^REPO\s+NAME\s+SHIP\s+BRANCH\s+STATE\s+AGENT\nwidget\s+login\s+one\s+1-fix-the-login-page\s+inactive\s+-\n$/,
      ),
    });
    const wide = lines((await svc('ls', '--wide')).stdout);
    expect(wide[0]).toEqual([
      'REPO',
      'NAME',
      'SHIP',
      'BRANCH',
      'STATE',
      'AGENT',
      'ISSUE',
      'PR',
      'CLEANUP',
      'DESCRIPTION',
      'MODEL',
    ]);
    expect(wide[1]).toEqual([
      'widget',
      'login',
      'one',
      '1-fix-the-login-page',
      'inactive',
      '-',
      '-',
      '-',
      '-',
      '-',
      '-',
    ]);
    // Straight to the ship there is no ephemeral record to show: no such columns.
    const direct = await runCli(['client', '--url', shipUrl, 'ls', '--wide'], env);
    expect(lines(direct.stdout)[0]).toEqual(['REPO', 'NAME', 'BRANCH', 'STATE', 'AGENT', 'DESCRIPTION', 'MODEL']);
    expect(await svc('rm', 'widget', 'login')).toMatchObject({ code: 0, stdout: 'deleted widget/login\n' });
  });
});

describe('ephemeral workspaces: create --ephemeral, ls --wide and sweep', () => {
  // The five counters as one table row (single digits here, so each column is its header's width).
  const counters = (checked: number, destroyed: number, blocked: number, skipped: number, forgotten: number) =>
    `CHECKED  DESTROYED  BLOCKED  SKIPPED  FORGOTTEN\n${checked}        ${destroyed}          ${blocked}        ${skipped}        ${forgotten}\n`;

  it('says the workspace is ephemeral, then sweeps it once the issue closes without a pull request', async () => {
    const issue = fake.addIssue({ title: 'Try the sweeper' });
    const created = await svc(
      'create',
      'widget',
      'eph1',
      '--ship',
      'one',
      '--issue',
      String(issue.number),
      '--ephemeral',
    );
    expect(created).toEqual({
      code: 0,
      stderr: '',
      stdout: `created widget/eph1 on branch ${issue.number}-try-the-sweeper for issue #${issue.number} (ship one)\n${EPHEMERAL_LINE}`,
    });
    expect(await row('eph1')).toEqual([
      'widget',
      'eph1',
      'one',
      `${issue.number}-try-the-sweeper`,
      'inactive',
      '-',
      `#${issue.number}`,
      '-',
      'watching',
      '-',
      '-',
    ]);

    expect(await svc('sweep')).toEqual({ code: 0, stderr: '', stdout: counters(1, 0, 0, 0, 0) });
    issue.state = 'closed';
    expect(await svc('sweep')).toEqual({ code: 0, stderr: '', stdout: counters(1, 1, 0, 0, 0) });
    expect(await svc('ls')).toMatchObject({ code: 0, stdout: 'no workspaces\n' });
  }, 60_000);

  it('shows the pull request and a blocked cleanup with its reason, until the work is gone', async () => {
    const issue = fake.addIssue({ title: 'Keep my work safe' });
    const branch = `${issue.number}-keep-my-work-safe`;
    expect(
      await svcJson('create', 'widget', 'eph2', '--ship', 'one', '--issue', String(issue.number), '--ephemeral'),
    ).toMatchObject({
      repoName: 'widget',
      name: 'eph2',
      branch,
      ship: 'one',
      ephemeral: {
        issueNumber: issue.number,
        branch,
        cleanup: 'watching',
        blockedReason: null,
        blockedAt: null,
        pullRequest: null,
      },
    });
    const pull = fake.addPull({ title: 'Keep my work safe', head: branch });
    expect(await svcJson('sweep')).toEqual({ checked: 1, destroyed: 0, blocked: 0, skipped: 0, forgotten: 0 });
    expect(await row('eph2')).toEqual([
      'widget',
      'eph2',
      'one',
      branch,
      'inactive',
      '-',
      `#${issue.number}`,
      `#${pull.number} open`,
      'watching',
      '-',
      '-',
    ]);

    // Merged, but the clone holds a file no remote has: the ship refuses the guarded delete.
    pull.state = 'closed';
    pull.merged = true;
    writeFileSync(join(fleet, 'widget', 'eph2', 'NOTES.md'), 'not pushed anywhere\n');
    expect(await svc('sweep')).toEqual({ code: 0, stderr: '', stdout: counters(1, 0, 1, 0, 0) });
    expect(await row('eph2')).toEqual([
      'widget',
      'eph2',
      'one',
      branch,
      'inactive',
      '-',
      `#${issue.number}`,
      `#${pull.number} closed`,
      'blocked: uncommitted changes (1 path)',
      '-',
      '-',
    ]);
    expect((await svcJson('ls'))[0].ephemeral).toMatchObject({
      cleanup: 'blocked',
      blockedReason: 'workspace widget/eph2 holds work that is not on a remote: uncommitted changes (1 path)',
    });

    rmSync(join(fleet, 'widget', 'eph2', 'NOTES.md'));
    expect(await svcJson('sweep')).toEqual({ checked: 1, destroyed: 1, blocked: 0, skipped: 0, forgotten: 0 });
    expect(await svc('ls', '--wide')).toMatchObject({ code: 0, stdout: 'no workspaces\n' });
  }, 60_000);

  it('sweeps through the bridge only', async () => {
    expect(await runCli(['client', '--url', shipUrl, 'sweep'], env)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: this command goes through the bridge; drop --url\n',
    });
  });
});

describe('svc completion', () => {
  it('completes the new verbs and flags', async () => {
    const script = (await runCli(['completion', 'bash'])).stdout;
    const complete = (...words: string[]) =>
      execFileSync('bash', [
        '-c',
        `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _svc_complete; echo "\${COMPREPLY[@]}"`,
      ])
        .toString()
        .trim();
    expect(complete('svc', 'client', 'sw')).toBe('sweep');
    expect(complete('svc', 'client', 'repos', '')).toBe('ls add rm branches issues pulls --help');
    expect(complete('svc', 'client', 'repos', 'pulls', '--')).toBe('--state --help');
    expect(complete('svc', 'client', 'create', '--e')).toBe('--ephemeral');
  });
});
