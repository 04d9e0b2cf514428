// The armory end to end: a real authenticating bridge pushes to real ships whose HOME is a temp directory;
// each ship pulls with its ship token, verifies, caches and installs into the provider roots present
// (skills fanned out, plugins verbatim, dotfiles as symlinks into the cache), never clobbering what it did
// not write, removing only what it can prove it wrote, re-applying at start, following edits on disk, and
// refusing pushes from a bridge it is not pinned to. A fake bridge serves a hostile or corrupt manifest.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { runCli } from '../helpers/cli.js';
import { ADMIN, startAuthBridge, type AuthHarness } from '../auth/harness.js';
import { until } from '../helpers/poll.js';
import { armoryRevision, nextArmoryRevision, putArmoryFile } from '../helpers/armory.js';

let root: string;
let h: AuthHarness;
let token: string;
let armory: string;
let home: string;
let ship: TestShip;
const SHIP_TOKEN = 'armory-ship-token-0123456789abcdefghijklmnopq';
const BRIDGE_TOKEN = 'armory-bridge-token-0123456789abcdefghijklmnop';

const put = (path: string, contents: string | Buffer) => putArmoryFile(armory, path, contents);
const revisionNow = () => armoryRevision(h, token);
const nextRevision = (before: string) => nextArmoryRevision(h, token, before);
const synced = async (target: TestShip, revision: string) =>
  until(() => target.ship.armory.state().revision === revision, `revision ${revision}`, 10_000);

beforeAll(async () => {
  root = await makeTempRoot();
  h = await startAuthBridge(root);
  token = await h.login(ADMIN.username, ADMIN.password);
  armory = join(root, 'bridge', 'armory');
  home = join(root, 'home');
  for (const provider of ['.claude', '.codex', '.agents']) mkdirSync(join(home, provider), { recursive: true });
  put('skills/review/SKILL.md', '# review\n');
  put('skills/review/extra/notes.md', 'notes\n');
  put('plugins/claude-code/commands/deploy.md', 'deploy\n');
  put('plugins/opencode/agent.md', 'not installed: no ~/.config/opencode\n');
  put('plugins/mystery/x.md', 'unknown provider\n');
  put('dotfiles/bashrc', 'export ARMORY=1\n');
  put('dotfiles/etc-evil', 'nope\n');
  writeFileSync(
    join(armory, 'dotfile-map.json'),
    JSON.stringify({ bashrc: '~/.bashrc.d/armory.sh', 'etc-evil': '/etc/cron.d/evil' }),
  );
  // Something the ship did not write sits where a skill would go.
  mkdirSync(join(home, '.agents', 'skills', 'review'), { recursive: true });
  writeFileSync(join(home, '.agents', 'skills', 'review', 'SKILL.md'), 'mine, hands off\n');
  // Let the bridge's watcher settle on the new tree, so the push at registration carries all of it.
  await until(async () => (await h.as(token, 'GET', '/armory')).body.entries.length >= 7, 'the whole tree listed');
  // Past the watcher's 500 ms debounce, so the tree the bridge serves is the settled one.
  await new Promise((resolve) => setTimeout(resolve, 600));
  ship = await startTestShip(join(root, 'ship'), {
    name: 'armed',
    homeDirectory: home,
    shipToken: SHIP_TOKEN,
    bridgeToken: BRIDGE_TOKEN,
  });
  expect(
    (await h.as(token, 'POST', '/ships', { url: ship.url, shipToken: SHIP_TOKEN, bridgeToken: BRIDGE_TOKEN })).status,
  ).toBe(201);
}, 60_000);

afterAll(async () => {
  await h?.bridge.close();
  await ship?.stop();
  await removeRoot(root);
});

describe('armory sync', () => {
  it('is pushed at registration, pulled with the ship token, and installed into every present provider', async () => {
    await synced(ship, await revisionNow());
    const state = ship.ship.armory.state();
    expect(state).toMatchObject({ bridgeUrl: h.bridge.publicUrl, fileCount: 7, lastError: null });
    expect(state.install).toMatchObject({ skillCount: 5, pluginCount: 1, dotfileCount: 1, removedCount: 0 });
    expect(state.install!.conflicts).toEqual([join(home, '.agents', 'skills', 'review', 'SKILL.md')]);
    expect(state.install!.warnings).toEqual(
      expect.arrayContaining([
        'unknown provider directory plugins/mystery: plugins/mystery/x.md not installed',
        'dotfile etc-evil → /etc/cron.d/evil skipped: outside the home directory',
      ]),
    );
    expect(readFileSync(join(home, '.claude/skills/review/SKILL.md'), 'utf8')).toBe('# review\n');
    expect(readFileSync(join(home, '.codex/skills/review/extra/notes.md'), 'utf8')).toBe('notes\n');
    expect(readFileSync(join(home, '.claude/commands/deploy.md'), 'utf8')).toBe('deploy\n');
    expect(existsSync(join(home, '.config/opencode'))).toBe(false);
    expect(readFileSync(join(home, '.agents/skills/review/SKILL.md'), 'utf8')).toBe('mine, hands off\n');
    const link = join(home, '.bashrc.d/armory.sh');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(link, 'utf8')).toBe('export ARMORY=1\n');
    expect(readlinkSync(link)).toContain(join(home, '.config/svc/ship'));
    expect(existsSync('/etc/cron.d/evil')).toBe(false);
  });

  it("is reported per ship by GET /armory/ships, and by the ship's own GET /armory", async () => {
    const states = (await h.as(token, 'GET', '/armory/ships')).body;
    expect(states).toEqual([{ ship: 'armed', status: 'online', state: ship.ship.armory.state() }]);
    expect(
      (await call(ship.url, 'GET', '/armory', undefined, { authorization: `Bearer ${BRIDGE_TOKEN}` })).body,
    ).toEqual(ship.ship.armory.state());
  });

  it('shows through svc client armory ls, cat and ships', async () => {
    const env = { SVC_TOKEN: token, NO_COLOR: '1' };
    const svc = (...args: string[]) => runCli(['client', '--bridge-url', h.bridge.url, 'armory', ...args], env);
    const ls = (await svc('ls')).stdout;
    expect(ls).toMatch(/^PATH\s+SIZE\s+MODE\s+SHA256\ndotfiles\/bashrc\s+16\s+644\s+[0-9a-f]{12}\n/);
    expect(ls).toMatch(
      /\nDOTFILE\s+DESTINATION\nbashrc\s+~\/\.bashrc\.d\/armory\.sh\netc-evil\s+\/etc\/cron\.d\/evil\n\nrevision [0-9a-f]{64}\n$/,
    );
    expect(
      (await svc('ls', '--section', 'skills')).stdout.split('\n').filter((line) => line.startsWith('skills/')),
    ).toHaveLength(2);
    expect(
      (await runCli(['client', '--bridge-url', h.bridge.url, '--json', 'armory', 'ls', '--section', 'plugins'], env))
        .stdout,
    ).toContain('"plugins/claude-code/commands/deploy.md"');
    expect(await svc('cat', 'skills/review/SKILL.md')).toMatchObject({ code: 0, stdout: '# review\n' });
    const beforeBinary = await revisionNow();
    put('skills/bin.dat', Buffer.from([0xff, 0xfe, 0x00]));
    const withBinary = await nextRevision(beforeBinary);
    expect(await svc('cat', 'skills/bin.dat')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('svc: skills/bin.dat is a binary file'),
    });
    expect(await svc('cat', 'skills/none')).toMatchObject({
      code: 1,
      stderr: 'svc: request failed (404): armory file not found: skills/none\n',
    });
    rmSync(join(armory, 'skills/bin.dat'));
    await synced(ship, await nextRevision(withBinary));
    const ships = (await svc('ships')).stdout;
    expect(ships).toMatch(
      /^SHIP\s+STATUS\s+STATE\s+REVISION\s+SYNCED\s+CONFLICTS\narmed\s+online\s+in sync\s+[0-9a-f]{12}\s+\S+\s+1\n/,
    );
    expect(ships).toContain(`armed: conflict: ${join(home, '.agents', 'skills', 'review', 'SKILL.md')}`);
    expect(ships).toContain('armed: warning: dotfile etc-evil → /etc/cron.d/evil skipped: outside the home directory');
  });

  it('follows an edit on disk, keeps what a user changed, removes what it wrote and prunes empty directories', async () => {
    writeFileSync(join(home, '.codex/skills/review/SKILL.md'), 'edited by the user\n');
    const before = await revisionNow();
    rmSync(join(armory, 'skills/review'), { recursive: true });
    put('skills/lint/SKILL.md', '# lint\n');
    await synced(ship, await nextRevision(before));
    const install = ship.ship.armory.state().install!;
    expect(readFileSync(join(home, '.claude/skills/lint/SKILL.md'), 'utf8')).toBe('# lint\n');
    expect(existsSync(join(home, '.claude/skills/review'))).toBe(false);
    expect(existsSync(join(home, '.codex/skills/review/extra'))).toBe(false);
    expect(readFileSync(join(home, '.codex/skills/review/SKILL.md'), 'utf8')).toBe('edited by the user\n');
    expect(install.warnings).toContain(
      `kept ${join(home, '.codex/skills/review/SKILL.md')}: changed since the ship installed it`,
    );
    expect(install.removedCount).toBe(4); // both review files under .claude, notes.md under .codex and .agents
    expect(existsSync(join(home, '.claude/skills'))).toBe(true);
  });

  it('reports a foreign symlink and a directory in the way as conflicts', async () => {
    mkdirSync(join(home, '.claude/skills/dir'), { recursive: true });
    mkdirSync(join(home, '.claude/skills/dir/SKILL.md'));
    mkdirSync(join(home, '.codex/skills/link'), { recursive: true });
    symlinkSync('/etc/hostname', join(home, '.codex/skills/link/SKILL.md'));
    const before = await revisionNow();
    put('skills/dir/SKILL.md', 'dir\n');
    put('skills/link/SKILL.md', 'link\n');
    await synced(ship, await nextRevision(before));
    expect(ship.ship.armory.state().install!.conflicts).toEqual(
      expect.arrayContaining([join(home, '.claude/skills/dir/SKILL.md'), join(home, '.codex/skills/link/SKILL.md')]),
    );
    expect(readlinkSync(join(home, '.codex/skills/link/SKILL.md'))).toBe('/etc/hostname');
  });

  it('keeps syncing after a mapped dotfile is deleted: the mapping becomes a warning, in neither dotfileCount nor conflicts', async () => {
    const mapFile = join(armory, 'dotfile-map.json');
    const map = { bashrc: '~/.bashrc.d/armory.sh', 'etc-evil': '/etc/cron.d/evil', vimrc: '~/.vimrc' };
    const before = await revisionNow();
    put('dotfiles/vimrc', 'set number\n');
    writeFileSync(mapFile, JSON.stringify(map));
    await synced(ship, await nextRevision(before));
    expect(ship.ship.armory.state().install!.dotfileCount).toBe(2);
    expect(readFileSync(join(home, '.vimrc'), 'utf8')).toBe('set number\n');

    // Deleted from dotfiles/, the map left as it was: the bridge still serves the manifest and ships sync.
    const withVimrc = await revisionNow();
    rmSync(join(armory, 'dotfiles/vimrc'));
    const without = await nextRevision(withVimrc);
    expect((await h.as(token, 'GET', '/armory')).body.dotfileMap).toEqual(map);
    await synced(ship, without);
    const state = ship.ship.armory.state();
    expect(state.lastError).toBeNull();
    expect(state.install!.warnings).toContain('dotfile vimrc → ~/.vimrc skipped: dotfiles/vimrc is not in the armory');
    expect(state.install!.dotfileCount).toBe(1);
    expect(state.install!.conflicts).not.toContain(join(home, '.vimrc'));
    expect(state.install!.removedCount).toBe(1); // the link the ship had placed for it
    expect(existsSync(join(home, '.vimrc'))).toBe(false);
    expect(readFileSync(join(home, '.bashrc.d/armory.sh'), 'utf8')).toBe('export ARMORY=1\n');
  });

  it('refuses a push naming another bridge, leaving the state untouched', async () => {
    const before = ship.ship.armory.state();
    const reply = await call(
      ship.url,
      'POST',
      '/armory/sync',
      { bridgeUrl: 'http://evil.example:4800', revision: 'x' },
      { authorization: `Bearer ${BRIDGE_TOKEN}` },
    );
    expect(reply).toMatchObject({
      status: 403,
      body: {
        error: `armory push refused: this ship is pinned to bridge ${h.bridge.publicUrl} but the push named http://evil.example:4800`,
      },
    });
    expect(ship.ship.armory.state()).toEqual(before);
    // Case and a trailing slash do not make another bridge.
    const same = await call(
      ship.url,
      'POST',
      '/armory/sync',
      { bridgeUrl: `${h.bridge.publicUrl.toUpperCase().replace('HTTP://', 'http://')}/`, revision: 'x' },
      { authorization: `Bearer ${BRIDGE_TOKEN}` },
    );
    expect(same.status).toBe(200);
    expect(
      (
        await call(
          ship.url,
          'POST',
          '/armory/sync',
          { bridgeUrl: 'ftp://x', revision: 'x' },
          { authorization: `Bearer ${BRIDGE_TOKEN}` },
        )
      ).body,
    ).toEqual({ error: 'bridge url must be http(s): ftp://x' });
    expect(
      (
        await call(
          ship.url,
          'POST',
          '/armory/sync',
          { bridgeUrl: 'not a url', revision: 'x' },
          { authorization: `Bearer ${BRIDGE_TOKEN}` },
        )
      ).body,
    ).toEqual({ error: 'invalid bridge url: not a url' });
    expect(
      (await call(ship.url, 'POST', '/armory/sync', { revision: 'x' }, { authorization: `Bearer ${BRIDGE_TOKEN}` }))
        .status,
    ).toBe(422);
  });

  it('re-applies the cached armory at start, before any push', async () => {
    const installed = join(home, '.claude/skills/lint/SKILL.md');
    await ship.stopShipOnly();
    rmSync(installed);
    ship = await startTestShip(join(root, 'ship'), {
      name: 'armed',
      homeDirectory: home,
      shipToken: SHIP_TOKEN,
      bridgeToken: BRIDGE_TOKEN,
      port: ship.ship.port,
    });
    await until(() => existsSync(installed), 're-applied skill', 5000);
    expect(readFileSync(installed, 'utf8')).toBe('# lint\n');
  });

  it('reports an offline ship with a null state', async () => {
    await ship.stopShipOnly();
    await expect
      .poll(async () => (await h.as(token, 'GET', '/armory/ships')).body, { timeout: 5000, interval: 100 })
      .toEqual([{ ship: 'armed', status: 'offline', state: null }]);
  });
});

describe('a ship without its ship token against an authenticating bridge', () => {
  it('records `bridge answered 401 for the armory manifest`, and only armory sync is affected', async () => {
    const bare = await startTestShip(join(root, 'bare'), { name: 'bare', homeDirectory: join(root, 'bare-home') });
    try {
      const reply = await call(bare.url, 'POST', '/armory/sync', { bridgeUrl: h.bridge.url, revision: 'x' });
      expect(reply).toMatchObject({ status: 502, body: { error: 'bridge answered 401 for the armory manifest' } });
      expect(bare.ship.armory.state()).toMatchObject({
        revision: null,
        lastError: 'bridge answered 401 for the armory manifest',
      });
      expect((await call(bare.url, 'GET', '/workspaces')).status).toBe(200);
    } finally {
      await bare.stop();
    }
  });
});

describe('a hostile or corrupt bridge', () => {
  let fake: Server;
  let fakeUrl: string;
  let serve: { manifest: unknown; files: Record<string, unknown> };
  let target: TestShip;
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const entry = (path: string, contents: string) => ({
    path,
    section: path.split('/')[0],
    size: Buffer.byteLength(contents),
    sha256: sha(contents),
    mode: 0o644,
  });
  const file = (path: string, contents: string, served = contents) => ({
    ...entry(path, contents),
    encoding: 'utf8',
    contents: served,
  });

  beforeAll(async () => {
    fake = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const body =
        url.pathname === '/armory'
          ? serve.manifest
          : url.pathname === '/armory/file'
            ? serve.files[url.searchParams.get('path') ?? '']
            : undefined;
      response
        .writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' })
        .end(JSON.stringify(body ?? { error: 'nope' }));
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    fakeUrl = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
    const targetHome = join(root, 'target-home');
    mkdirSync(join(targetHome, '.claude'), { recursive: true });
    target = await startTestShip(join(root, 'target'), {
      name: 'target',
      homeDirectory: targetHome,
      bridgeUrl: fakeUrl,
    });
  }, 30_000);
  afterAll(async () => {
    await target?.stop();
    await new Promise((resolve) => fake?.close(resolve));
  });

  const push = () => call(target.url, 'POST', '/armory/sync', { bridgeUrl: fakeUrl, revision: 'hint' });

  it('syncs a good manifest', async () => {
    serve = {
      manifest: { revision: sha('one'), entries: [entry('skills/a.md', 'A\n')], dotfileMap: {} },
      files: { 'skills/a.md': file('skills/a.md', 'A\n') },
    };
    expect((await push()).body).toMatchObject({ revision: sha('one'), fileCount: 1, lastError: null });
  });

  it('fails the whole sync on one file whose bytes do not match, keeping the previous revision', async () => {
    serve = {
      manifest: {
        revision: sha('two'),
        entries: [entry('skills/b.md', 'B\n'), entry('skills/c.md', 'C\n')],
        dotfileMap: {},
      },
      files: { 'skills/b.md': file('skills/b.md', 'B\n'), 'skills/c.md': file('skills/c.md', 'C\n', 'tampered\n') },
    };
    expect(await push()).toMatchObject({
      status: 502,
      body: { error: 'armory file skills/c.md does not match its sha256' },
    });
    expect(target.ship.armory.state()).toMatchObject({
      revision: sha('one'),
      fileCount: 1,
      lastError: 'armory file skills/c.md does not match its sha256',
    });
    expect(existsSync(join(root, 'target-home/.claude/skills/b.md'))).toBe(false);
  });

  it('refuses traversal in manifest paths before fetching anything', async () => {
    for (const path of ['skills/../../evil', '/etc/evil', 'skills\\..\\evil', 'dotfiles/a\nb', 'other/x']) {
      serve = {
        manifest: { revision: sha(path), entries: [{ ...entry('skills/x', 'x'), path }], dotfileMap: {} },
        files: {},
      };
      const reply = await push();
      expect(reply.status, path).toBe(502);
      expect(reply.body.error, path).toMatch(/^unsafe path in the armory manifest/);
    }
    serve = { manifest: { revision: sha('map'), entries: [], dotfileMap: { '../../x': '~/.x' } }, files: {} };
    expect((await push()).body.error).toMatch(/^unsafe dotfile source/);
    serve = { manifest: { revision: 'not-hex', entries: [], dotfileMap: {} }, files: {} };
    expect(await push()).toMatchObject({
      status: 502,
      body: { error: 'the bridge sent an armory manifest that does not validate' },
    });
    expect(target.ship.armory.state().revision).toBe(sha('one'));
  });

  it('answers 500 when the pull succeeds but the install cannot write, keeping the pulled revision', async () => {
    const skills = join(root, 'target-home/.claude/skills');
    rmSync(skills, { recursive: true, force: true });
    writeFileSync(skills, 'a file where a directory should be\n');
    serve = {
      manifest: { revision: sha('blocked'), entries: [entry('skills/d/e.md', 'E\n')], dotfileMap: {} },
      files: { 'skills/d/e.md': file('skills/d/e.md', 'E\n') },
    };
    const reply = await push();
    expect(reply.status).toBe(500);
    expect(reply.body.error).toMatch(/^armory install failed: /);
    expect(target.ship.armory.state()).toMatchObject({ revision: sha('blocked'), lastError: reply.body.error });
    rmSync(skills);
  });

  it('never writes through a provider directory symlinked out of its root', async () => {
    const outside = join(root, 'outside');
    mkdirSync(outside, { recursive: true });
    symlinkSync(outside, join(root, 'target-home/.claude/skills'));
    serve = {
      manifest: {
        revision: sha('escape'),
        entries: [entry('skills/deep/y.md', 'Y\n'), entry('skills/x.md', 'X\n')],
        dotfileMap: {},
      },
      files: { 'skills/x.md': file('skills/x.md', 'X\n'), 'skills/deep/y.md': file('skills/deep/y.md', 'Y\n') },
    };
    expect((await push()).body.install.conflicts).toEqual([
      join(root, 'target-home/.claude/skills/deep/y.md'),
      join(root, 'target-home/.claude/skills/x.md'),
    ]);
    expect(readdirSync(outside)).toEqual([]);
    rmSync(join(root, 'target-home/.claude/skills'));
  });

  it('serializes concurrent pushes', async () => {
    serve = {
      manifest: { revision: sha('four'), entries: [entry('skills/f.md', 'F\n')], dotfileMap: {} },
      files: { 'skills/f.md': file('skills/f.md', 'F\n') },
    };
    const replies = await Promise.all(Array.from({ length: 5 }, () => push()));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(replies.map((r) => r.body.revision)).toEqual(Array(5).fill(sha('four')));
    expect(readFileSync(join(root, 'target-home/.claude/skills/f.md'), 'utf8')).toBe('F\n');
  });

  it('a success clears lastError', async () => {
    serve = {
      manifest: { revision: sha('three'), entries: [entry('skills/a.md', 'A\n')], dotfileMap: {} },
      files: { 'skills/a.md': file('skills/a.md', 'A\n') },
    };
    expect((await push()).body).toMatchObject({ revision: sha('three'), lastError: null });
  });
});

describe('trust on first push', () => {
  it('pins the first bridge that pushes and refuses the next', async () => {
    const fresh = await startTestShip(join(root, 'fresh'), { name: 'fresh', homeDirectory: join(root, 'fresh-home') });
    try {
      expect((await call(fresh.url, 'GET', '/armory')).body).toEqual({
        revision: null,
        bridgeUrl: null,
        syncedAt: null,
        fileCount: 0,
        install: null,
        lastError: null,
      });
      const first = await call(fresh.url, 'POST', '/armory/sync', { bridgeUrl: 'http://127.0.0.1:9', revision: 'x' });
      expect(first.status).toBe(502);
      const second = await call(fresh.url, 'POST', '/armory/sync', { bridgeUrl: 'http://127.0.0.1:10', revision: 'x' });
      expect(second).toMatchObject({
        status: 403,
        body: {
          error:
            'armory push refused: this ship is pinned to bridge http://127.0.0.1:9 but the push named http://127.0.0.1:10',
        },
      });
    } finally {
      await fresh.stop();
    }
  });
});
