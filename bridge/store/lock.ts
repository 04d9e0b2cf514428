// An exclusive lock on the bridge's data directory: PGlite takes none, and two processes on one data
// directory silently lose writes (docs/security.md F10). The lock is a listening Unix socket, which the kernel
// releases the moment its holder dies, whatever killed it and whatever pid the next holder gets: a pid file
// is no lock (a killed bridge stays visible to kill(pid, 0) until it is reaped, and a restarted container
// bridge is often pid 1 again, the pid its own stale file names). docs/DECISIONS.md has the choice.
// - Linux: a socket in the abstract namespace named after the directory's device and inode. Binding is
//   atomic and nothing is left on disk to go stale.
// - Elsewhere: a socket file `bridge.lock` in the directory; one that nobody answers on is stale and taken.
// The holder answers each connection with its pid, so a second bridge can name the one in its way.
import { createConnection, createServer, type Server } from 'node:net';
import { lstatSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'bridge.lock';
/** How long a start waits for a dying holder's socket to disappear before calling the directory in use. */
const TAKEOVER_WAIT_MS = 3000;
const RETRY_MS = 50;

export class DataDirectoryLocked extends Error {
  constructor(
    readonly directory: string,
    readonly owner: number | null,
  ) {
    super(
      `the data directory ${directory} is in use by another bridge${owner ? ` (pid ${owner})` : ''}; stop it, or use another --data-directory`,
    );
  }
}

/** Where the lock for `directory` lives: an abstract socket name on Linux, a socket file elsewhere. */
export function lockAddress(directory: string): string {
  if (process.platform === 'linux') {
    const { dev, ino } = statSync(directory);
    return `\0svc-bridge-data/${dev}/${ino}`;
  }
  return join(directory, LOCK_FILE);
}

function listen(address: string): Promise<Server | NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    const server = createServer((connection) => {
      connection.on('error', () => undefined);
      connection.end(`${process.pid}\n`);
    });
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    server.listen({ path: address, exclusive: true }, () => {
      server.removeAllListeners('error');
      server.on('error', () => undefined);
      // The lock must never keep a process alive on its own.
      server.unref();
      resolve(server);
    });
  });
}

/** Asks the holder for its pid: a number, null when something answers without one, 'gone' when nobody does. */
function askHolder(address: string): Promise<number | null | 'gone'> {
  return new Promise((resolve) => {
    let answer = '';
    let connected = false;
    const socket = createConnection({ path: address });
    const timer = setTimeout(() => socket.destroy(), 500);
    socket.on('connect', () => (connected = true));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const pid = Number(answer.trim());
      if (Number.isInteger(pid) && pid > 0) resolve(pid);
      else resolve(connected ? null : 'gone');
    });
  });
}

/** A regular file where the socket file belongs: a pid file left by an older bridge, or any debris. */
function removeStaleFile(path: string): void {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats && !stats.isDirectory()) rmSync(path, { force: true });
}

/**
 * Takes the lock or throws DataDirectoryLocked; the returned function releases it. A holder that is dying
 * (its socket still bound, nobody answering) is waited for up to TAKEOVER_WAIT_MS.
 */
export async function lockDataDirectory(directory: string): Promise<() => void> {
  const address = lockAddress(directory);
  const fileLock = !address.startsWith('\0');
  const legacy = join(directory, LOCK_FILE);
  if (!fileLock) removeStaleFile(legacy);
  const deadline = performance.now() + TAKEOVER_WAIT_MS;
  for (;;) {
    const result = await listen(address);
    if (!(result instanceof Error)) {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        result.close();
      };
    }
    if (result.code !== 'EADDRINUSE') throw result;
    const holder = await askHolder(address);
    if (typeof holder === 'number') throw new DataDirectoryLocked(directory, holder);
    if (holder === 'gone' && fileLock) {
      // A socket file nobody listens on (or an older bridge's pid file): stale.
      removeStaleFile(address);
      continue;
    }
    if (performance.now() >= deadline) throw new DataDirectoryLocked(directory, null);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}
