// The armory between real processes: `svc bridge` and `svc ship` from the built CLI, over HTTP. A dotfile
// map entry whose source is missing from `dotfiles/` keeps the manifest served and the ship syncing: the
// ship installs the other dotfiles and reports the missing one as a warning. A malformed map (unsafe source,
// relative destination, a value that is not a string) is still the spec's 400 naming each offending entry.
import { lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';
import { killFleetTmux, startCli, startShipCli, type RunningCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { putArmoryFile } from '../helpers/armory.js';
import { until } from '../helpers/poll.js';

let root: string;
const running: RunningCli[] = [];

beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  for (const cli of running) await cli.stop('SIGTERM');
  await killFleetTmux(join(root, 'fleet'));
  await removeRoot(root);
});

describe('armory between bridge and ship processes', () => {
  it('serves a map with a missing dotfile and the ship warns about it; a malformed map is still 400', async () => {
    const data = join(root, 'bridge-data');
    const armory = join(data, 'armory');
    putArmoryFile(armory, 'dotfiles/bashrc', 'export FROM_ARMORY=1\n');
    putArmoryFile(armory, 'dotfiles/vimrc', 'set number\n');
    putArmoryFile(armory, 'skills/review/SKILL.md', '# review\n');
    const map = { bashrc: '~/.bashrc', vimrc: '~/.vimrc', gone: '~/.gone' };
    writeFileSync(join(armory, 'dotfile-map.json'), JSON.stringify(map));

    const bridge = startCli(['bridge', '--port', '0', '--insecure-no-auth', '--data-directory', data], {
      SVC_BRIDGE_TOKEN: '',
    });
    running.push(bridge);
    const listening = /bridge listening on (http:\/\/localhost:\d+)/;
    await bridge.waitFor(listening, 30_000);
    const bridgeUrl = listening.exec(bridge.output())![1]!;

    const manifest = await call(bridgeUrl, 'GET', '/armory');
    expect(manifest.status).toBe(200);
    expect(manifest.body.dotfileMap).toEqual(map);
    expect(manifest.body.entries.map((e: { path: string }) => e.path)).toEqual([
      'dotfiles/bashrc',
      'dotfiles/vimrc',
      'skills/review/SKILL.md',
    ]);

    const home = join(root, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const port = await freePort();
    const ship = await startShipCli(join(root, 'fleet'), port, 'armory-p', { HOME: home });
    running.push(ship);
    const shipUrl = `http://localhost:${port}`;
    expect((await call(bridgeUrl, 'POST', '/ships', { url: shipUrl })).status).toBe(201);

    // The registration push: the ship pulls, installs, and answers its state on its own GET /armory.
    const state = (
      await until(
        async () => {
          const reply = await call(shipUrl, 'GET', '/armory');
          return reply.body?.revision === manifest.body.revision && reply;
        },
        'the ship to sync',
        15_000,
      )
    ).body;
    expect(state).toMatchObject({
      fileCount: 3,
      lastError: null,
      install: { skillCount: 1, dotfileCount: 2, conflicts: [] },
    });
    expect(state.install.warnings).toEqual(['dotfile gone → ~/.gone skipped: dotfiles/gone is not in the armory']);
    expect(lstatSync(join(home, '.bashrc')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('export FROM_ARMORY=1\n');
    expect(readFileSync(join(home, '.vimrc'), 'utf8')).toBe('set number\n');
    expect(lstatSync(join(home, '.gone'), { throwIfNoEntry: false })).toBeUndefined();

    // Malformed: the whole manifest is refused, every offending entry named; the ship keeps what it has.
    writeFileSync(
      join(armory, 'dotfile-map.json'),
      JSON.stringify({ bashrc: '~/.bashrc', '../x': '~/.x', y: 'etc/x', z: 5 }),
    );
    const refused = await until(
      async () => {
        const reply = await call(bridgeUrl, 'GET', '/armory');
        return reply.status !== 200 && reply;
      },
      'the bridge to reread the map',
      15_000,
    );
    expect(refused.status).toBe(400);
    expect((refused.body.error as string).split('\n')).toEqual([
      `invalid ${armory}/dotfile-map.json:`,
      '  "../x": source: ".." in path',
      '  "y": destination must start with ~/ or /',
      '  "z": destination must be a string',
    ]);
    expect((await call(shipUrl, 'GET', '/armory')).body).toMatchObject({
      revision: manifest.body.revision,
      lastError: null,
    });
  }, 90_000);
});
