// The sweeper's timer under a fake clock (docs/security.md X10, DECISIONS "Timer"): a pass starts one
// interval after the previous one ended, a wall clock stepped back or forward an hour neither delays nor
// repeats one, a pass asked for while one runs shares it, and a pass that outlasts the interval is never
// overlapped. Real parts throughout: the store (PGlite in a temp directory), the ship registry with a real
// ship, the GitHub provider against the fake forge. Only setTimeout and Date are faked (the ship
// connection's heartbeat interval and the sockets' own timeouts stay real); the fake clock also advances
// with real time, so Octokit's zero-delay scheduling goes on by itself.
// Octokit's throttling (Bottleneck, one limiter per process) schedules requests by Date.now(): each test's
// fake clock starts where the previous one ended, so no test sees the wall clock go back unless it means to.
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GitHubProvider } from '../providers/github.js';
import { ShipRegistry } from '../ships/registry.js';
import { openStore, type Store } from '../store/store.js';
import { EphemeralRecords } from './ephemeral-records.js';
import { Sweeper } from './sweeper.js';
import { FakeGitHub } from '../../test/fakes/github.js';
import { makeRemote } from '../../test/helpers/git-fixtures.js';
import { call, makeTempRoot, removeRoot, startTestShip, type TestShip } from '../../test/helpers/ship.js';
import { until } from '../../test/helpers/poll.js';

const INTERVAL_MS = 60_000;
const HOUR_MS = 3_600_000;

let root: string;
let store: Store;
let records: EphemeralRecords;
let registry: ShipRegistry;
let ship: TestShip;
let fake: FakeGitHub;
let sweeper: Sweeper | undefined;
/** Where the next test's fake clock starts: never before the last one's end. */
let wallNow = Date.now();

function fakeClock(): void {
  vi.useFakeTimers({ now: wallNow, toFake: ['setTimeout', 'clearTimeout', 'Date'], shouldAdvanceTime: true });
}

/** Pull-request lists the forge has answered: one per pass here (one record, one branch). */
const pullLists = () => fake.requests.filter((request) => request.path.startsWith('/repos/acme/widget/pulls?')).length;

/** Waits until the forge has answered `passes` pull-request lists and that pass has ended (next one scheduled). */
async function passEnded(passes: number): Promise<void> {
  await until(() => pullLists() === passes, `pass ${passes} asked the forge`);
  await until(() => sweeper?.idle ?? true, `pass ${passes} ended`);
}

beforeAll(async () => {
  root = await makeTempRoot();
  const remote = makeRemote(root);
  ship = await startTestShip(root, { name: 'sweep-ship' });
  expect(
    (await call(ship.url, 'POST', '/workspaces', { url: remote.url, repoName: 'widget', name: 'w', branch: 'feature' }))
      .status,
  ).toBe(201);
  store = await openStore({ dataDirectory: join(root, 'bridge') });
  records = await EphemeralRecords.load(store.ephemeral);
  // No heartbeat within the test's fake hours: the connection must not be judged on jumped time.
  registry = new ShipRegistry(store.ships, { heartbeatMs: 24 * HOUR_MS });
  registry.useEphemeral(records);
  expect(await registry.register({ url: ship.url })).toMatchObject({ name: 'sweep-ship', status: 'online' });
  await store.repos.add({ name: 'widget', url: 'https://github.example/acme/widget.git', provider: 'github' });
  fake = await new FakeGitHub().start();
  // An open pull request for the branch: every pass asks once and destroys nothing.
  fake.addIssue({ title: 'Widget work' });
  fake.addPull({ title: 'Widget work', head: 'feature' });
  await records.begin({ repoName: 'widget', name: 'w', ship: 'sweep-ship', issueNumber: 1, branch: 'feature' });
  await records.confirm('widget', 'w');
}, 60_000);

afterEach(async () => {
  await sweeper?.stop(0);
  sweeper = undefined;
  wallNow = Math.max(wallNow, Date.now()) + 1_000;
  vi.useRealTimers();
});

afterAll(async () => {
  registry?.close();
  await store?.close();
  await fake?.stop();
  await ship?.stop();
  if (root) await removeRoot(root);
});

function newSweeper(intervalMs = INTERVAL_MS): Sweeper {
  // Retry and rate-limit waits in real seconds: the clock is fake, so a "30 s" wait costs nothing.
  const provider = new GitHubProvider({ baseUrl: fake.url });
  return new Sweeper({
    records,
    registry,
    repos: store.repos,
    providers: { github: provider },
    intervalMs,
    clock: () => Date.now(),
    log: { info: () => undefined, warn: () => undefined },
  });
}

describe('Sweeper timer under a fake clock (X10)', () => {
  it('passes start one interval after the last ended; a clock stepped forward an hour owes no pass; a pass asked for as the timer fires is shared', async () => {
    fakeClock();
    const base = pullLists();
    sweeper = newSweeper();
    sweeper.start();
    // A window, not a condition: no pass starts at start-up.
    await sleep(100);
    expect(pullLists()).toBe(base);

    // The first pass: one interval after start, not before.
    await vi.advanceTimersByTimeAsync(INTERVAL_MS - 1_000);
    // A window, not a condition: no pass is due yet, and none may start (real time for one to have begun).
    await sleep(50);
    expect(pullLists()).toBe(base);
    await vi.advanceTimersByTimeAsync(1_000);
    await passEnded(base + 1);

    // The wall clock steps forward an hour: no pass is owed for the hour that "passed".
    vi.setSystemTime(Date.now() + HOUR_MS);
    // A window, not a condition: the clock stepping forward must not start a pass.
    await sleep(100);
    expect(pullLists()).toBe(base + 1);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS - 1_000);
    // A window, not a condition: no pass is due yet, and none may start (real time for one to have begun).
    await sleep(50);
    expect(pullLists()).toBe(base + 1);
    await vi.advanceTimersByTimeAsync(1_000);
    await passEnded(base + 2);
    // A window, not a condition: no second pass follows the one that ended.
    await sleep(100);
    expect(pullLists()).toBe(base + 2);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS - 1_000);
    // A window, not a condition: no pass is due yet, and none may start (real time for one to have begun).
    await sleep(50);
    expect(pullLists()).toBe(base + 2);

    // A pass asked for just before the timer is due, held by the forge for 5 s (a secondary rate limit):
    // the timer fires during it and shares it (no forge call of its own), and the next pass comes an
    // interval after that shared pass ended.
    fake.injected.push(fake.secondaryRateLimit(5, '/pulls'));
    const manual = sweeper.sweep();
    expect(sweeper.sweep()).toBe(manual);
    await until(() => pullLists() === base + 3, 'the asked-for pass met the rate limit');
    await vi.advanceTimersByTimeAsync(1_000);
    // A window, not a condition: no pass is due yet, and none may start (real time for one to have begun).
    await sleep(50);
    expect(pullLists()).toBe(base + 3);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await manual).toEqual({ checked: 1, destroyed: 0, blocked: 0, skipped: 0, forgotten: 0 });
    await passEnded(base + 4);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS - 1_000);
    // A window, not a condition: no pass is due yet, and none may start (real time for one to have begun).
    await sleep(50);
    expect(pullLists()).toBe(base + 4);
    await vi.advanceTimersByTimeAsync(1_000);
    await passEnded(base + 5);
  }, 60_000);

  it('a pass that outlasts the interval is never overlapped; the next starts an interval after it ended', async () => {
    fakeClock();
    const interval = 20_000;
    const base = pullLists();
    sweeper = newSweeper(interval);
    sweeper.start();
    // The pass's pull-request list meets a secondary rate limit: retried after 50 s (the provider waits up
    // to 60 s), two and a half intervals.
    fake.injected.push(fake.secondaryRateLimit(50, '/pulls'));
    await vi.advanceTimersByTimeAsync(interval);
    await until(() => pullLists() === base + 1, 'the pass met the rate limit');
    const started = Date.now();
    for (let step = 0; step < 4; step++) {
      await vi.advanceTimersByTimeAsync(10_000);
      // Pacing: real time for the pass's forge calls between fake-clock steps.
      await sleep(20);
    }
    // 40 s into a 50 s wait: still one pass, its retry not yet sent.
    expect(pullLists()).toBe(base + 1);
    await vi.advanceTimersByTimeAsync(10_000);
    await passEnded(base + 2);
    const ended = Date.now();
    expect(ended - started).toBeGreaterThanOrEqual(50_000);
    // No pass was queued while it ran: nothing more until an interval after it ended.
    await vi.advanceTimersByTimeAsync(interval - 1_000);
    // A window, not a condition: no pass is due yet, and none may start (real time for one to have begun).
    await sleep(50);
    expect(pullLists()).toBe(base + 2);
    await vi.advanceTimersByTimeAsync(1_000);
    await passEnded(base + 3);
  }, 60_000);

  it('a wall clock stepped back an hour: the next pass still starts one interval after the last ended, and runs once', async () => {
    fakeClock();
    const base = pullLists();
    sweeper = newSweeper();
    sweeper.start();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    await passEnded(base + 1);
    // A record whose workspace the ship does not have: the pass forgets it before it asks the forge, so its
    // disappearance shows when a pass started.
    await records.begin({ repoName: 'widget', name: 'ghost', ship: 'sweep-ship', issueNumber: 1, branch: 'feature' });
    await records.confirm('widget', 'ghost');
    vi.setSystemTime(Date.now() - HOUR_MS);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS - 1_000);
    // A window, not a condition: the pass is not due yet, so the record must stay.
    await sleep(100);
    expect(records.get('widget', 'ghost')).not.toBeNull();
    await vi.advanceTimersByTimeAsync(1_000);
    await until(() => records.get('widget', 'ghost') === null, 'the pass after the step started on time');
    await passEnded(base + 2);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS - 1_000);
    // A window, not a condition: no pass is due yet, and none may start (real time for one to have begun).
    await sleep(100);
    expect(pullLists()).toBe(base + 2);
    await vi.advanceTimersByTimeAsync(1_000);
    await passEnded(base + 3);
  }, 60_000);

  // The provider once paced its requests by Date.now() (Octokit's throttling plugin), so a wall clock stepped
  // back an hour held every forge call for that hour; its request policy waits on monotonic timers now.
  it("a wall clock stepped back an hour does not delay the next pass's forge calls", async () => {
    fakeClock();
    const base = pullLists();
    sweeper = newSweeper();
    sweeper.start();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    await passEnded(base + 1);
    vi.setSystemTime(Date.now() - HOUR_MS);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    await until(() => pullLists() === base + 2, 'the pass after the step asked the forge', 3_000);
  }, 60_000);
});

describe('a forge answer about one record', () => {
  it("a deleted issue (404) skips only its own record; the repo's next record is still swept", async () => {
    // One record asked about at a time, the 404 first: a repo-wide failure would skip the next one too.
    for (const name of ['a-gone', 'b-done']) {
      expect(
        (
          await call(ship.url, 'POST', '/workspaces', {
            url: makeRemote(root, name).url,
            repoName: 'widget',
            name,
            branch: 'main',
          })
        ).status,
      ).toBe(201);
    }
    await records.begin({
      repoName: 'widget',
      name: 'a-gone',
      ship: 'sweep-ship',
      issueNumber: 50,
      branch: 'gone-branch',
    });
    await records.confirm('widget', 'a-gone');
    const done = fake.addIssue({ title: 'Done', state: 'closed' });
    await records.begin({
      repoName: 'widget',
      name: 'b-done',
      ship: 'sweep-ship',
      issueNumber: done.number,
      branch: 'done-branch',
    });
    await records.confirm('widget', 'b-done');
    const oneByOne = new Sweeper({
      records,
      registry,
      repos: store.repos,
      providers: { github: new GitHubProvider({ baseUrl: fake.url }) },
      intervalMs: 0,
      clock: () => Date.now(),
      log: { info: () => undefined, warn: () => undefined },
      forgeConcurrency: 1,
    });
    expect(await oneByOne.sweep()).toEqual({ checked: 3, destroyed: 1, blocked: 0, skipped: 1, forgotten: 0 });
    expect(records.get('widget', 'a-gone')).toMatchObject({ cleanup: 'watching' });
    expect(records.get('widget', 'b-done')).toBeNull();
    expect((await call(ship.url, 'GET', '/workspaces/widget/b-done')).status).toBe(404);
  });
});
