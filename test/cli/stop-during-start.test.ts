// A supervisor may stop a server while it is still starting (a rollout replaced it, a health check gave up):
// `svc bridge` and `svc ship`, run as a container's entrypoint or a systemd unit runs them (the CLI itself, no
// npm in between: under `npx`, npm dies of the SIGTERM at once and a supervisor's SIGKILL follows), signalled
// by SIGTERM to their group in the middle of their start, finish starting, then stop as they would after any
// SIGTERM, and exit 0 (cli/run-until-signal.ts). Before, the handlers came after the start, and a signal
// during it killed the process by Node's default action: a bridge in the middle of making its store, a ship
// with its tmux server just started.
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tmuxSocketFor } from '../../ship/server.js';
import { Tmux } from '../../ship/sessions/tmux.js';
import { signalGroupOf } from '../helpers/process-group.js';
import { until } from '../helpers/poll.js';
import { freePort } from '../helpers/ports.js';
import { makeTempRoot, removeRoot } from '../helpers/ship.js';

const CLI = resolve(import.meta.dirname, '../../bin/svc.js');
let root: string;

/** `svc <args>` from the built CLI as the leader of its own process group; `exited` has its code or signal. */
function startSvc(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, SVC_LOG_LEVEL: 'info', SVC_BRIDGE_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | NodeJS.Signals>((resolveExit) =>
    child.on('exit', (code, signal) => resolveExit(code ?? signal!)),
  );
  return { exited, output: () => output, signalGroup: (signal: NodeJS.Signals) => void signalGroupOf(child, signal) };
}

beforeAll(async () => {
  root = realpathSync(await makeTempRoot());
});

afterAll(async () => {
  await removeRoot(root);
});

it('a bridge signalled while it makes its store finishes starting, stops, exits 0, and its store opens again', async () => {
  const data = join(root, 'bridge-data');
  const args = ['bridge', '--port', String(await freePort()), '--insecure-no-auth', '--data-directory', data];
  const bridge = startSvc(args);
  // The data directory exists once the start is under way (its store is copied and migrated after).
  await until(() => existsSync(data), 'the data directory', 30_000, 5);
  bridge.signalGroup('SIGTERM');
  expect(await bridge.exited, bridge.output()).toBe(0);
  expect(bridge.output()).toContain('bridge listening on');
  const again = startSvc(args);
  await until(
    () => again.output().includes('bridge listening on'),
    () => again.output(),
    30_000,
  );
  again.signalGroup('SIGTERM');
  expect(await again.exited).toBe(0);
}, 90_000);

it('a ship signalled while it starts finishes starting, stops, exits 0, and leaves no tmux server', async () => {
  const fleet = join(root, 'fleet');
  const ship = startSvc(['ship', '--port', String(await freePort()), '--name', 'early', '--fleet-directory', fleet]);
  await until(() => existsSync(fleet), 'the fleet directory', 30_000, 5);
  ship.signalGroup('SIGTERM');
  expect(await ship.exited, ship.output()).toBe(0);
  expect(ship.output()).toContain('ship stopping');
  // The root is a real path already (the fleet directory itself may be gone: nothing came into it).
  expect((await new Tmux(tmuxSocketFor(fleet)).run(['list-sessions'])).code).not.toBe(0);
}, 90_000);
