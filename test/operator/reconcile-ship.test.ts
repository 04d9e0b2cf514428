// The Ship reconciler end to end (issue #19): the fake Kubernetes API server, a real authenticating bridge
// on PostgreSQL and real ships. Reconciles are driven by key, as the runtime's work queue would call them.
// The tests share one world and run in order: alpha is registered, taken offline, moved, raced for, and
// finally deleted; other Ships cover the auth modes, the name rules and the bridge going away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINALIZER } from '../../operator/resources/index.js';
import { call, type TestShip } from '../helpers/ship.js';
import { freePort } from '../helpers/ports.js';
import { until } from '../helpers/poll.js';
import { pino } from 'pino';
import { MERGE_PATCH } from '../../operator/kube/clients.js';
import { reconcileDeps, ShipReconciler } from '../../operator/reconcile/index.js';
import {
  ADMIN,
  condition,
  directCache,
  hasPostgres,
  NAMESPACE,
  reconcileUntil,
  shipObject,
  startHarness,
  type Harness,
} from './reconcile-harness.js';

let h: Harness;
let alpha: TestShip;
let alphaPort: number;
const key = (name: string) => ({ namespace: NAMESPACE, name });
/** Every token a test handled: none may appear in a status, an event or a log line. */
const tokens = new Set<string>();

const ready = (name: string) => condition(h.ship(name), 'Ready');
const registered = (name: string) => condition(h.ship(name), 'Registered');
const bridgeShips = async () =>
  (await h.asAdmin('GET', '/ships')).body as { name: string; url: string; status: string }[];

describe.skipIf(!hasPostgres)('Ship reconciler against a real bridge and real ships', () => {
  beforeAll(async () => {
    h = await startHarness();
  }, 60_000);

  afterAll(async () => {
    await h?.close();
  });

  it('Generated: finalizer and a <name>-tokens Secret first; once the ship runs with that pair it is Registered and Ready', async () => {
    alphaPort = await freePort();
    const url = `http://127.0.0.1:${alphaPort}`;
    h.fake.create(shipObject('alpha', { url }));
    // Nothing listens at the URL yet: the Secret is made, the registration fails as ShipUnreachable.
    const first = await h.ships.reconcile(key('alpha'));
    expect(first).toEqual({ requeueAfterMs: 15_000 });
    const ship = h.ship('alpha')!;
    expect(ship.metadata.finalizers).toEqual([FINALIZER]);
    expect(ready('alpha')).toMatchObject({ status: 'False', reason: 'ShipUnreachable', observedGeneration: 1 });
    expect(ready('alpha')!.message).toContain(`ship at ${url} did not respond`);
    const secret = h.secret('alpha-tokens')!;
    expect(secret.type).toBe('Opaque');
    expect(secret.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Ship', name: 'alpha', uid: ship.metadata.uid, controller: true }),
    ]);
    const pair = h.tokensIn('alpha-tokens');
    expect(pair.shipToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pair.bridgeToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pair.shipToken).not.toBe(pair.bridgeToken);
    tokens.add(pair.shipToken).add(pair.bridgeToken);

    // The ship pod starts with the Secret's pair (SVC_SHIP_TOKEN / SVC_BRIDGE_TOKEN).
    alpha = await h.startShip('alpha', { port: alphaPort, ...pair });
    await reconcileUntil(h.ships, 'alpha', () => ready('alpha')?.status === 'True', 'alpha Ready');
    const status = h.ship('alpha')!.status!;
    expect(status).toMatchObject({
      shipName: 'alpha',
      registeredURL: url,
      bridgeStatus: 'online',
      tokenSecretName: 'alpha-tokens',
      observedGeneration: 1,
    });
    expect(registered('alpha')).toMatchObject({ status: 'True', reason: 'Registered', observedGeneration: 1 });
    expect(ready('alpha')).toMatchObject({ status: 'True', reason: 'Online' });
    expect(h.events('alpha').map((event) => event.reason)).toEqual(
      expect.arrayContaining(['ShipUnreachable', 'Registered']),
    );
    expect(await bridgeShips()).toEqual([{ name: 'alpha', url, status: 'online' }]);
  });

  it('the registered tokens work: a call routed through the bridge reaches the ship, and the ship pulls the armory with its ship token', async () => {
    const routed = await h.asAdmin('GET', '/ships/alpha/system-resources');
    expect(routed.status).toBe(200);
    expect(routed.body).toHaveProperty('cpu');
    const pair = h.tokensIn('alpha-tokens');
    // The ship token is what the ship presents to the bridge for the armory.
    expect(
      (await call(h.bridgeUrl, 'GET', '/armory', undefined, { authorization: `Bearer ${pair.shipToken}` })).status,
    ).toBe(200);
    // The bridge pushed at registration; the ship pulled with SVC_SHIP_TOKEN and installed without error.
    const state = await until(
      () => {
        const current = alpha.ship.armory.state();
        return current.revision ? current : null;
      },
      'the ship to sync the armory',
      15_000,
    );
    expect(state.lastError).toBeNull();
    // The bridge token is what the bridge presents to the ship; the ship refuses calls without it.
    expect((await call(alpha.url, 'GET', '/workspaces')).status).toBe(401);
    expect(
      (await call(alpha.url, 'GET', '/workspaces', undefined, { authorization: `Bearer ${pair.bridgeToken}` })).status,
    ).toBe(200);
  });

  it('is idempotent: more reconciles write nothing, regenerate nothing, and requeue every 30 s', async () => {
    const before = h.ship('alpha')!;
    const secret = h.secret('alpha-tokens')!;
    const eventCount = h.events('alpha').length;
    for (let i = 0; i < 3; i++) expect(await h.ships.reconcile(key('alpha'))).toEqual({ requeueAfterMs: 30_000 });
    expect(h.ship('alpha')!.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(h.secret('alpha-tokens')!.metadata.resourceVersion).toBe(secret.metadata.resourceVersion);
    expect(h.secret('alpha-tokens')!.data).toEqual(secret.data);
    expect(h.events('alpha')).toHaveLength(eventCount);
    // Status lost (e.g. restored from a backup without it): adopted again, the same Secret kept.
    h.fake.writeStatus('svc.dev/v1alpha1', 'Ship', 'alpha', null);
    await h.ships.reconcile(key('alpha'));
    expect(h.ship('alpha')!.status).toMatchObject({ shipName: 'alpha', bridgeStatus: 'online' });
    expect(h.secret('alpha-tokens')!.data).toEqual(secret.data);
    expect((await bridgeShips()).filter((ship) => ship.name === 'alpha')).toHaveLength(1);
  });

  it('ship stopped → Offline; started again → Online; Registered never flips, so its transition time stays', async () => {
    const registeredAt = registered('alpha')!.lastTransitionTime;
    const readyAt = ready('alpha')!.lastTransitionTime;
    await alpha.stopShipOnly();
    await reconcileUntil(h.ships, 'alpha', () => ready('alpha')?.reason === 'Offline', 'alpha Offline');
    expect(h.ship('alpha')!.status).toMatchObject({ bridgeStatus: 'offline', shipName: 'alpha' });
    expect(ready('alpha')).toMatchObject({ status: 'False', reason: 'Offline' });
    h.clock.now += 5_000;
    alpha = await h.startShip('alpha', { port: alphaPort, ...h.tokensIn('alpha-tokens') });
    await reconcileUntil(h.ships, 'alpha', () => ready('alpha')?.reason === 'Online', 'alpha Online again');
    expect(h.ship('alpha')!.status!.bridgeStatus).toBe('online');
    expect(registered('alpha')!.lastTransitionTime).toBe(registeredAt);
    expect(ready('alpha')!.lastTransitionTime >= readyAt).toBe(true);
  });

  it('Secret mode: a pair the ship refuses is TokensInvalid, one key alone is TokensInvalid, the right pair registers', async () => {
    const right = {
      shipToken: 'beta-ship-token-0123456789abcdefghijklmnopqrst',
      bridgeToken: 'beta-bridge-token-0123456789abcdefghijklmnopqr',
    };
    const wrong = {
      shipToken: 'beta-wrong-ship-0123456789abcdefghijklmnopqrst',
      bridgeToken: 'beta-wrong-bridge-0123456789abcdefghijklmnopq',
    };
    for (const value of [...Object.values(right), ...Object.values(wrong)]) tokens.add(value);
    const beta = await h.startShip('beta', right);
    const secret = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'beta-creds', namespace: NAMESPACE },
      type: 'Opaque',
      stringData: data,
    });
    h.fake.create(secret(wrong));
    h.fake.create(
      shipObject('beta', {
        url: `http://127.0.0.1:${beta.ship.port}`,
        auth: { mode: 'Secret', secretRef: { name: 'beta-creds' } },
      }),
    );
    await h.ships.reconcile(key('beta'));
    expect(ready('beta')).toMatchObject({ status: 'False', reason: 'TokensInvalid' });
    expect(registered('beta')).toMatchObject({ status: 'False', reason: 'TokensInvalid' });
    expect(ready('beta')!.message).toContain('refused the bridge token');
    expect(h.ship('beta')!.status!.tokenSecretName).toBe('beta-creds');
    expect(h.secret('beta-tokens')).toBeUndefined();

    h.fake.remove('v1', 'Secret', 'beta-creds');
    h.fake.create(secret({ shipToken: right.shipToken }));
    await h.ships.reconcile(key('beta'));
    expect(ready('beta')).toMatchObject({ status: 'False', reason: 'TokensInvalid' });
    expect(ready('beta')!.message).toContain('only one of shipToken and bridgeToken');

    h.fake.remove('v1', 'Secret', 'beta-creds');
    await h.ships.reconcile(key('beta'));
    expect(ready('beta')!.message).toBe('Secret beta-creds not found');

    h.fake.create(secret(right));
    await reconcileUntil(h.ships, 'beta', () => ready('beta')?.status === 'True', 'beta Ready');
    expect(h.ship('beta')!.status).toMatchObject({ shipName: 'beta', tokenSecretName: 'beta-creds' });
    // The operator never writes a user's Secret.
    expect(h.secret('beta-creds')!.metadata.ownerReferences).toBeUndefined();
  });

  it('spec.auth pointing at another Secret re-registers with its pair (TokensChanged event)', async () => {
    const pair = h.tokensIn('beta-creds');
    h.fake.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'beta-creds-2', namespace: NAMESPACE },
      type: 'Opaque',
      stringData: pair,
    });
    const { MERGE_PATCH } = await import('../../operator/kube/clients.js');
    await h.kube.custom.patchNamespacedCustomObject(
      {
        group: 'svc.dev',
        version: 'v1alpha1',
        plural: 'ships',
        namespace: NAMESPACE,
        name: 'beta',
        body: { spec: { auth: { mode: 'Secret', secretRef: { name: 'beta-creds-2' } } } },
      },
      MERGE_PATCH,
    );
    await reconcileUntil(
      h.ships,
      'beta',
      () => h.ship('beta')!.status?.tokenSecretName === 'beta-creds-2' && ready('beta')?.status === 'True',
      'beta re-registered with beta-creds-2',
    );
    expect(h.events('beta').find((event) => event.reason === 'TokensChanged')?.message).toBe(
      'ship beta was registered with the tokens of Secret beta-creds; deregistered it to register with Secret beta-creds-2',
    );
    expect((await bridgeShips()).filter((ship) => ship.name === 'beta')).toHaveLength(1);
  });

  it('None: an open ship is registered without credentials; against a ship that requires a token it is TokensInvalid', async () => {
    const open = await h.startShip('open-one');
    h.fake.create(shipObject('open-one', { url: `http://127.0.0.1:${open.ship.port}`, auth: { mode: 'None' } }));
    await reconcileUntil(h.ships, 'open-one', () => ready('open-one')?.status === 'True', 'open-one Ready');
    expect(h.ship('open-one')!.status!.tokenSecretName).toBeUndefined();
    expect(h.secret('open-one-tokens')).toBeUndefined();

    const guarded = await h.startShip('guarded', {
      shipToken: 'guarded-ship-token-0123456789abcdefghijklmnop',
      bridgeToken: 'guarded-bridge-token-0123456789abcdefghijklm',
    });
    h.fake.create(shipObject('guarded', { url: `http://127.0.0.1:${guarded.ship.port}`, auth: { mode: 'None' } }));
    await h.ships.reconcile(key('guarded'));
    expect(ready('guarded')).toMatchObject({ status: 'False', reason: 'TokensInvalid' });
  });

  it('a changed URL re-registers (URLChanged event): the bridge lists the ship at the new URL once, generation observed', async () => {
    const oldUrl = `http://127.0.0.1:${alphaPort}`;
    await alpha.stopShipOnly();
    alphaPort = await freePort();
    const newUrl = `http://127.0.0.1:${alphaPort}`;
    alpha = await h.startShip('alpha', { port: alphaPort, ...h.tokensIn('alpha-tokens') });
    await h.kube.custom.patchNamespacedCustomObject(
      {
        group: 'svc.dev',
        version: 'v1alpha1',
        plural: 'ships',
        namespace: NAMESPACE,
        name: 'alpha',
        body: { spec: { url: newUrl } },
      },
      (await import('../../operator/kube/clients.js')).MERGE_PATCH,
    );
    expect(h.ship('alpha')!.metadata.generation).toBe(2);
    await reconcileUntil(
      h.ships,
      'alpha',
      () => h.ship('alpha')!.status!.registeredURL === newUrl && ready('alpha')?.status === 'True',
      'alpha at the new URL',
    );
    expect(h.ship('alpha')!.status).toMatchObject({ shipName: 'alpha', registeredURL: newUrl, observedGeneration: 2 });
    expect(ready('alpha')!.observedGeneration).toBe(2);
    const urlChanged = h.events('alpha').find((event) => event.reason === 'URLChanged');
    expect(urlChanged?.message).toContain(oldUrl);
    expect(urlChanged?.message).toContain(newUrl);
    expect((await bridgeShips()).filter((ship) => ship.name === 'alpha')).toEqual([
      { name: 'alpha', url: newUrl, status: 'online' },
    ]);
  });

  it('a name another Ship holds is never taken: same URL, or another ship reporting the same name → NameConflict', async () => {
    h.fake.create(shipObject('alpha-again', { url: `http://127.0.0.1:${alphaPort}` }));
    await h.ships.reconcile(key('alpha-again'));
    expect(ready('alpha-again')).toMatchObject({ status: 'False', reason: 'NameConflict' });
    expect(ready('alpha-again')!.message).toContain(`held by Ship ${NAMESPACE}/alpha`);
    expect(h.ship('alpha-again')!.status!.shipName).toBeUndefined();

    // Another (open) ship that also calls itself alpha: the bridge answers 409 for the name, which alpha holds.
    const openImpostor = await h.startShip('alpha');
    h.fake.create(
      shipObject('impostor', { url: `http://127.0.0.1:${openImpostor.ship.port}`, auth: { mode: 'None' } }),
    );
    await h.ships.reconcile(key('impostor'));
    expect(ready('impostor')).toMatchObject({ status: 'False', reason: 'NameConflict' });
    expect((await bridgeShips()).filter((ship) => ship.name === 'alpha')).toEqual([
      { name: 'alpha', url: `http://127.0.0.1:${alphaPort}`, status: 'online' },
    ]);
    // The holder keeps working throughout.
    expect(await h.ships.reconcile(key('alpha'))).toEqual({ requeueAfterMs: 30_000 });
    expect(ready('alpha')!.status).toBe('True');
    await openImpostor.stop();
  });

  it('expectedName: a ship reporting another name is not adopted (NameMismatch) and is not left registered', async () => {
    const other = await h.startShip('not-gamma');
    h.fake.create(
      shipObject('gamma', {
        url: `http://127.0.0.1:${other.ship.port}`,
        expectedName: 'gamma',
        auth: { mode: 'None' },
      }),
    );
    await h.ships.reconcile(key('gamma'));
    expect(registered('gamma')).toMatchObject({ status: 'False', reason: 'NameMismatch' });
    expect(ready('gamma')!.message).toContain('reports the name not-gamma, but spec.expectedName is gamma');
    expect(h.ship('gamma')!.status!.shipName).toBeUndefined();
    expect((await bridgeShips()).map((ship) => ship.name)).not.toContain('not-gamma');
    // Within the retry interval the ship is not probed again (no POST/DELETE churn every refresh).
    const shipPosts = () => h.bridgeLogs.filter((line) => line.includes('"method":"POST","url":"/ships"')).length;
    const posts = shipPosts();
    expect(posts).toBeGreaterThan(0);
    await h.ships.reconcile(key('gamma'));
    expect(shipPosts()).toBe(posts);
    expect(registered('gamma')!.reason).toBe('NameMismatch');
  });

  it("NameMismatch is probed again once nameMismatchRetryMs has passed on the operator's clock, and at once on a spec change; the right ship at that URL is then registered", async () => {
    const port = await freePort();
    let wrong = await h.startShip('not-delta', { port });
    h.fake.create(
      shipObject('delta', { url: `http://127.0.0.1:${port}`, expectedName: 'delta', auth: { mode: 'None' } }),
    );
    const probes = () => h.bridgeLogs.filter((line) => line.includes('"method":"POST","url":"/ships"')).length;
    await h.ships.reconcile(key('delta'));
    expect(registered('delta')).toMatchObject({ status: 'False', reason: 'NameMismatch' });
    let count = probes();

    // Not yet: 1 ms short of the interval.
    h.clock.now += 5 * 60_000 - 1;
    await h.ships.reconcile(key('delta'));
    expect(probes()).toBe(count);
    // The interval has passed: probed again (a POST), still the wrong name.
    h.clock.now += 1;
    await h.ships.reconcile(key('delta'));
    count += 1;
    expect(probes()).toBe(count);
    expect(ready('delta')!.message).toContain('reports the name not-delta');
    await h.ships.reconcile(key('delta'));
    expect(probes()).toBe(count);

    // A spec change (a new generation; the same ship, as the bridge compares URLs) is probed without waiting.
    await h.kube.custom.patchNamespacedCustomObject(
      {
        group: 'svc.dev',
        version: 'v1alpha1',
        plural: 'ships',
        namespace: NAMESPACE,
        name: 'delta',
        body: { spec: { url: `http://127.0.0.1:${port}/` } },
      },
      MERGE_PATCH,
    );
    await h.ships.reconcile(key('delta'));
    count += 1;
    expect(probes()).toBe(count);
    expect(registered('delta')).toMatchObject({ reason: 'NameMismatch', observedGeneration: 2 });

    // The right ship replaces the wrong one at that URL: seen at the next probe, not before.
    await wrong.stop();
    wrong = await h.startShip('delta', { port });
    await h.ships.reconcile(key('delta'));
    expect(probes()).toBe(count);
    expect(registered('delta')!.reason).toBe('NameMismatch');
    h.clock.now += 5 * 60_000;
    await h.ships.reconcile(key('delta'));
    expect(probes()).toBe(count + 1);
    expect(registered('delta')).toMatchObject({ status: 'True', reason: 'Registered' });
    expect(h.ship('delta')!.status).toMatchObject({ shipName: 'delta', bridgeStatus: 'online' });

    await h.kube.custom.deleteNamespacedCustomObject({
      group: 'svc.dev',
      version: 'v1alpha1',
      plural: 'ships',
      namespace: NAMESPACE,
      name: 'delta',
    });
    await reconcileUntil(h.ships, 'delta', () => h.ship('delta') === undefined, 'delta gone');
    expect((await bridgeShips()).map((ship) => ship.name)).not.toContain('delta');
  });

  it('wrong operator credentials against the real bridge: Ready=False BridgeUnauthorized with the registration kept, the password nowhere; the right ones converge again', async () => {
    const logs: string[] = [];
    const wrongPassword = 'not-the-operator-password-0123456789';
    const context = {
      cache: directCache(h.fake),
      kube: h.kube,
      log: pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) }),
      clock: () => h.clock.now,
      options: { bridgeUrl: h.bridgeUrl, namespace: NAMESPACE, daemonsetGraceMs: 600_000 },
      observeBridgeCall: () => {},
    };
    const locked = new ShipReconciler(
      reconcileDeps(context, { credentials: { kind: 'login', username: ADMIN.username, password: wrongPassword } }),
    );
    expect(await locked.reconcile(key('alpha'))).toEqual({ requeueAfterMs: 10_000 });
    expect(ready('alpha')).toMatchObject({ status: 'False', reason: 'BridgeUnauthorized' });
    expect(ready('alpha')!.message).toBe(
      `the bridge refused the operator's login as "${ADMIN.username}": invalid username or password`,
    );
    // What the bridge holds is unknown to a refused operator: nothing about the registration changes.
    expect(registered('alpha')).toMatchObject({ status: 'True', reason: 'Registered' });
    expect(h.ship('alpha')!.status).toMatchObject({ shipName: 'alpha', bridgeStatus: 'online' });
    expect(h.events('alpha')).toContainEqual(
      expect.objectContaining({ type: 'Warning', reason: 'BridgeUnauthorized' }),
    );
    for (const text of [
      logs.join(''),
      JSON.stringify(h.fake.list('svc.dev/v1alpha1', 'Ship')),
      JSON.stringify(h.fake.list('v1', 'Event')),
    ])
      expect(text).not.toContain(wrongPassword);
    expect((await bridgeShips()).filter((ship) => ship.name === 'alpha')).toHaveLength(1);

    await h.ships.reconcile(key('alpha'));
    expect(ready('alpha')).toMatchObject({ status: 'True', reason: 'Online' });
  });

  it('bridge down: Ready=False BridgeUnavailable with the registration kept; deletion waits with a clear condition; back up: everything converges, nothing registered twice', async () => {
    await h.stopBridge();
    await h.ships.reconcile(key('alpha'));
    expect(ready('alpha')).toMatchObject({ status: 'False', reason: 'BridgeUnavailable' });
    expect(ready('alpha')!.message).toMatch(
      /cannot reach the bridge at http:\/\/127\.0\.0\.1:\d+ \((ECONNREFUSED|UND_ERR_SOCKET)\)/,
    );
    expect(registered('alpha')).toMatchObject({ status: 'True', reason: 'Registered' });
    expect(h.ship('alpha')!.status!.shipName).toBe('alpha');

    await h.kube.custom.deleteNamespacedCustomObject({
      group: 'svc.dev',
      version: 'v1alpha1',
      plural: 'ships',
      namespace: NAMESPACE,
      name: 'beta',
    });
    expect(await h.ships.reconcile(key('beta'))).toEqual({ requeueAfterMs: 10_000 });
    expect(h.ship('beta')!.metadata.finalizers).toEqual([FINALIZER]);
    expect(ready('beta')).toMatchObject({ status: 'False', reason: 'BridgeUnavailable' });
    expect(ready('beta')!.message).toMatch(/^deletion waits for the bridge to deregister this ship: /);

    await h.startBridgeAgain();
    await reconcileUntil(
      h.ships,
      'alpha',
      () => ready('alpha')?.status === 'True',
      'alpha Ready after the bridge is back',
    );
    await reconcileUntil(h.ships, 'beta', () => h.ship('beta') === undefined, 'beta gone after the bridge is back');
    const roster = await bridgeShips();
    expect(roster.map((ship) => ship.name).sort()).toEqual(['alpha', 'open-one']);
  });

  it('deletion: Deregister removes the registration then the finalizer (Secret garbage-collected); Orphan and a bridge 404 let go at once', async () => {
    h.fake.create(
      shipObject('orphaned', {
        url: `http://127.0.0.1:${(await h.startShip('orphaned')).ship.port}`,
        auth: { mode: 'None' },
        deletionPolicy: 'Orphan',
      }),
    );
    await reconcileUntil(h.ships, 'orphaned', () => ready('orphaned')?.status === 'True', 'orphaned Ready');
    await h.kube.custom.deleteNamespacedCustomObject({
      group: 'svc.dev',
      version: 'v1alpha1',
      plural: 'ships',
      namespace: NAMESPACE,
      name: 'orphaned',
    });
    await h.ships.reconcile(key('orphaned'));
    expect(h.ship('orphaned')).toBeUndefined();
    expect((await bridgeShips()).map((ship) => ship.name)).toContain('orphaned');

    // Deregistered behind the operator's back: the bridge answers 404, the finalizer goes anyway.
    expect((await h.asAdmin('DELETE', '/ships/open-one')).status).toBe(200);
    await h.kube.custom.deleteNamespacedCustomObject({
      group: 'svc.dev',
      version: 'v1alpha1',
      plural: 'ships',
      namespace: NAMESPACE,
      name: 'open-one',
    });
    await h.ships.reconcile(key('open-one'));
    expect(h.ship('open-one')).toBeUndefined();

    await h.kube.custom.deleteNamespacedCustomObject({
      group: 'svc.dev',
      version: 'v1alpha1',
      plural: 'ships',
      namespace: NAMESPACE,
      name: 'alpha',
    });
    expect(h.ship('alpha')!.metadata.deletionTimestamp).toBeTruthy();
    await h.ships.reconcile(key('alpha'));
    expect(h.ship('alpha')).toBeUndefined();
    expect((await bridgeShips()).map((ship) => ship.name)).not.toContain('alpha');
    expect(h.events('alpha').map((event) => event.reason)).toContain('Deregistered');
    await until(() => !h.secret('alpha-tokens'), 'the Generated Secret to be garbage-collected', 10_000);
  });

  it('no token ever appears in a status, an event or a log line (operator and bridge)', () => {
    expect(tokens.size).toBeGreaterThanOrEqual(6);
    const statuses = JSON.stringify(h.fake.list('svc.dev/v1alpha1', 'Ship'));
    const events = JSON.stringify(h.fake.list('v1', 'Event'));
    const operatorLogs = h.operatorLogs.join('');
    const bridgeLogs = h.bridgeLogs.join('');
    expect(operatorLogs).toContain('"msg":"registered with the bridge"');
    for (const token of tokens) {
      expect(statuses).not.toContain(token);
      expect(events).not.toContain(token);
      expect(operatorLogs).not.toContain(token);
      expect(bridgeLogs).not.toContain(token);
    }
  });
});
