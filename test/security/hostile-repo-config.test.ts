// docs/security.md H6: a workspace whose own git config and attributes would run code — fsmonitor,
// hooks (in .git/hooks and through a core.hooksPath of its own), an external diff and a textconv driver,
// clean/smudge/process filters, one of them hidden behind include.path. Driving status, every diff option,
// branch switches and a guarded delete through the ship's API runs none of it. At the end plain git in the
// same workspace runs them, to show the fixture is armed.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, makeRemote } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';

const HOOKS = [
  'post-checkout',
  'reference-transaction',
  'pre-commit',
  'post-merge',
  'post-index-change',
  'pre-auto-gc',
];
const TOOLS = ['fsmonitor', 'extdiff', 'textconv', 'clean', 'smudge', 'process', 'hidden-clean'];

let root: string;
let ship: TestShip;
let dir: string;
let ran: string;

/** A script that leaves `<ran>/<its name>` behind and passes its input through (as a filter must). */
function sentinelScript(file: string): void {
  writeFileSync(file, `#!/bin/sh\ntouch "${ran}/$(basename "$0")"\ncat\n`);
  chmodSync(file, 0o755);
}

beforeAll(async () => {
  root = await makeTempRoot();
  ran = join(root, 'ran');
  mkdirSync(ran);
  const bin = join(root, 'bin');
  const hooks = join(root, 'hooks');
  mkdirSync(bin);
  mkdirSync(hooks);
  for (const tool of TOOLS) sentinelScript(join(bin, tool));
  for (const hook of HOOKS) sentinelScript(join(hooks, hook));

  const remote = makeRemote(root);
  ship = await startTestShip(root);
  expect(
    (await call(ship.url, 'POST', '/workspaces', { url: remote.url, repoName: 'h', name: 'w', branch: 'main' })).status,
  ).toBe(201);
  dir = join(ship.ship.fleetDirectory, 'h', 'w');
  for (const hook of HOOKS) sentinelScript(join(dir, '.git', 'hooks', hook));
  const set = (key: string, value: string) => git(dir, 'config', key, value);
  set('core.fsmonitor', join(bin, 'fsmonitor'));
  set('core.hooksPath', hooks);
  set('diff.external', join(bin, 'extdiff'));
  set('diff.evil.command', join(bin, 'extdiff'));
  set('diff.evil.textconv', join(bin, 'textconv'));
  set('filter.evil.clean', join(bin, 'clean'));
  set('filter.evil.smudge', join(bin, 'smudge'));
  set('filter.evil.process', join(bin, 'process'));
  const included = join(root, 'included.cfg');
  writeFileSync(included, `[filter "hidden"]\n\tclean = ${join(bin, 'hidden-clean')}\n`);
  set('include.path', included);
  writeFileSync(join(dir, '.gitattributes'), '* diff=evil filter=evil\n*.md filter=hidden\n');
  // A changed file under each filter, so git has to run one to compare it with the index.
  writeFileSync(join(dir, 'README.md'), '# changed\n');
  writeFileSync(join(dir, 'src', 'app.txt'), 'one\nTWO, longer\nthree\n');
  writeFileSync(join(dir, 'untracked.txt'), 'new\n');
}, 60_000);

afterAll(async () => {
  await ship.stop();
  await removeRoot(root);
});

describe('a workspace whose config would run code', () => {
  it('runs none of it through status, diff, branch switch or a guarded delete', async () => {
    const workspace = (suffix = '') => path('h', 'w', suffix);
    expect((await call(ship.url, 'GET', workspace())).status).toBe(200);
    expect((await call(ship.url, 'POST', workspace('/activate'))).status).toBe(200);
    const active = await call(ship.url, 'GET', workspace());
    expect(active.body).toMatchObject({ state: 'active' });
    expect(active.body.diff.added).toBeGreaterThan(0);
    for (const query of [
      '',
      '?staged=true',
      '?stat=true',
      '?nameOnly=true',
      '?range=HEAD',
      '?paths=README.md',
      '?includeUntracked=true',
    ]) {
      expect((await call(ship.url, 'GET', workspace(`/diff${query}`))).status).toBe(200);
    }
    expect((await call(ship.url, 'POST', workspace('/branch'), { branch: 'other' })).status).toBe(200);
    expect((await call(ship.url, 'POST', workspace('/branch'), { branch: 'main' })).status).toBe(200);
    expect((await call(ship.url, 'DELETE', workspace('?force=false'))).status).toBe(409);
    expect((await call(ship.url, 'POST', workspace('/deactivate'))).status).toBe(200);
    expect(readdirSync(ran)).toEqual([]);

    // Armed: the same workspace under plain git runs the fsmonitor, the filters and the drivers.
    execFileSync('git', ['status', '--porcelain'], { cwd: dir });
    execFileSync('git', ['diff'], { cwd: dir });
    expect(readdirSync(ran).sort()).toEqual(
      expect.arrayContaining(['extdiff', 'fsmonitor', 'hidden-clean', 'process']),
    );
  });
});
