// An exclusive lock on the bridge's data directory: PGlite takes none, and two processes on one data
// directory silently lose writes (deps notes §5). The lock is a file created with O_EXCL holding the owner's
// pid; a lock whose owner no longer runs is stale and taken over.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'bridge.lock';

export class DataDirectoryLocked extends Error {
  constructor(readonly directory: string, readonly owner: number) {
    super(`the data directory ${directory} is in use by another bridge (pid ${owner}); stop it, or use another --data-directory`);
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock or throws DataDirectoryLocked; the returned function releases it. */
export function lockDataDirectory(directory: string): () => void {
  const path = join(directory, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && running(owner)) throw new DataDirectoryLocked(directory, owner);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not lock the data directory ${directory}`);
}
