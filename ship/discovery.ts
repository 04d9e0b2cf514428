// The discovery file `atlas.json` at the fleet root: `{port}` of the local ship, found by an agent two
// directory levels above its workspace. Written atomically at start.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DISCOVERY_FILE_NAME, type DiscoveryFile } from '../protocol/index.js';

export async function writeDiscoveryFile(fleetDirectory: string, port: number): Promise<string> {
  const path = join(fleetDirectory, DISCOVERY_FILE_NAME);
  const temporary = `${path}.${process.pid}.tmp`;
  const body: DiscoveryFile = { port };
  await writeFile(temporary, `${JSON.stringify(body)}\n`, { mode: 0o644 });
  await rename(temporary, path);
  return path;
}
