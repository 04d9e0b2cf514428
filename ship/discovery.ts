// The discovery file `atlas.json` at the fleet root: `{port}` of the local ship, found by an agent two
// directory levels above its workspace. Written atomically at start.
import { join } from 'node:path';
import { DISCOVERY_FILE_NAME, type DiscoveryFile } from '../protocol/index.js';
import { writeFileAtomic } from '../server/atomic-file.js';

export async function writeDiscoveryFile(fleetDirectory: string, port: number): Promise<string> {
  const path = join(fleetDirectory, DISCOVERY_FILE_NAME);
  const body: DiscoveryFile = { port };
  await writeFileAtomic(path, `${JSON.stringify(body)}\n`, 0o644);
  return path;
}
