// The workspace state table end to end: list, status, branch, activate/deactivate (real tmux), delete, the
// error rows, and the events each change emits, in order.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { connectEvents } from '../helpers/events.js';
import { call, path, rawCall } from '../helpers/ship.js';
import { shipFixture } from '../helpers/fixture.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { settles, until } from '../helpers/poll.js';

const fx = shipFixture();

const create = async (repoName: string, name: string, branch = 'main') => {
  const reply = await call(fx.ship.url, 'POST', '/workspaces', { url: fx.remote.url, repoName, name, branch });
  expect(reply.status).toBe(201);
  return reply.body;
};
const tmuxSessions = async () => fx.ship.ship.tmux.listSessions();

describe('workspace lifecycle', () => {
  it('create → activate → branch → deactivate → delete emits the events in order, each with ship and at', async () => {
    const events = await connectEvents(fx.ship.url);
    const [sync] = await events.waitFor(1);
    expect(sync.type).toBe('sync');
    expect(sync.ship).toBe('test-ship');
    expect(Array.isArray(sync.workspaces)).toBe(true);

    await create('flow', 'w');
    expect((await call(fx.ship.url, 'POST', path('flow', 'w', '/activate'))).body).toEqual({ ok: true });
    expect((await call(fx.ship.url, 'POST', path('flow', 'w', '/branch'), { branch: 'feature' })).body).toEqual({
      ok: true,
      branchCreated: false,
    });
    expect((await call(fx.ship.url, 'POST', path('flow', 'w', '/deactivate'))).body).toEqual({ ok: true });
    expect((await call(fx.ship.url, 'DELETE', path('flow', 'w'))).body).toEqual({ ok: true });

    const received = (await events.waitFor(6)).slice(1);
    expect(received.map((e) => e.type)).toEqual([
      'workspace.created',
      'workspace.activated',
      'workspace.branch_changed',
      'workspace.deactivated',
      'workspace.removed',
    ]);
    for (const event of received) {
      expect(event.ship).toBe('test-ship');
      expect(new Date(event.at).toISOString()).toBe(event.at);
      expect(event.workspace.repoName).toBe('flow');
      expect(event.workspace.name).toBe('w');
    }
    expect(received.map((e) => [e.workspace.branch, e.workspace.active])).toEqual([
      ['main', false],
      ['main', true],
      ['feature', true],
      ['feature', false],
      ['feature', false],
    ]);
    await events.close();
  });

  it('lists workspaces with the active filter, omitting directories that are not git working trees', async () => {
    await create('list', 'a');
    await create('list', 'b');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(fx.ship.ship.fleetDirectory, 'list', 'not-git'));
    writeFileSync(join(fx.ship.ship.fleetDirectory, 'list', 'file'), 'x');
    await call(fx.ship.url, 'POST', path('list', 'b', '/activate'));

    const all = (await call(fx.ship.url, 'GET', '/workspaces')).body.filter((w: any) => w.repoName === 'list');
    expect(all).toEqual([
      { repoName: 'list', name: 'a', branch: 'main', active: false, agent: null },
      { repoName: 'list', name: 'b', branch: 'main', active: true, agent: null },
    ]);
    const active = (await call(fx.ship.url, 'GET', '/workspaces?active=true')).body.filter(
      (w: any) => w.repoName === 'list',
    );
    expect(active.map((w: any) => w.name)).toEqual(['b']);
    const inactive = (await call(fx.ship.url, 'GET', '/workspaces?active=false')).body.filter(
      (w: any) => w.repoName === 'list',
    );
    expect(inactive.map((w: any) => w.name)).toEqual(['a']);
    const unfiltered = (await call(fx.ship.url, 'GET', '/workspaces?active=yes')).body.filter(
      (w: any) => w.repoName === 'list',
    );
    expect(unfiltered.map((w: any) => w.name)).toEqual(['a', 'b']);
    expect((await call(fx.ship.url, 'GET', path('list', 'not-git'))).status).toBe(404);
  });

  it('status: inactive has four fields; active carries diff, agent, reserved nulls and the ship name', async () => {
    await create('status', 's', 'feature');
    expect((await call(fx.ship.url, 'GET', path('status', 's'))).body).toEqual({
      state: 'inactive',
      repoName: 'status',
      name: 's',
      branch: 'feature',
    });
    await call(fx.ship.url, 'POST', path('status', 's', '/activate'));
    const { writeFileSync } = await import('node:fs');
    const dir = join(fx.ship.ship.fleetDirectory, 'status', 's');
    writeFileSync(join(dir, 'feature.txt'), 'changed\nadded line\n');
    writeFileSync(join(dir, 'logo.bin'), Buffer.from([0, 9, 9, 0]));
    const { git } = await import('../helpers/git-fixtures.js');
    git(dir, 'commit', '--quiet', '-am', 'local one');
    writeFileSync(join(dir, 'feature.txt'), 'changed\nadded line\nthird\n');
    writeFileSync(join(dir, 'untracked.txt'), 'not counted\n');
    writeFileSync(join(dir, 'logo.bin'), Buffer.from([0, 1, 1, 1, 0]));
    const status = (await call(fx.ship.url, 'GET', path('status', 's'))).body;
    expect(status).toEqual({
      state: 'active',
      repoName: 'status',
      name: 's',
      branch: 'feature',
      diff: { added: 1, removed: 0, commits: 1 },
      agent: null,
      issue: null,
      mergeRequest: null,
      ship: 'test-ship',
    });
    // Read live (diff-numbers-readings.ts): an edit shows in the very next status.
    writeFileSync(join(dir, 'feature.txt'), 'changed\nadded line\nthird\nfourth\n');
    expect((await call(fx.ship.url, 'GET', path('status', 's'))).body.diff).toEqual({
      added: 2,
      removed: 0,
      commits: 1,
    });
  });

  it('counts commits ahead as 0 for a branch with no upstream', async () => {
    await create('noup', 'n', 'brand-new-local');
    await call(fx.ship.url, 'POST', path('noup', 'n', '/activate'));
    const { git } = await import('../helpers/git-fixtures.js');
    git(join(fx.ship.ship.fleetDirectory, 'noup', 'n'), 'commit', '--quiet', '--allow-empty', '-m', 'local only');
    expect((await call(fx.ship.url, 'GET', path('noup', 'n'))).body.diff).toEqual({ added: 0, removed: 0, commits: 0 });
  });

  it('activation runs one tmux session in the workspace directory, named by hash, holding only its own token', async () => {
    await create('sess', 'a.b:c');
    await create('sess', 'a_b_c');
    await call(fx.ship.url, 'POST', path('sess', 'a.b:c', '/activate'));
    await call(fx.ship.url, 'POST', path('sess', 'a_b_c', '/activate'));
    const one = sessionName('sess', 'a.b:c');
    const two = sessionName('sess', 'a_b_c');
    expect(one).not.toBe(two);
    const sessions = await tmuxSessions();
    expect(sessions.has(one) && sessions.has(two)).toBe(true);

    const cwd = await fx.ship.ship.tmux.run(['display-message', '-p', '-t', `=${one}:`, '#{pane_current_path}']);
    expect(cwd.stdout.trim()).toBe(join(fx.ship.ship.fleetDirectory, 'sess', 'a.b:c'));
    const tokenOne = await fx.ship.ship.tmux.sessionVariables(one).then((v) => v.SVC_MCP_TOKEN ?? null);
    const tokenTwo = await fx.ship.ship.tmux.sessionVariables(two).then((v) => v.SVC_MCP_TOKEN ?? null);
    expect(tokenOne).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenTwo).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenOne).not.toBe(tokenTwo);
    expect(await fx.ship.ship.tmux.sessionVariables(one).then((v) => v.SVC_SHIP_URL ?? null)).toBe(fx.ship.url);
    expect(await fx.ship.ship.tmux.sessionVariables(one).then((v) => v.SVC_WORKSPACE ?? null)).toBe('sess/a.b:c');
    // The server's global environment holds no SVC_* secret.
    const global = await fx.ship.ship.tmux.run(['show-environment', '-g']);
    expect(global.stdout).not.toMatch(/^SVC_/m);
  });

  it('a workspace named #(...) never runs the command inside tmux', async () => {
    const marker = `svc-pwn-${process.pid}-${Date.now()}`;
    const repo = `#(cd; touch ${marker})`;
    const name = `#(cd; touch ${marker}-2)`;
    await create(repo, name);
    const reply = await call(fx.ship.url, 'POST', path(repo, name, '/activate'));
    expect(reply.status).toBe(200);
    // A window, not a condition: a command smuggled into tmux would have run by now; nothing may appear.
    await new Promise((r) => setTimeout(r, 300));
    for (const dir of [homedir(), '/', process.cwd(), join(fx.ship.ship.fleetDirectory, repo, name)]) {
      expect(existsSync(join(dir, marker)), dir).toBe(false);
      expect(existsSync(join(dir, `${marker}-2`)), dir).toBe(false);
    }
    expect((await call(fx.ship.url, 'GET', path(repo, name))).body.state).toBe('active');
  });

  it('answers the state table errors with the exact messages', async () => {
    await create('errs', 'e');
    expect(await call(fx.ship.url, 'POST', path('errs', 'e', '/deactivate'))).toMatchObject({
      status: 400,
      body: { error: 'workspace not active: errs/e' },
    });
    await call(fx.ship.url, 'POST', path('errs', 'e', '/activate'));
    expect(await call(fx.ship.url, 'POST', path('errs', 'e', '/activate'))).toMatchObject({
      status: 400,
      body: { error: 'workspace already active: errs/e' },
    });
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/diff'],
      ['POST', '/activate'],
      ['POST', '/deactivate'],
      ['DELETE', ''],
    ] as const) {
      expect(await call(fx.ship.url, method, path('errs', 'missing', suffix))).toMatchObject({
        status: 404,
        body: { error: 'workspace not found: errs/missing' },
      });
    }
    expect(await call(fx.ship.url, 'POST', path('errs', 'missing', '/branch'), { branch: 'x' })).toMatchObject({
      status: 404,
      body: { error: 'workspace not found: errs/missing' },
    });
    expect(await call(fx.ship.url, 'POST', path('errs', 'e', '/branch'), { branch: ' ' })).toMatchObject({
      status: 400,
      body: { error: 'branch must not be empty' },
    });
    expect((await call(fx.ship.url, 'POST', path('errs', 'e', '/branch'), {})).status).toBe(422);
  });

  it('answers 400 for invalid identifiers in the path, including percent-encoded separators and dot names', async () => {
    const cases: Array<[string, string]> = [
      ['/workspaces/a%2Fb/n', 'invalid repo identifier: must not contain path separators'],
      ['/workspaces/r/a%2Fb', 'invalid workspace identifier: must not contain path separators'],
      ['/workspaces/%2E%2E/n', 'invalid repo identifier: must not be . or ..'],
      ['/workspaces/r/%2E', 'invalid workspace identifier: must not be . or ..'],
      ['/workspaces/r/a%5Cb', 'invalid workspace identifier: must not contain path separators'],
      ['/workspaces/r/a%00b', 'invalid workspace identifier: must not contain Unicode control characters'],
      [`/workspaces/${'x'.repeat(129)}/n`, 'invalid repo identifier: must be at most 128 UTF-8 bytes'],
      [`/workspaces/r/${'%C3%A9'.repeat(65)}`, 'invalid workspace identifier: must be at most 128 UTF-8 bytes'],
      ['/workspaces/%ED%A0%80/n', 'invalid repo identifier: must be well-formed Unicode'],
      ['/workspaces/r/%ED%A0%80', 'invalid workspace identifier: must be well-formed Unicode'],
    ];
    for (const [url, message] of cases) {
      const reply = await rawCall(fx.ship.url, 'GET', url);
      expect([url, reply.status, reply.body]).toEqual([url, 400, { error: message }]);
    }
    // 128 bytes route normally (never 414): a missing workspace is a 404.
    for (const name of ['x'.repeat(128), '%C3%A9'.repeat(64), '%E2%82%AC'.repeat(42)]) {
      expect((await call(fx.ship.url, 'GET', `/workspaces/r/${name}`)).status).toBe(404);
    }
  });

  it('branch switch: existing local, remote-only (tracked), and new branches', async () => {
    await create('br', 'b');
    const dir = join(fx.ship.ship.fleetDirectory, 'br', 'b');
    const { git } = await import('../helpers/git-fixtures.js');
    expect((await call(fx.ship.url, 'POST', path('br', 'b', '/branch'), { branch: 'other' })).body).toEqual({
      ok: true,
      branchCreated: false,
    });
    expect(git(dir, 'rev-parse', '--abbrev-ref', '@{upstream}').trim()).toBe('origin/other');
    expect((await call(fx.ship.url, 'POST', path('br', 'b', '/branch'), { branch: 'mine' })).body).toEqual({
      ok: true,
      branchCreated: true,
    });
    expect(git(dir, 'branch', '--show-current').trim()).toBe('mine');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(git(dir, 'rev-parse', 'other').trim());
    expect((await call(fx.ship.url, 'POST', path('br', 'b', '/branch'), { branch: 'main' })).body).toEqual({
      ok: true,
      branchCreated: false,
    });
    expect((await call(fx.ship.url, 'GET', path('br', 'b'))).body.branch).toBe('main');
    const refused = await call(fx.ship.url, 'POST', path('br', 'b', '/branch'), { branch: '--orphan=x' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^could not create branch "--orphan=x": /);
  });

  it('delete kills the session, removes the directory, clears agent status and reports the branch', async () => {
    await create('del', 'd', 'feature');
    await call(fx.ship.url, 'POST', path('del', 'd', '/activate'));
    await call(fx.ship.url, 'POST', path('del', 'd', '/agent/init'), { model: 'm', provider: 'p', harness: 'h' });
    const events = await connectEvents(fx.ship.url);
    await events.waitFor(1);
    expect((await call(fx.ship.url, 'DELETE', path('del', 'd'))).status).toBe(200);
    const [, removed] = await events.waitFor(2);
    expect(removed).toMatchObject({
      type: 'workspace.removed',
      workspace: { repoName: 'del', name: 'd', branch: 'feature', active: false, agent: null },
    });
    expect(existsSync(join(fx.ship.ship.fleetDirectory, 'del', 'd'))).toBe(false);
    expect((await tmuxSessions()).has(sessionName('del', 'd'))).toBe(false);
    await create('del', 'd', 'main');
    await call(fx.ship.url, 'POST', path('del', 'd', '/activate'));
    expect((await call(fx.ship.url, 'GET', path('del', 'd', '/agent/status'))).body).toBeNull();
    await events.close();
  });

  it('deactivate ends every process the session started, background jobs and shell loops included', async () => {
    await create('reap', 'r');
    await call(fx.ship.url, 'POST', path('reap', 'r', '/activate'));
    const session = sessionName('reap', 'r');
    const marker = `reap-${process.pid}-${Date.now()}`;
    await fx.ship.ship.tmux.run([
      'send-keys',
      '-t',
      `=${session}:`,
      `(exec -a ${marker}-bg sleep 600) & while :; do sleep 0.2; done`,
      'Enter',
    ]);
    const [leader] = await fx.ship.ship.tmux.panePids(session);
    const { processesInSessions } = await import('../../ship/sessions/process-reaper.js');
    const inSession = () => processesInSessions(new Set([leader!])).length;
    await settles(until(() => inSession() >= 3, 'three processes in the session', 2_500));
    expect(processesInSessions(new Set([leader!])).length).toBeGreaterThanOrEqual(3);
    await call(fx.ship.url, 'POST', path('reap', 'r', '/deactivate'));
    await settles(until(() => inSession() === 0, 'the session reaped', 3_000));
    expect(processesInSessions(new Set([leader!]))).toEqual([]);
  });

  it('a shell that exits on its own makes the workspace inactive, clears its status and emits deactivated', async () => {
    await create('exit', 'x');
    await call(fx.ship.url, 'POST', path('exit', 'x', '/activate'));
    await call(fx.ship.url, 'POST', path('exit', 'x', '/agent/init'), { model: 'm', provider: 'p', harness: 'h' });
    const events = await connectEvents(fx.ship.url);
    await events.waitFor(1);
    await fx.ship.ship.tmux.run(['send-keys', '-t', `=${sessionName('exit', 'x')}:`, 'exit', 'Enter']);
    const [, deactivated] = await events.waitFor(2);
    expect(deactivated).toMatchObject({
      type: 'workspace.deactivated',
      reason: 'session-ended',
      workspace: { repoName: 'exit', name: 'x', active: false, agent: null },
    });
    expect((await call(fx.ship.url, 'GET', path('exit', 'x'))).body.state).toBe('inactive');
    expect((await call(fx.ship.url, 'POST', path('exit', 'x', '/activate'))).status).toBe(200);
    await events.close();
  });
});
