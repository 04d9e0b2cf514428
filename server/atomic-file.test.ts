// Atomic replacement (server/atomic-file.ts): the new contents or the old, never a temporary file left
// behind, whether the write succeeds, the step that makes the file throws, or the final rename fails.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { replaceAtomicSync, writeFileAtomic, writeFileAtomicSync } from './atomic-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-atomic-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('replaces a file with the new contents, private by default, and leaves nothing beside it', async () => {
  const path = join(dir, 'state.json');
  writeFileSync(path, 'old');
  writeFileAtomicSync(path, 'new');
  expect(readFileSync(path, 'utf8')).toBe('new');
  expect(statSync(path).mode & 0o777).toBe(0o600);
  await writeFileAtomic(path, 'newer', 0o640);
  expect(readFileSync(path, 'utf8')).toBe('newer');
  expect(readdirSync(dir)).toEqual(['state.json']);
});

it('keeps the old file and removes the temporary one when the rename fails', async () => {
  const path = join(dir, 'taken');
  mkdirSync(path);
  writeFileSync(join(path, 'inside'), 'a directory that is not empty');
  expect(() => writeFileAtomicSync(path, 'new')).toThrow();
  await expect(writeFileAtomic(path, 'new')).rejects.toThrow();
  expect(readdirSync(dir)).toEqual(['taken']);
});

it('puts a symlink in place by one rename, and leaves the old file when making it throws', () => {
  const path = join(dir, 'link');
  writeFileSync(path, 'old');
  expect(() =>
    replaceAtomicSync(path, (temporary) => {
      writeFileSync(temporary, 'half');
      throw new Error('disk full');
    }),
  ).toThrow('disk full');
  expect(readFileSync(path, 'utf8')).toBe('old');
  expect(readdirSync(dir)).toEqual(['link']);
  replaceAtomicSync(path, (temporary) => symlinkSync('/elsewhere', temporary));
  expect(readlinkSync(path)).toBe('/elsewhere');
  expect(readdirSync(dir)).toEqual(['link']);
});
