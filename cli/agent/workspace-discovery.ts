// Where `svc agent mcp-config` runs: the workspace `<fleet>/<repo>/<name>` that holds the working directory
// (a subdirectory is fine) and the port of its ship, both found on disk with nothing configured. The
// workspace is the nearest directory, walking up, that has a `.git` entry and whose grandparent holds the
// discovery file (ship/discovery.ts); the `.git` test keeps a repository's own `atlas.json` from matching.
// The endpoint's base is this host's port from the discovery file (a local ship that came back on another
// port is found there), unless the session's SVC_SHIP_URL names a host other than `localhost` (the ship's
// default, http://localhost:<port>): a ship started with --session-url (its sessions in a session holder) is
// reached at the address it names, which may be any address of the node, loopback ones included.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DISCOVERY_FILE_NAME } from '../../protocol/config.js';
import { workspacePath } from '../../protocol/workspace-path.js';
import { messageOf } from '../../protocol/thrown.js';

export interface WorkspaceLocation {
  /** Real path of the workspace directory. */
  dir: string;
  fleet: string;
  repo: string;
  name: string;
  port: number;
  /** The workspace's MCP endpoint as its session reaches the ship. */
  mcpUrl: string;
}

export function mcpPath(repo: string, name: string): string {
  return workspacePath(repo, name, '/mcp');
}

export function findWorkspace(cwd: string, shipUrl?: string): WorkspaceLocation {
  const start = realpathSync(cwd);
  for (let dir = start; dirname(dir) !== dir; dir = dirname(dir)) {
    const fleet = dirname(dirname(dir));
    const discovery = join(fleet, DISCOVERY_FILE_NAME);
    if (!existsSync(join(dir, '.git')) || !existsSync(discovery)) continue;
    const port = readPort(discovery);
    const repo = basename(dirname(dir));
    const name = basename(dir);
    const base = shipUrl && isExplicit(shipUrl) ? shipUrl.replace(/\/+$/, '') : `http://localhost:${port}`;
    return { dir, fleet, repo, name, port, mcpUrl: `${base}${mcpPath(repo, name)}` };
  }
  throw new Error(
    `not inside a workspace: no directory from ${start} up is <fleet>/<repo>/<name> with ${DISCOVERY_FILE_NAME} in <fleet>; run this in a workspace's session`,
  );
}

/** Whether `url` is an http(s) URL a ship was told to give its sessions (not its default `localhost` one). */
function isExplicit(url: string): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    return /^https?:$/.test(protocol) && hostname !== 'localhost';
  } catch {
    return false;
  }
}

function readPort(file: string): number {
  let port: unknown;
  try {
    port = (JSON.parse(readFileSync(file, 'utf8')) as { port?: unknown }).port;
  } catch (error) {
    throw new Error(`cannot read ${file}: ${messageOf(error)}`);
  }
  if (!Number.isInteger(port) || (port as number) <= 0 || (port as number) > 65535)
    throw new Error(`${file} names no port: is the ship running?`);
  return port as number;
}
