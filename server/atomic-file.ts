// Replacing a file so that a reader sees the old one or the new one, never part of either, and a crash or a
// full disk leaves the old one: the new contents go to a temporary file beside the target (the same
// filesystem, so the rename is atomic), are flushed to disk, and the temporary file is renamed over the
// target; on any failure the temporary file is removed and the error goes on. One way for every process:
// the ship's discovery file and armory state, the CLI's sessions, tokens and harness configurations.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';

/** A name beside `path` no other writer picks. */
const temporaryFor = (path: string) => `${path}.${randomBytes(6).toString('hex')}.tmp`;

/** Writes `contents` to `path` atomically; a new file gets `mode` (0600 unless said). */
export function writeFileAtomicSync(path: string, contents: string | Uint8Array, mode = 0o600): void {
  replaceAtomicSync(path, (temporary) => {
    const descriptor = openSync(temporary, 'wx', mode);
    try {
      writeFileSync(descriptor, contents);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  });
}

/** The same, without blocking the event loop. */
export async function writeFileAtomic(path: string, contents: string | Uint8Array, mode = 0o600): Promise<void> {
  const temporary = temporaryFor(path);
  try {
    const handle = await open(temporary, 'wx', mode);
    try {
      await handle.writeFile(contents);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Puts what `make` creates at a temporary path (a copy, a symlink) in place of `path` by one rename. */
export function replaceAtomicSync(path: string, make: (temporary: string) => void): void {
  const temporary = temporaryFor(path);
  try {
    make(temporary);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
