// Issue #15 item 1: `svc client rm` through the bridge no longer deletes a workspace holding work that is on
// no remote without a word. Against `npx svc bridge` and `npx svc ship` (set up over HTTP only): without a
// terminal it exits 1 naming what it found and --force; at a terminal (a pty) it shows the findings and asks
// `delete anyway? [y/N]`; --force and a clean clone delete at once. The bridge's `?force=false` sits behind
// the same authorization as the plain DELETE, and with `force` absent the bridge still deletes unconditionally.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote } from '../helpers/git-fixtures.js';
import { ptyCli, runCli } from '../helpers/cli.js';
import { startNpxFleet, type NpxFleet } from '../helpers/npx-fleet.js';
import { screenText } from '../helpers/screen.js';
import { call, makeTempRoot, path, removeRoot } from '../helpers/ship.js';

let root: string;
let fleet: NpxFleet;

beforeAll(async () => {
  root = await makeTempRoot();
  fleet = await startNpxFleet(root, 'rmship', { app: makeRemote(root).url });
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
  await removeRoot(root);
});

const svc = (...args: string[]) => runCli(['client', '--bridge-url', fleet.bridgeUrl, ...args], fleet.env);
const asAdmin = (method: string, target: string, body?: unknown) =>
  call(fleet.bridgeUrl, method, target, body, { authorization: `Bearer ${fleet.token}` });

/** A workspace on the ship with an untracked file in it: work that no remote has. */
async function dirtyWorkspace(name: string): Promise<string> {
  expect((await asAdmin('POST', '/workspaces', { ship: 'rmship', repoName: 'app', name, branch: 'main' })).status).toBe(
    201,
  );
  const directory = join(fleet.fleetDirectory, 'app', name);
  writeFileSync(join(directory, 'notes.txt'), 'not committed anywhere\n');
  return directory;
}

const FOUND = (name: string) =>
  `workspace app/${name} holds work that is not on a remote: uncommitted changes (1 path)`;

describe('svc client rm through the bridge', () => {
  it('without a terminal refuses a workspace holding uncommitted work, names what it found and --force, and keeps it', async () => {
    const directory = await dirtyWorkspace('scripted');
    expect(await svc('rm', 'app', 'scripted')).toEqual({
      code: 1,
      stdout: '',
      stderr: `svc: ${FOUND('scripted')}\nsvc: app/scripted was not deleted; pass --force to delete it anyway\n`,
    });
    expect(existsSync(join(directory, 'notes.txt'))).toBe(true);
    expect((await asAdmin('GET', path('app', 'scripted'))).status).toBe(200);

    expect(await svc('rm', 'app', 'scripted', '--force')).toEqual({
      code: 0,
      stdout: 'deleted app/scripted\n',
      stderr: '',
    });
    expect(existsSync(directory)).toBe(false);
  }, 60_000);

  it('at a terminal shows what it found and asks; N keeps the workspace, y deletes it', async () => {
    const directory = await dirtyWorkspace('asked');
    const declined = ptyCli(['client', '--bridge-url', fleet.bridgeUrl, 'rm', 'app', 'asked'], fleet.env);
    await declined.answer('delete anyway? [y/N] ', 'n');
    expect(await declined.exited).toBe(1);
    expect(await screenText(declined.output())).toBe(
      `${FOUND('asked')}\ndelete anyway? [y/N] n\nsvc: app/asked was not deleted`,
    );
    expect(existsSync(directory)).toBe(true);

    const confirmed = ptyCli(['client', '--bridge-url', fleet.bridgeUrl, 'rm', 'app', 'asked'], fleet.env);
    await confirmed.answer('delete anyway? [y/N] ', 'y');
    expect(await confirmed.exited).toBe(0);
    expect(await screenText(confirmed.output())).toBe(`${FOUND('asked')}\ndelete anyway? [y/N] y\ndeleted app/asked`);
    expect(existsSync(directory)).toBe(false);
    expect((await asAdmin('GET', path('app', 'asked'))).status).toBe(404);
  }, 60_000);

  it('deletes a clean clone without asking', async () => {
    expect(
      (await asAdmin('POST', '/workspaces', { ship: 'rmship', repoName: 'app', name: 'clean', branch: 'main' })).status,
    ).toBe(201);
    expect(await svc('rm', 'app', 'clean')).toEqual({ code: 0, stdout: 'deleted app/clean\n', stderr: '' });
  }, 60_000);

  it('the bridge forwards force=false as the guarded delete behind the same authorization; force absent stays unconditional', async () => {
    await dirtyWorkspace('api');
    expect((await call(fleet.bridgeUrl, 'DELETE', path('app', 'api', '?force=false'))).status).toBe(401);
    expect(await asAdmin('DELETE', path('app', 'api', '?force=false'))).toMatchObject({
      status: 409,
      body: { error: FOUND('api') },
    });
    expect((await asAdmin('DELETE', path('app', 'api', '?force=maybe'))).status).toBe(422);
    expect(await asAdmin('DELETE', path('app', 'api'))).toMatchObject({ status: 200, body: { ok: true } });
  }, 60_000);
});
