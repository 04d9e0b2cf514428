// Where a ship keeps its armory state (docs/architecture.md §5: under `~/.config/svc/ship/`, never the fleet directory):
// one subdirectory per fleet directory, so two ships on one host (a launch with two local ships) keep
// separate caches, pins and managed-file records. Files are written atomically (server/atomic-file.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function shipStateDirectory(home: string, fleetDirectory: string): string {
  const directory = join(
    home,
    '.config',
    'svc',
    'ship',
    createHash('sha256').update(fleetDirectory).digest('hex').slice(0, 16),
  );
  mkdirSync(join(directory, 'cache'), { recursive: true, mode: 0o700 });
  return directory;
}

export function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return null;
  }
}
