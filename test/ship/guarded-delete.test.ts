// DELETE with force=false refuses while the clone holds work no remote has: each finding alone, all of
// them together, and a check that cannot run. force absent (or true) always deletes.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/git-fixtures.js';
import { call, path } from '../helpers/ship.js';
import { shipFixture } from '../helpers/fixture.js';
import { sample } from '../helpers/metrics.js';

const fx = shipFixture();
let counter = 0;

async function workspace(branch = 'main'): Promise<{ name: string; dir: string }> {
  const name = `w${++counter}`;
  expect(
    (await call(fx.ship.url, 'POST', '/workspaces', { url: fx.remote.url, repoName: 'g', name, branch })).status,
  ).toBe(201);
  return { name, dir: join(fx.ship.ship.fleetDirectory, 'g', name) };
}
const guardedDelete = (name: string) => call(fx.ship.url, 'DELETE', path('g', name, '?force=false'));
const prefix = (name: string) => `workspace g/${name} holds work that is not on a remote: `;

describe('guarded delete (force=false)', () => {
  it('deletes a clean clone whose commits are all on the remote', async () => {
    const { name, dir } = await workspace('feature');
    git(dir, 'switch', '--quiet', 'main');
    expect(await guardedDelete(name)).toMatchObject({ status: 200, body: { ok: true } });
    expect(existsSync(dir)).toBe(false);
  });

  it('checks a clean one-branch clone with three git processes (a sweep re-checks every blocked record each pass)', async () => {
    const { name } = await workspace();
    const spawns = async () => {
      const text = (await call(fx.ship.url, 'GET', '/metrics')).text;
      return ['status', 'for-each-ref', 'rev-list', 'symbolic-ref', 'rev-parse', 'stash'].reduce(
        (sum, command) =>
          sum +
          (sample(text, 'svc_ship_git_spawns_total', { command, result: 'ok' }) ?? 0) +
          (sample(text, 'svc_ship_git_spawns_total', { command, result: 'failed' }) ?? 0),
        0,
      );
    };
    const before = await spawns();
    expect(await guardedDelete(name)).toMatchObject({ status: 200 });
    expect((await spawns()) - before).toBe(3);
  });

  it('refuses a modified tracked file', async () => {
    const { name, dir } = await workspace();
    writeFileSync(join(dir, 'README.md'), 'changed\n');
    const reply = await guardedDelete(name);
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ error: `${prefix(name)}uncommitted changes (1 path)` });
    expect(existsSync(dir)).toBe(true);
  });

  it('refuses an untracked file', async () => {
    const { name, dir } = await workspace();
    writeFileSync(join(dir, 'scratch.txt'), 'x\n');
    expect((await guardedDelete(name)).body).toEqual({ error: `${prefix(name)}uncommitted changes (1 path)` });
  });

  it('refuses commits on a local branch that no remote has, naming the branch', async () => {
    const { name, dir } = await workspace('local-only');
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    git(dir, 'add', 'a.txt');
    git(dir, 'commit', '--quiet', '-m', 'a');
    git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'b');
    git(dir, 'switch', '--quiet', 'main');
    expect((await guardedDelete(name)).body).toEqual({
      error: `${prefix(name)}2 commits on branch local-only not on any remote`,
    });
  });

  it('refuses a stash', async () => {
    const { name, dir } = await workspace();
    writeFileSync(join(dir, 'README.md'), 'stashed\n');
    git(dir, 'stash', 'push', '--quiet');
    expect((await guardedDelete(name)).body).toEqual({ error: `${prefix(name)}1 stash entry` });
  });

  it('refuses commits made on a detached HEAD', async () => {
    const { name, dir } = await workspace('v1.0');
    git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'detached work');
    expect((await guardedDelete(name)).body).toEqual({
      error: `${prefix(name)}1 commit on the detached HEAD not on any remote or branch`,
    });
  });

  it('names every finding together', async () => {
    const { name, dir } = await workspace('mixed');
    git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'unpushed');
    writeFileSync(join(dir, 'README.md'), 'stash me\n');
    git(dir, 'stash', 'push', '--quiet');
    writeFileSync(join(dir, 'README.md'), 'dirty\n');
    writeFileSync(join(dir, 'new.txt'), 'new\n');
    const reply = await guardedDelete(name);
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({
      error: `${prefix(name)}uncommitted changes (2 paths); 1 commit on branch mixed not on any remote; 1 stash entry`,
    });
  });

  it('counts a check that cannot run as work held', async () => {
    const { name, dir } = await workspace();
    rmSync(join(dir, '.git', 'index'));
    writeFileSync(join(dir, '.git', 'index'), 'corrupt');
    const reply = await guardedDelete(name);
    expect(reply.status).toBe(409);
    expect(reply.body.error).toMatch(
      new RegExp(`^${prefix(name).replace(/[/]/g, '\\/')}the working tree could not be checked \\(`),
    );
    expect(existsSync(dir)).toBe(true);
  });

  it('without force (or force=true) deletes whatever the clone holds', async () => {
    for (const query of ['', '?force=true']) {
      const { name, dir } = await workspace();
      git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'lost on purpose');
      writeFileSync(join(dir, 'dirty.txt'), 'x');
      expect((await call(fx.ship.url, 'DELETE', path('g', name, query))).status).toBe(200);
      expect(existsSync(dir)).toBe(false);
    }
  });

  it('answers 404 for a missing workspace and 422 for a mistyped force', async () => {
    expect((await guardedDelete('absent')).status).toBe(404);
    const { name } = await workspace();
    expect((await call(fx.ship.url, 'DELETE', path('g', name, '?force=perhaps'))).status).toBe(422);
  });
});
