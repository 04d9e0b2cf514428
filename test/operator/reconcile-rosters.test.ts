// The bridge load of registering and refreshing Ships (issue #19, "steady-state bridge load"): the roster
// reads the real bridge serves, counted from the bridge's own request log. GET /ships is kept between
// reconciles (maxAge 60 s here, so nothing expires during the test: no timing) and updated from each
// registration's and removal's answer, so N Ships registered one after another — the order a work queue
// of concurrency 1 runs them in, the worst case for a shared read — cost one GET /ships, not N; so do
// their refreshes and their deletion. Repos the same with GET /repos.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  condition,
  hasPostgres,
  NAMESPACE,
  repoObject,
  shipObject,
  startHarness,
  type Harness,
} from './reconcile-harness.js';

let h: Harness;
const NAMES = ['r1', 'r2', 'r3', 'r4'];
const key = (name: string) => ({ namespace: NAMESPACE, name });

/** How many `<method> <url>` requests the bridge has answered, from its request log. */
function served(method: string, url: string): number {
  return h.bridgeLogs.filter((line) => {
    const entry = JSON.parse(line) as { msg?: string; req?: { method?: string; url?: string } };
    return entry.msg === 'request completed' && entry.req?.method === method && entry.req.url === url;
  }).length;
}

describe.skipIf(!hasPostgres)('the bridge load of the rosters', () => {
  beforeAll(async () => {
    h = await startHarness({ reconcile: { rosterMaxAgeMs: 60_000 } });
  }, 60_000);

  afterAll(async () => {
    await h?.close();
  });

  it('N Ships registered one after another, refreshed, then deleted: one GET /ships in all, N POSTs, N DELETEs', async () => {
    for (const name of NAMES) {
      const ship = await h.startShip(name);
      h.fake.create(shipObject(name, { url: ship.url, auth: { mode: 'None' } }));
    }
    const before = served('GET', '/ships');
    for (const name of NAMES) {
      await h.ships.reconcile(key(name)); // finalizer, roster, POST, status
      expect(condition(h.ship(name), 'Ready')).toMatchObject({ status: 'True', reason: 'Online' });
    }
    expect(served('POST', '/ships')).toBe(NAMES.length);
    // Each registration went into the kept roster: the next Ship saw it there without asking the bridge.
    expect(served('GET', '/ships') - before).toBe(1);

    // A refresh round reads the kept roster, which holds every registration.
    for (const name of NAMES) expect(await h.ships.reconcile(key(name))).toEqual({ requeueAfterMs: 30_000 });
    expect(served('GET', '/ships') - before).toBe(1);
    for (const name of NAMES) expect(h.ship(name)!.status).toMatchObject({ shipName: name, bridgeStatus: 'online' });

    for (const name of NAMES) {
      await h.kube.custom.deleteNamespacedCustomObject({
        group: 'svc.dev',
        version: 'v1alpha1',
        plural: 'ships',
        namespace: NAMESPACE,
        name,
      });
      await h.ships.reconcile(key(name));
      expect(h.ship(name)).toBeUndefined();
    }
    expect(served('DELETE', '/ships/r1')).toBe(1);
    expect((await h.asAdmin('GET', '/ships')).body).toEqual([]);
    // The test's own GET just now is the only other one.
    expect(served('GET', '/ships') - before).toBe(2);
  });

  it('N Repos registered one after another and refreshed: one GET /repos', async () => {
    const before = served('GET', '/repos');
    for (const name of NAMES) {
      h.fake.create(repoObject(name, { url: `https://example.com/${name}.git` }));
      await h.repos.reconcile(key(name));
      expect(condition(h.repo(name), 'Ready')).toMatchObject({ status: 'True', reason: 'Registered' });
    }
    for (const name of NAMES) await h.repos.reconcile(key(name));
    expect(served('POST', '/repos')).toBe(NAMES.length);
    expect(served('GET', '/repos') - before).toBe(1);
  });
});
