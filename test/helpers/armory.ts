// The bridge side of armory tests: write a file into a bridge's armory directory, read the bridge's current
// revision, and wait for the next one (its watcher settles 500 ms after the last write).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuthHarness } from '../auth/harness.js';
import { until } from './poll.js';

export function putArmoryFile(armory: string, path: string, contents: string | Buffer, mode?: number): void {
  mkdirSync(join(armory, path, '..'), { recursive: true });
  writeFileSync(join(armory, path), contents);
  if (mode !== undefined) chmodSync(join(armory, path), mode);
}

export async function armoryRevision(h: AuthHarness, token: string): Promise<string> {
  return (await h.as(token, 'GET', '/armory')).body.revision as string;
}

/** The bridge's revision once it differs from `before`. */
export async function nextArmoryRevision(h: AuthHarness, token: string, before: string): Promise<string> {
  return until(
    async () => {
      const revision = await armoryRevision(h, token);
      return revision !== before && revision;
    },
    'the bridge to see the armory change',
    10_000,
    100,
  );
}
