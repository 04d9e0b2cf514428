// The Repo reconciler end to end (issue #19) against the fake Kubernetes API and a real bridge on
// PostgreSQL: register under spec.name or metadata.name, adopt an equal registration, replace a different
// one (Replaced event), follow spec changes, refuse a name another Repo holds, report the bridge's refusal,
// deregister on delete per policy, and wait for a bridge that is down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINALIZER } from '../../operator/resources/index.js';
import { MERGE_PATCH } from '../../operator/kube/clients.js';
import {
  condition,
  hasPostgres,
  NAMESPACE,
  reconcileUntil,
  repoObject,
  startHarness,
  type Harness,
} from './reconcile-harness.js';

let h: Harness;
const key = (name: string) => ({ namespace: NAMESPACE, name });
const ready = (name: string) => condition(h.repo(name), 'Ready');
const bridgeRepos = async () =>
  (await h.asAdmin('GET', '/repos')).body as { name: string; url: string; provider: string }[];
const repoCalls = (method: string, path: string) =>
  h.bridgeLogs.filter((line) => line.includes(`"method":"${method}","url":"${path}"`)).length;
const repos = { group: 'svc.dev', version: 'v1alpha1', plural: 'repos', namespace: NAMESPACE };

describe.skipIf(!hasPostgres)('Repo reconciler against a real bridge', () => {
  beforeAll(async () => {
    h = await startHarness();
  }, 60_000);

  afterAll(async () => {
    await h?.close();
  });

  it('registers under metadata.name (provider defaults to custom) and under spec.name when set', async () => {
    h.fake.create(repoObject('app', { url: 'https://example.com/app.git' }));
    h.fake.create(
      repoObject('app-main', { name: 'App_Main', url: 'https://example.com/main.git', provider: 'github' }),
    );
    expect(await h.repos.reconcile(key('app'))).toEqual({ requeueAfterMs: 30_000 });
    await h.repos.reconcile(key('app-main'));
    expect(h.repo('app')!.metadata.finalizers).toEqual([FINALIZER]);
    expect(h.repo('app')!.status).toMatchObject({
      repoName: 'app',
      registeredURL: 'https://example.com/app.git',
      provider: 'custom',
      observedGeneration: 1,
    });
    expect(condition(h.repo('app'), 'Registered')).toMatchObject({
      status: 'True',
      reason: 'Registered',
      observedGeneration: 1,
    });
    expect(ready('app')).toMatchObject({ status: 'True', reason: 'Registered' });
    expect(h.repo('app-main')!.status).toMatchObject({ repoName: 'App_Main', provider: 'github' });
    expect(await bridgeRepos()).toEqual(
      [
        { name: 'App_Main', url: 'https://example.com/main.git', provider: 'github' },
        { name: 'app', url: 'https://example.com/app.git', provider: 'custom' },
      ].sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
    expect(h.events('app').map((event) => event.reason)).toEqual(['Registered']);
    // Idempotent: nothing written, nothing registered again.
    const version = h.repo('app')!.metadata.resourceVersion;
    const posts = repoCalls('POST', '/repos');
    await h.repos.reconcile(key('app'));
    expect(h.repo('app')!.metadata.resourceVersion).toBe(version);
    expect(repoCalls('POST', '/repos')).toBe(posts);
  });

  it('adopts an equal registration and replaces a different one (Replaced event)', async () => {
    expect((await h.asAdmin('POST', '/repos', { name: 'pre', url: 'https://example.com/pre.git' })).status).toBe(201);
    expect((await h.asAdmin('POST', '/repos', { name: 'legacy', url: 'https://example.com/old.git' })).status).toBe(
      201,
    );
    h.fake.create(repoObject('pre', { url: 'https://example.com/pre.git' }));
    h.fake.create(repoObject('legacy', { url: 'https://example.com/new.git', provider: 'github' }));
    await h.repos.reconcile(key('pre'));
    await h.repos.reconcile(key('legacy'));
    expect(h.events('pre').map((event) => event.reason)).toEqual(['Adopted']);
    expect(repoCalls('DELETE', '/repos/pre')).toBe(0);
    expect(ready('legacy')!.status).toBe('True');
    const replaced = h.events('legacy').find((event) => event.reason === 'Replaced');
    expect(replaced?.message).toBe(
      'repo legacy was registered with url https://example.com/old.git and provider custom; deregistered it to register url https://example.com/new.git and provider github',
    );
    expect((await bridgeRepos()).find((repo) => repo.name === 'legacy')).toEqual({
      name: 'legacy',
      url: 'https://example.com/new.git',
      provider: 'github',
    });
  });

  it('follows a spec change (new url): replaced in the bridge, generation observed', async () => {
    await h.kube.custom.patchNamespacedCustomObject(
      { ...repos, name: 'app', body: { spec: { url: 'https://example.com/app-v2.git' } } },
      MERGE_PATCH,
    );
    await h.repos.reconcile(key('app'));
    expect(h.repo('app')!.status).toMatchObject({
      registeredURL: 'https://example.com/app-v2.git',
      observedGeneration: 2,
    });
    expect(ready('app')).toMatchObject({ status: 'True', observedGeneration: 2 });
    expect((await bridgeRepos()).find((repo) => repo.name === 'app')!.url).toBe('https://example.com/app-v2.git');
  });

  it("a name another Repo holds is NameConflict, and the holder's registration is untouched", async () => {
    h.fake.create(repoObject('app-copy', { name: 'app', url: 'https://example.com/elsewhere.git' }));
    await h.repos.reconcile(key('app-copy'));
    expect(ready('app-copy')).toMatchObject({
      status: 'False',
      reason: 'NameConflict',
      message: `repo name app is held by Repo ${NAMESPACE}/app; this Repo does not take it over`,
    });
    expect((await bridgeRepos()).find((repo) => repo.name === 'app')!.url).toBe('https://example.com/app-v2.git');
    expect(h.repo('app-copy')!.status!.repoName).toBeUndefined();
  });

  it("a URL the bridge refuses is RegistrationRefused with the bridge's message", async () => {
    h.fake.create(repoObject('hostile', { url: 'ext::sh -c touch% /tmp/x' }));
    await h.repos.reconcile(key('hostile'));
    expect(ready('hostile')).toMatchObject({ status: 'False', reason: 'RegistrationRefused' });
    expect(ready('hostile')!.message).toMatch(/^the bridge refused the registration \(400\): invalid repo/);
    expect((await bridgeRepos()).map((repo) => repo.name)).not.toContain('hostile');
  });

  it('deletion: Deregister removes it from the bridge; Orphan leaves it; a bridge 404 lets go; a down bridge holds the finalizer', async () => {
    await h.kube.custom.deleteNamespacedCustomObject({ ...repos, name: 'app' });
    await h.repos.reconcile(key('app'));
    expect(h.repo('app')).toBeUndefined();
    expect((await bridgeRepos()).map((repo) => repo.name)).not.toContain('app');

    await h.kube.custom.patchNamespacedCustomObject(
      { ...repos, name: 'pre', body: { spec: { deletionPolicy: 'Orphan' } } },
      MERGE_PATCH,
    );
    await h.kube.custom.deleteNamespacedCustomObject({ ...repos, name: 'pre' });
    await h.repos.reconcile(key('pre'));
    expect(h.repo('pre')).toBeUndefined();
    expect((await bridgeRepos()).map((repo) => repo.name)).toContain('pre');

    expect((await h.asAdmin('DELETE', '/repos/legacy')).status).toBe(200);
    await h.kube.custom.deleteNamespacedCustomObject({ ...repos, name: 'legacy' });
    await h.repos.reconcile(key('legacy'));
    expect(h.repo('legacy')).toBeUndefined();

    // The holder is gone: the Repo that conflicted takes the name on its next reconcile.
    await reconcileUntil(h.repos, 'app-copy', () => ready('app-copy')?.status === 'True', 'app-copy registered');
    expect((await bridgeRepos()).find((repo) => repo.name === 'app')!.url).toBe('https://example.com/elsewhere.git');

    await h.stopBridge();
    await h.kube.custom.deleteNamespacedCustomObject({ ...repos, name: 'app-main' });
    expect(await h.repos.reconcile(key('app-main'))).toEqual({ requeueAfterMs: 10_000 });
    expect(h.repo('app-main')!.metadata.finalizers).toEqual([FINALIZER]);
    expect(ready('app-main')).toMatchObject({ status: 'False', reason: 'BridgeUnavailable' });
    expect(ready('app-main')!.message).toMatch(
      /^deletion waits for the bridge to deregister this repo: cannot reach the bridge/,
    );
    await h.startBridgeAgain();
    await reconcileUntil(
      h.repos,
      'app-main',
      () => h.repo('app-main') === undefined,
      'app-main deleted once the bridge is back',
    );
    expect((await bridgeRepos()).map((repo) => repo.name)).not.toContain('App_Main');
  });
});
