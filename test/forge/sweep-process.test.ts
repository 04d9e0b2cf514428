// The ephemeral cleanup as a user runs it: `npx svc bridge --sweep-interval-ms 500` as a process (GitHub
// through SVC_GITHUB_API_URL = the fake forge backed by a real bare repo), a real ship, and a `/events`
// subscriber offering permessage-deflate as a browser does. Over HTTP and WebSocket only: an ephemeral create
// carries its record on the answer and on the event stream; the bridge is stopped the way a supervisor stops
// it (SIGTERM to the group, then SIGKILL) and started again on its data directory with the record intact;
// then the issue closes on the forge and the bridge's own timer (no POST /workspaces/sweep) deletes the
// workspace on the ship and says so on the stream.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../fakes/github.js';
import { connectEvents, type EventClient } from '../helpers/events.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { cloneHome, startBackedForge, useHome } from '../helpers/github-clone.js';
import { bridgeUrlIn, startNpx, type NpxProcess } from '../helpers/npx.js';
import { until } from '../helpers/poll.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';

const TOKEN = 'ghp_sweep_process_token_97531';
const GITHUB_URL = 'https://github.example/acme/widget.git';
let root: string;
let fake: FakeGitHub;
let ship: TestShip;
let bridge: NpxProcess | undefined;
let bridgeUrl: string;
let events: EventClient | undefined;
let restoreHome: (() => void) | undefined;

async function startBridgeProcess(): Promise<void> {
  bridge = startNpx(
    [
      'bridge',
      '--port',
      '0',
      '--data-directory',
      join(root, 'bridge'),
      '--insecure-no-auth',
      '--sweep-interval-ms',
      '500',
    ],
    {
      SVC_GITHUB_API_URL: fake.url,
      SVC_GITHUB_TOKEN: TOKEN,
      SVC_LOG_LEVEL: 'info',
    },
  );
  bridgeUrl = bridgeUrlIn(await bridge.waitFor(/bridge listening on http:\/\/localhost:\d+/));
}

const shipOnline = () =>
  until(
    async () => ((await call(bridgeUrl, 'GET', '/ships')).body as Array<{ status: string }>)[0]?.status === 'online',
    'the ship online',
    15_000,
  );
const sync = (test: (workspaces: Array<{ name: string; ephemeral: unknown }>) => boolean) =>
  until(
    async () => events!.events.find((event) => event.type === 'sync' && test(event.workspaces)) ?? null,
    'a sync event',
    15_000,
  );

beforeAll(async () => {
  root = await makeTempRoot();
  const remote = makeRemote(root);
  restoreHome = useHome(cloneHome(root, remote.bare, GITHUB_URL));
  fake = await startBackedForge(remote.bare, TOKEN);
  ship = await startTestShip(root, { name: 'sweep-ship' });
  await startBridgeProcess();
  expect((await call(bridgeUrl, 'POST', '/ships', { url: ship.url })).status).toBe(201);
  expect(
    (await call(bridgeUrl, 'POST', '/repos', { name: 'widget', url: GITHUB_URL, provider: 'github' })).status,
  ).toBe(201);
}, 90_000);

afterAll(async () => {
  await events?.close();
  await bridge?.terminateThenKill();
  await ship?.stop();
  await fake?.stop();
  restoreHome?.();
  if (root) await removeRoot(root);
});

describe('ephemeral cleanup in a `svc bridge` process', () => {
  it('records survive SIGTERM-then-SIGKILL; the timer deletes the workspace once its issue closes; a deflate subscriber sees both', async () => {
    events = await connectEvents(bridgeUrl);
    expect(events.socket.extensions).toContain('permessage-deflate');
    const issue = fake.addIssue({ title: 'Fix the login page' });
    const created = await call(bridgeUrl, 'POST', '/workspaces', {
      ship: 'sweep-ship',
      repoName: 'widget',
      name: 'fix',
      issueNumber: issue.number,
      ephemeral: true,
    });
    const record = {
      issueNumber: issue.number,
      branch: `${issue.number}-fix-the-login-page`,
      cleanup: 'watching',
      blockedReason: null,
      blockedAt: null,
      pullRequest: null,
    };
    expect(created).toMatchObject({ status: 201, body: { name: 'fix', branch: record.branch, ephemeral: record } });
    await sync((workspaces) =>
      workspaces.some((w) => w.name === 'fix' && JSON.stringify(w.ephemeral) === JSON.stringify(record)),
    );
    await events.close();

    // Stopped as a supervisor stops it, started again on its data directory: the record is as it was.
    await bridge!.terminateThenKill();
    await startBridgeProcess();
    await shipOnline();
    expect((await call(bridgeUrl, 'GET', path('widget', 'fix'))).body.ephemeral).toEqual(record);
    events = await connectEvents(bridgeUrl);
    expect(events.socket.extensions).toContain('permessage-deflate');

    // The issue closes with no pull request: the bridge's own timer deletes the workspace.
    issue.state = 'closed';
    await until(
      async () => (await call(ship.url, 'GET', path('widget', 'fix'))).status === 404,
      'the workspace deleted on the ship by a timed sweep',
      15_000,
    );
    await sync((workspaces) => !workspaces.some((w) => w.name === 'fix'));
    expect((await call(bridgeUrl, 'GET', path('widget', 'fix'))).status).toBe(404);
    // An info line: the bridge writes its log in batches, within 100 ms (server/logger.ts).
    await bridge!.waitFor('sweep destroyed widget/fix', 5000);
  }, 90_000);
});
