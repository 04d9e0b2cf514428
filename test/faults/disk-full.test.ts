// docs/security.md X7: a full disk under the ship. The fleet directory sits on a 20 MiB tmpfs and a
// clone needs more (the pack fits, the checkout does not); the armory state sits on a 1 MiB tmpfs and the
// bridge's armory grows past it. Each failure answers with an error, leaves no half clone, no temp file and
// the previous armory revision installed byte for byte; once space is freed the same operations succeed.
// Needs root to mount tmpfs: `.ci/run` has it; elsewhere the suite is skipped with a notice.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { ADMIN, startAuthBridge, type AuthHarness } from '../auth/harness.js';
import { until } from '../helpers/poll.js';
import { armoryRevision, nextArmoryRevision, putArmoryFile } from '../helpers/armory.js';
import { tmpfsMountable } from '../helpers/tmpfs.js';

const canMount = tmpfsMountable('disk-full');

const mounted: string[] = [];
const mountTmpfs = (dir: string, size: string) => {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]);
  mounted.push(dir);
};
const grow = (dir: string, size: string) => execFileSync('mount', ['-o', `remount,size=${size}`, dir]);
/** Every file under `dir`, relative. */
const walk = (dir: string, prefix = ''): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );

describe.skipIf(!canMount)('a full disk under the ship', () => {
  let root: string;
  let h: AuthHarness;
  let token: string;
  let ship: TestShip;
  let home: string;
  let fleet: string;
  let stateMount: string;
  let bigRemote: string;
  const SHIP_TOKEN = 'disk-full-ship-token-0123456789abcdefghijkl';
  const BRIDGE_TOKEN = 'disk-full-bridge-token-0123456789abcdefghij';
  const shipCall = (method: string, route: string, body?: unknown) =>
    call(ship.url, method, route, body, { authorization: `Bearer ${BRIDGE_TOKEN}` });
  const armoryDir = () => join(root, 'bridge', 'armory');
  const put = (file: string, contents: string | Buffer) => putArmoryFile(armoryDir(), file, contents);
  const revisionNow = () => armoryRevision(h, token);
  const nextRevision = (before: string) => nextArmoryRevision(h, token, before);

  beforeAll(async () => {
    root = await makeTempRoot();
    home = join(root, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    fleet = join(root, 'fleet');
    mountTmpfs(fleet, '20m');
    stateMount = join(home, '.config', 'svc');
    mountTmpfs(stateMount, '1m');
    // 12 MiB that does not compress: the pack fits in 20 MiB, pack plus checkout does not.
    const work = join(root, 'big-work');
    bigRemote = join(root, 'big.git');
    mkdirSync(work);
    git(root, 'init', '--quiet', '--bare', bigRemote);
    git(work, 'init', '--quiet', '--initial-branch=main');
    writeFileSync(join(work, 'blob.bin'), randomBytes(12 * 1024 * 1024));
    git(work, 'add', '.');
    git(work, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'big');
    git(work, 'push', '--quiet', bigRemote, 'main');

    h = await startAuthBridge(root);
    token = await h.login(ADMIN.username, ADMIN.password);
    put('skills/small/SKILL.md', '# small skill\n');
    await until(async () => (await h.as(token, 'GET', '/armory')).body.entries.length >= 1, 'the skill listed');
    // Past the watcher's 500 ms debounce, so the tree the bridge serves is the settled one.
    await new Promise((resolve) => setTimeout(resolve, 600));
    ship = await startTestShip(join(root, 'ship'), {
      name: 'full',
      fleetDirectory: fleet,
      homeDirectory: home,
      shipToken: SHIP_TOKEN,
      bridgeToken: BRIDGE_TOKEN,
    });
    const registered = await h.as(token, 'POST', '/ships', {
      url: ship.url,
      shipToken: SHIP_TOKEN,
      bridgeToken: BRIDGE_TOKEN,
    });
    expect(registered.status, registered.text).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await h?.bridge.close();
    await ship?.stop();
    for (const dir of mounted.reverse()) execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    await removeRoot(root);
  });

  it('a clone that does not fit fails with an error and leaves nothing; with space it succeeds', async () => {
    const failed = await shipCall('POST', '/workspaces', {
      url: bigRemote,
      repoName: 'big',
      name: 'w1',
      branch: 'main',
    });
    expect(failed.status).toBe(500);
    expect(failed.body.error).toMatch(/^git clone of .* failed: .*(No space left on device|unable to write)/i);
    expect(existsSync(join(fleet, 'big', 'w1'))).toBe(false);
    expect(walk(fleet).filter((file) => !file.startsWith('atlas.json'))).toEqual([]);
    expect((await shipCall('GET', '/workspaces')).body).toEqual([]);

    grow(fleet, '64m');
    const created = await shipCall('POST', '/workspaces', {
      url: bigRemote,
      repoName: 'big',
      name: 'w1',
      branch: 'main',
    });
    expect(created.status).toBe(201);
    expect(readFileSync(join(fleet, 'big', 'w1', 'blob.bin')).length).toBe(12 * 1024 * 1024);
    expect((await shipCall('DELETE', path('big', 'w1'))).status).toBe(200);
  }, 120_000);

  it('an armory that does not fit is refused with lastError, the old revision stays installed, and the next push after freeing space applies', async () => {
    const first = await revisionNow();
    await until(() => ship.ship.armory.state().revision === first, 'first revision', 10_000);
    const installed = join(home, '.claude', 'skills', 'small', 'SKILL.md');
    expect(readFileSync(installed, 'utf8')).toBe('# small skill\n');

    // 3 MiB of armory (base64 on the wire, raw in the cache) into a 1 MiB state directory.
    for (let i = 0; i < 3; i++) put(`skills/heavy/part-${i}.bin`, randomBytes(1024 * 1024));
    const second = await nextRevision(first);
    const failed = await until(() => ship.ship.armory.state().lastError, 'lastError', 20_000);
    expect(failed).toMatch(/^could not cache armory file skills\/heavy\/part-\d\.bin: ENOSPC/);
    expect(ship.ship.armory.state().revision).toBe(first);
    expect(readFileSync(installed, 'utf8')).toBe('# small skill\n');
    expect(existsSync(join(home, '.claude', 'skills', 'heavy'))).toBe(false);
    expect(walk(stateMount).filter((file) => file.endsWith('.tmp'))).toEqual([]);
    // The state file on disk is still whole JSON (the last write that fitted).
    const stateDir = join(stateMount, 'ship');
    for (const file of walk(stateDir).filter((name) => name.endsWith('state.json')))
      expect(() => JSON.parse(readFileSync(join(stateDir, file), 'utf8'))).not.toThrow();

    grow(stateMount, '32m');
    put('skills/small/SKILL.md', '# small skill, edited\n');
    const third = await nextRevision(second);
    await until(() => ship.ship.armory.state().revision === third, 'third revision', 20_000);
    expect(ship.ship.armory.state().lastError).toBeNull();
    expect(readFileSync(installed, 'utf8')).toBe('# small skill, edited\n');
    expect(readFileSync(join(home, '.claude', 'skills', 'heavy', 'part-2.bin')).length).toBe(1024 * 1024);
  }, 120_000);
});
