// The common set-up of ship suites: a temp root, a remote fixture and a ship started on it before the
// suite, all taken down after it.
import { afterAll, beforeAll } from 'vitest';
import type { ShipOptions } from '../../ship/server.js';
import { makeRemote, type RemoteFixture } from './git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from './ship.js';

export interface ShipFixture {
  root: string;
  remote: RemoteFixture;
  ship: TestShip;
}

/** `active`: workspaces of `repo` (on `main`) created and activated before the suite. */
export function shipFixture(
  options: Partial<ShipOptions> = {},
  active?: { repo: string; names: string[] },
): ShipFixture {
  const fixture = {} as ShipFixture;
  beforeAll(async () => {
    fixture.root = await makeTempRoot();
    fixture.remote = makeRemote(fixture.root);
    fixture.ship = await startTestShip(fixture.root, options);
    for (const name of active?.names ?? []) {
      const repo = active!.repo;
      await call(fixture.ship.url, 'POST', '/workspaces', {
        url: fixture.remote.url,
        repoName: repo,
        name,
        branch: 'main',
      });
      await call(fixture.ship.url, 'POST', path(repo, name, '/activate'));
    }
  });
  afterAll(async () => {
    await fixture.ship?.stop();
    if (fixture.root) await removeRoot(fixture.root);
  });
  return fixture;
}
