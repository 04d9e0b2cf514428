// The common set-up of ship suites: a temp root, a remote fixture and a ship started on it before the
// suite, all taken down after it.
import { afterAll, beforeAll } from 'vitest';
import type { ShipOptions } from '../../ship/server.js';
import { makeRemote, type RemoteFixture } from './git-fixtures.js';
import { makeTempRoot, removeRoot, startTestShip, type TestShip } from './ship.js';

export interface ShipFixture {
  root: string;
  remote: RemoteFixture;
  ship: TestShip;
}

export function shipFixture(options: Partial<ShipOptions> = {}): ShipFixture {
  const fixture = {} as ShipFixture;
  beforeAll(async () => {
    fixture.root = await makeTempRoot();
    fixture.remote = makeRemote(fixture.root);
    fixture.ship = await startTestShip(fixture.root, options);
  });
  afterAll(async () => {
    await fixture.ship?.stop();
    if (fixture.root) await removeRoot(fixture.root);
  });
  return fixture;
}
