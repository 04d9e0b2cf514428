// Issue #15 item 3: a start that fails leaves nothing behind. `npx svc ship` and `npx svc bridge` on a port
// something else holds exit 1 at once with one line naming the address and what to do, before anything with
// a side effect: no fleet or data directory, no tmux server, no first admin (the bridge used to spend
// seconds creating one in a new data directory first; the ship left its tmux server running). Failures past
// the port (no tmux on PATH, no first admin to create) take down what they set up, directories included.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmuxSocketFor } from '../../ship/server.js';
import { runCli } from '../helpers/cli.js';
import { startNpx } from '../helpers/npx.js';
import { makeTempRoot, removeRoot, TEST_SESSION_COMMAND } from '../helpers/ship.js';

let root: string;
let holder: Server;
let busyPort: number;

beforeAll(async () => {
  root = realpathSync(await makeTempRoot());
  // Something else on the port, bound the way svc binds it (`localhost`).
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, 'localhost', resolve));
  busyPort = (holder.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => holder?.close(resolve));
  await removeRoot(root);
});

/** What `svc` printed, without npm's own warnings about the machine's npm configuration. */
const svcLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('npm warn'))
    .join('\n');
const BUSY = () =>
  `svc: cannot listen on localhost:${busyPort}: the port is in use; stop what listens there, or choose another with --port`;

/** Whether a tmux server answers on `socket` (this run's TMUX_TMPDIR, as the ship's would). */
function tmuxServerRunning(socket: string): boolean {
  try {
    execFileSync('tmux', ['-L', socket, 'list-sessions'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

const ADMIN_ENV = {
  SVC_BRIDGE_ADMIN_USER: 'firsthour',
  SVC_BRIDGE_ADMIN_EMAIL: 'firsthour@example.com',
  SVC_BRIDGE_ADMIN_PASSWORD: 'first-hour-password-1',
};

describe('a start that fails leaves nothing behind', () => {
  it('npx svc ship on a busy port exits 1 with one clear line, no fleet directory and no tmux server', async () => {
    const fleet = join(root, 'fleet-busy');
    const ship = startNpx(['ship', '--port', String(busyPort), '--name', 'busy', '--fleet-directory', fleet]);
    expect(await ship.exited).toBe(1);
    expect(svcLines(ship.output())).toBe(BUSY());
    expect(existsSync(fleet)).toBe(false);
    expect(tmuxServerRunning(tmuxSocketFor(fleet))).toBe(false);
  }, 60_000);

  it('npx svc bridge on a busy port exits 1 with one clear line before creating a data directory or an admin', async () => {
    const data = join(root, 'bridge-busy');
    const bridge = startNpx(['bridge', '--port', String(busyPort), '--data-directory', data], ADMIN_ENV);
    expect(await bridge.exited).toBe(1);
    expect(svcLines(bridge.output())).toBe(BUSY());
    expect(existsSync(data)).toBe(false);
  }, 60_000);

  it('a ship that fails past the port (no tmux on PATH) removes the fleet directory it created', async () => {
    const fleet = join(root, 'fleet-no-tmux');
    const emptyPath = join(root, 'empty-path');
    mkdirSync(emptyPath);
    const result = await runCli(['ship', '--port', '0', '--name', 'notmux', '--fleet-directory', fleet], {
      PATH: emptyPath,
      SVC_SESSION_COMMAND: TEST_SESSION_COMMAND,
      SVC_BRIDGE_TOKEN: '',
    });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: tmux was not found on PATH: the ship needs tmux (e.g. `apt-get install tmux`)\n',
    });
    expect(existsSync(fleet)).toBe(false);
  }, 60_000);

  it('a bridge that fails past the port (no first admin, no terminal) removes the data directory it created', async () => {
    const data = join(root, 'bridge-no-admin');
    const result = await runCli(['bridge', '--port', '0', '--data-directory', data], {}, 60_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'svc: the bridge has no users: set SVC_BRIDGE_ADMIN_USER, SVC_BRIDGE_ADMIN_EMAIL and SVC_BRIDGE_ADMIN_PASSWORD, start it at a terminal to be asked, or run with --insecure-no-auth\n',
    );
    expect(existsSync(data)).toBe(false);
  }, 90_000);
});
