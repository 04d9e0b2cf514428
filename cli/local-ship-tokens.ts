// The bridge tokens of the ships a `svc launch` on this machine started, so `svc client --url <that ship>`
// reaches a ship the launch gave a token instead of answering 401 (issue #15 item 6). The launch writes
// them to `<data directory>/local-ships.json` (0600, atomically; the directory is 0700 and its store holds
// the same tokens) and leaves one pointer per ship URL in `$XDG_CONFIG_HOME/svc/local-ships/` (0700, files
// 0600, named by the sha256 of the URL, holding the URL and the file's path, no token), so a client in any
// directory finds the file. SVC_BRIDGE_TOKEN, when set and not empty, always wins. Tokens are never printed.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../server/atomic-file.js';

export const LOCAL_SHIPS_FILE = 'local-ships.json';

export interface LocalShip {
  name: string;
  url: string;
  bridgeToken: string;
}

function pointersDirectory(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'svc', 'local-ships');
}

const pointerFor = (url: string, env: NodeJS.ProcessEnv) =>
  join(pointersDirectory(env), `${createHash('sha256').update(url).digest('hex')}.json`);

/** Records the launch's local ships; returns the token file's path. */
export function recordLocalShips(
  dataDirectory: string,
  ships: LocalShip[],
  env: NodeJS.ProcessEnv = process.env,
): string {
  const file = join(dataDirectory, LOCAL_SHIPS_FILE);
  writeFileAtomicSync(file, `${JSON.stringify({ ships }, null, 2)}\n`);
  const pointers = pointersDirectory(env);
  mkdirSync(pointers, { recursive: true, mode: 0o700 });
  chmodSync(pointers, 0o700);
  for (const ship of ships)
    writeFileAtomicSync(pointerFor(ship.url, env), `${JSON.stringify({ url: ship.url, file })}\n`);
  return file;
}

/** The bridge token a local launch recorded for the ship at `url` (normalized), or null. */
export function localShipToken(url: string, env: NodeJS.ProcessEnv = process.env): string | null {
  try {
    const pointer = JSON.parse(readFileSync(pointerFor(url, env), 'utf8')) as { url?: unknown; file?: unknown };
    if (pointer.url !== url || typeof pointer.file !== 'string') return null;
    const { ships } = JSON.parse(readFileSync(pointer.file, 'utf8')) as { ships?: Array<Partial<LocalShip>> };
    const token = ships?.find((ship) => ship.url === url)?.bridgeToken;
    return typeof token === 'string' && token !== '' ? token : null;
  } catch {
    return null; // no launch recorded this ship, or its file is gone
  }
}

/** The token `svc client --url` presents: SVC_BRIDGE_TOKEN, else the local launch's, else none. */
export function directShipToken(url: string, env: NodeJS.ProcessEnv = process.env): string | null {
  return env.SVC_BRIDGE_TOKEN || localShipToken(url, env);
}
