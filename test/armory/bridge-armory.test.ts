// The bridge's armory through its HTTP API: the manifest (sorted, hashed, modes normalized, symlinks never
// followed), a revision that is stable and changes exactly with content, mode, path or the dotfile map,
// every malformed map entry at once (a well-formed entry whose source is missing is kept, not refused), and
// file serving (utf8/base64, 404, unsafe paths, the 10 MiB limit).
import { chmodSync, renameSync, rmSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARMORY_FILE_LIMIT } from '../../protocol/index.js';
import { makeTempRoot, rawCall, removeRoot } from '../helpers/ship.js';
import { ADMIN, startAuthBridge, type AuthHarness } from '../auth/harness.js';
import { putArmoryFile } from '../helpers/armory.js';
import { until } from '../helpers/poll.js';

let root: string;
let h: AuthHarness;
let token: string;
let armory: string;

const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
const put = (path: string, contents: string | Buffer, mode = 0o644) => putArmoryFile(armory, path, contents, mode);
const manifest = async () => {
  const reply = await h.as(token, 'GET', '/armory');
  expect(reply.status).toBe(200);
  return reply.body as {
    revision: string;
    entries: Array<{ path: string; section: string; size: number; sha256: string; mode: number }>;
    dotfileMap: Record<string, string>;
  };
};
// The bridge rescans 500 ms after the last change it sees. Where a test expects a change it polls for it;
// where it expects *no* change (a symlink never listed, an mtime that does not count) it must wait past the
// debounce before looking, and this is that wait.
const pastDebounce = () => new Promise((resolve) => setTimeout(resolve, 900));
const POLL = { timeout: 10_000, interval: 50 };

beforeAll(async () => {
  root = await makeTempRoot();
  h = await startAuthBridge(root);
  token = await h.login(ADMIN.username, ADMIN.password);
  armory = join(root, 'bridge', 'armory');
}, 60_000);

afterAll(async () => {
  await h?.bridge.close();
  await removeRoot(root);
});

describe('the armory manifest', () => {
  it('is empty while the armory holds nothing', async () => {
    const empty = await manifest();
    expect(empty.entries).toEqual([]);
    expect(empty.dotfileMap).toEqual({});
    expect(empty.revision).toMatch(/^[0-9a-f]{64}$/);
  });

  it('lists the three sections sorted by path with size, sha256 and a normalized mode, and nothing else', async () => {
    put('skills/review/SKILL.md', '# review\n', 0o600);
    put('skills/build/run.sh', '#!/bin/sh\necho hi\n', 0o700);
    put('plugins/claude-code/commands/x.md', 'x\n');
    put('dotfiles/bashrc', 'alias ll="ls -l"\n');
    put('notes/ignored.txt', 'not a section\n');
    writeFileSync(join(armory, 'README.md'), 'ignored too\n');
    await expect.poll(async () => (await manifest()).entries.length, POLL).toBe(4);
    const listed = await manifest();
    expect(listed.entries).toEqual([
      { path: 'dotfiles/bashrc', section: 'dotfiles', size: 17, sha256: sha('alias ll="ls -l"\n'), mode: 0o644 },
      { path: 'plugins/claude-code/commands/x.md', section: 'plugins', size: 2, sha256: sha('x\n'), mode: 0o644 },
      { path: 'skills/build/run.sh', section: 'skills', size: 18, sha256: sha('#!/bin/sh\necho hi\n'), mode: 0o755 },
      { path: 'skills/review/SKILL.md', section: 'skills', size: 9, sha256: sha('# review\n'), mode: 0o644 },
    ]);
  });

  it('never follows a symlink, in the manifest or when serving', async () => {
    symlinkSync(join(root, 'bridge', 'db'), join(armory, 'skills', 'leak'));
    symlinkSync('/etc/passwd', join(armory, 'skills', 'passwd'));
    await pastDebounce();
    expect((await manifest()).entries.map((e) => e.path)).not.toContain('skills/leak');
    expect((await h.as(token, 'GET', '/armory/file?path=skills/passwd')).status).toBe(404);
    rmSync(join(armory, 'skills', 'leak'));
    rmSync(join(armory, 'skills', 'passwd'));
    await pastDebounce();
  });

  it('keeps its revision while nothing that counts changes, and changes it for content, mode, path and map', async () => {
    const first = (await manifest()).revision;
    expect((await manifest()).revision).toBe(first);
    utimesSync(join(armory, 'skills/review/SKILL.md'), new Date(), new Date(2001, 1, 1));
    await pastDebounce();
    expect((await manifest()).revision).toBe(first);

    const seen = new Set([first]);
    const changed = async (what: string) => {
      const revision = await until(async () => {
        const now = (await manifest()).revision;
        return !seen.has(now) && now;
      }, `a new revision after ${what}`);
      seen.add(revision);
    };
    put('skills/review/SKILL.md', '# review v2\n');
    await changed('content');
    chmodSync(join(armory, 'skills/review/SKILL.md'), 0o755);
    await changed('mode');
    renameSync(join(armory, 'skills/review/SKILL.md'), join(armory, 'skills/review/README.md'));
    await changed('path');
    writeFileSync(join(armory, 'dotfile-map.json'), JSON.stringify({ bashrc: '~/.bashrc' }));
    await changed('map');
    expect((await manifest()).dotfileMap).toEqual({ bashrc: '~/.bashrc' });
  });

  it('keeps a well-formed entry whose dotfile is missing: the manifest is served with the entry in its map', async () => {
    writeFileSync(join(armory, 'dotfile-map.json'), JSON.stringify({ bashrc: '~/.bashrc', gone: '~/.gone' }));
    await expect
      .poll(async () => (await h.as(token, 'GET', '/armory')).body.dotfileMap, POLL)
      .toEqual({ bashrc: '~/.bashrc', gone: '~/.gone' });
    const served = await manifest();
    expect(served.entries.map((e) => e.path)).toContain('dotfiles/bashrc');
    expect(served.entries.map((e) => e.path)).not.toContain('dotfiles/gone');
  });

  it('refuses a malformed dotfile map whole, naming every malformed entry (a missing source is not one)', async () => {
    writeFileSync(
      join(armory, 'dotfile-map.json'),
      JSON.stringify({
        bashrc: '~/.bashrc',
        '../x': '~/.x',
        missing: '~/.m',
        bad: 'etc/x',
        ctl: '~/a\nb',
        up: '~/../../etc/x',
        other: '~root/.bashrc',
        n: 5,
      }),
    );
    await expect.poll(async () => (await h.as(token, 'GET', '/armory')).status, POLL).toBe(400);
    const reply = await h.as(token, 'GET', '/armory');
    expect(reply.status).toBe(400);
    const lines = (reply.body.error as string).split('\n');
    expect(lines[0]).toBe(`invalid ${armory}/dotfile-map.json:`);
    expect(lines.slice(1)).toEqual([
      '  "../x": source: ".." in path',
      '  "bad": destination must start with ~/ or /',
      '  "ctl": destination contains a control character',
      '  "up": destination must name a file without empty, "." or ".." segments',
      '  "other": destination must start with ~/ or /',
      '  "n": destination must be a string',
    ]);
    writeFileSync(join(armory, 'dotfile-map.json'), JSON.stringify({ bashrc: '~/.bashrc' }));
    await expect.poll(async () => (await h.as(token, 'GET', '/armory')).status, POLL).toBe(200);
  });
});

describe('GET /armory/file', () => {
  it('serves text as utf8 and other bytes as base64, with the manifest fields', async () => {
    put('skills/bin/blob', Buffer.from([0, 159, 146, 150, 255]));
    await expect
      .poll(async () => (await h.as(token, 'GET', '/armory/file?path=skills/bin/blob')).status, POLL)
      .toBe(200);
    const text = await h.as(token, 'GET', '/armory/file?path=dotfiles/bashrc');
    expect(text.body).toEqual({
      path: 'dotfiles/bashrc',
      section: 'dotfiles',
      size: 17,
      sha256: sha('alias ll="ls -l"\n'),
      mode: 0o644,
      encoding: 'utf8',
      contents: 'alias ll="ls -l"\n',
    });
    const blob = await h.as(token, 'GET', '/armory/file?path=skills/bin/blob');
    expect(blob.body).toMatchObject({
      encoding: 'base64',
      contents: Buffer.from([0, 159, 146, 150, 255]).toString('base64'),
      size: 5,
    });
  });

  it('answers 404 for a path not in the manifest, 422 without one, and 400 for unsafe paths', async () => {
    expect(await h.as(token, 'GET', '/armory/file?path=skills/nope')).toMatchObject({
      status: 404,
      body: { error: 'armory file not found: skills/nope' },
    });
    expect((await h.as(token, 'GET', '/armory/file')).status).toBe(422);
    for (const path of [
      '/etc/passwd',
      '../x',
      'skills/../../x',
      'skills\\..\\x',
      'skills/%2e%2e/x',
      'skills/a\u0000b',
    ]) {
      const reply = await rawCall(h.bridge.url, 'GET', `/armory/file?path=${encodeURIComponent(path)}`, {
        authorization: `Bearer ${token}`,
      });
      expect(reply.status, path).toBe(path === 'skills/%2e%2e/x' ? 404 : 400);
    }
  });

  it('lists a file over 10 MiB but refuses to serve it with 413; one of exactly 10 MiB is served', async () => {
    put('plugins/claude-code/big.bin', Buffer.alloc(0));
    truncateSync(join(armory, 'plugins/claude-code/big.bin'), ARMORY_FILE_LIMIT + 1);
    put('plugins/claude-code/edge.bin', Buffer.alloc(0));
    truncateSync(join(armory, 'plugins/claude-code/edge.bin'), ARMORY_FILE_LIMIT);
    await expect
      .poll(async () => (await manifest()).entries.find((e) => e.path === 'plugins/claude-code/edge.bin')?.size, POLL)
      .toBe(ARMORY_FILE_LIMIT);
    expect((await manifest()).entries.find((e) => e.path === 'plugins/claude-code/big.bin')?.size).toBe(
      ARMORY_FILE_LIMIT + 1,
    );
    expect(await h.as(token, 'GET', '/armory/file?path=plugins/claude-code/big.bin')).toMatchObject({
      status: 413,
      body: {
        error: `armory file too large (${ARMORY_FILE_LIMIT + 1} bytes, limit ${ARMORY_FILE_LIMIT}): plugins/claude-code/big.bin`,
      },
    });
    expect((await h.as(token, 'GET', '/armory/file?path=plugins/claude-code/edge.bin')).status).toBe(200);
    rmSync(join(armory, 'plugins/claude-code/big.bin'));
    rmSync(join(armory, 'plugins/claude-code/edge.bin'));
  });
});
