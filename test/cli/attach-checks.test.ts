// Issue #15 item 2: `svc client attach` at a real terminal (a pty) against `npx svc bridge` and `npx svc ship`
// (set up over HTTP only). An inactive or missing workspace is said in one line before the alternate screen
// is ever entered (it used to flash and exit 1 in silence); a shell that exits while attached has its exit
// code printed once the screen is back, and passed on as svc's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote } from '../helpers/git-fixtures.js';
import { ptyCli } from '../helpers/cli.js';
import { startNpxFleet, type NpxFleet } from '../helpers/npx-fleet.js';
import { screenText } from '../helpers/screen.js';
import { call, makeTempRoot, path, removeRoot } from '../helpers/ship.js';
import { until } from '../helpers/poll.js';

let root: string;
let fleet: NpxFleet;

beforeAll(async () => {
  root = await makeTempRoot();
  fleet = await startNpxFleet(root, 'attachship', { app: makeRemote(root).url });
  for (const name of ['idle', 'live']) {
    expect(
      (await asAdmin('POST', '/workspaces', { ship: 'attachship', repoName: 'app', name, branch: 'main' })).status,
    ).toBe(201);
  }
  expect((await asAdmin('POST', path('app', 'live', '/activate'))).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
  await removeRoot(root);
});

function asAdmin(method: string, target: string, body?: unknown) {
  return call(fleet.bridgeUrl, method, target, body, { authorization: `Bearer ${fleet.token}` });
}

/** `svc client --bridge-url … attach app <name>` in a pty, run as `svc` (not under npm exec). */
const attach = (name: string) =>
  ptyCli(['client', '--bridge-url', fleet.bridgeUrl, 'attach', 'app', name], { ...fleet.env, npm_command: undefined });
const ALTERNATE_SCREEN = '\x1b[?1049h';

describe('svc client attach', () => {
  it('on an inactive workspace says how to activate it, without touching the screen', async () => {
    const cli = attach('idle');
    expect(await cli.exited).toBe(1);
    expect(await screenText(cli.output())).toBe(
      `svc: app/idle is not active; run \`svc client --bridge-url ${fleet.bridgeUrl} activate app idle\` first`,
    );
    expect(cli.output()).not.toContain(ALTERNATE_SCREEN);
  }, 30_000);

  it('on a missing workspace prints the 404, without touching the screen', async () => {
    const cli = attach('ghost');
    expect(await cli.exited).toBe(1);
    expect(await screenText(cli.output())).toBe('svc: request failed (404): workspace not found: app/ghost');
    expect(cli.output()).not.toContain(ALTERNATE_SCREEN);
  }, 30_000);

  it('prints the exit code of a shell that exits while attached, and exits with it', async () => {
    const cli = attach('live');
    await cli.waitFor(ALTERNATE_SCREEN);
    // The renderer draws cell by cell; the prompt is looked for on the screen it builds.
    let screen = '';
    const prompted = async () => {
      screen = await screenText(cli.output());
      return /[$#] ?$/m.test(screen);
    };
    await until(prompted, () => `a shell prompt; the screen showed:\n${screen}`, 15_000);
    cli.pty.write('exit 3\r');
    expect(await cli.exited).toBe(3);
    // Leaving the alternate screen drops what the shell drew; the user's own screen holds the one line.
    expect(await screenText(cli.output())).toBe('svc: the shell in app/live exited with code 3');
  }, 30_000);
});
