// Ship-side truth about a working agent (issue #16), with a real ship and real tmux and a tiny stale time:
// building with no pane output goes stale with exactly one event; pane output or a new report clears it
// with exactly one; idle and awaiting never go stale; the shell's exit clears the status.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sessionName } from '../../ship/sessions/session-names.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { connectEvents, type EventClient } from '../helpers/events.js';
import { until } from '../helpers/poll.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';

const STALE_MS = 400; // the poll follows: every 133 ms

let root: string;
let ship: TestShip;
let events: EventClient;

beforeAll(async () => {
  root = await makeTempRoot();
  const remote = makeRemote(root);
  ship = await startTestShip(root, { agentStaleMs: STALE_MS });
  await call(ship.url, 'POST', '/workspaces', { url: remote.url, repoName: 'st', name: 'one', branch: 'main' });
  await call(ship.url, 'POST', path('st', 'one', '/activate'));
  await call(ship.url, 'POST', path('st', 'one', '/agent/init'), { model: 'm', provider: 'p', harness: 'h' });
  events = await connectEvents(ship.url);
  await events.waitFor(1); // the snapshot
});
afterAll(async () => {
  await events?.close();
  await ship?.stop();
  await removeRoot(root);
});

const agentEvents = () => events.events.filter((event) => event.type === 'workspace.agent_status_changed');
const report = (state: string, description: string) =>
  call(ship.url, 'POST', path('st', 'one', '/agent/status'), { state, description });
const typeInPane = (keys: string) =>
  ship.ship.tmux.run(['send-keys', '-t', `=${sessionName('st', 'one')}:`, keys, 'Enter']);

async function nextAgentEvent(count: number): Promise<any> {
  const got = () => `${count} agent events, got ${JSON.stringify(agentEvents())}`;
  await until(() => agentEvents().length >= count, got, 10_000, 20);
  return agentEvents()[count - 1].workspace.agent;
}

it('building goes stale without output, once; output clears it, once; a report clears it, once', async () => {
  expect((await report('building', 'compiling')).body.stale).toBeUndefined();
  expect(await nextAgentEvent(1)).toMatchObject({ state: 'building', description: 'compiling' });

  const stale = await nextAgentEvent(2);
  expect(stale).toMatchObject({ state: 'building', description: 'compiling', stale: true });
  expect(Date.parse(stale.quietSince)).toBeGreaterThan(0);
  expect((await call(ship.url, 'GET', path('st', 'one'))).body.agent).toEqual(stale);
  expect((await call(ship.url, 'GET', path('st', 'one', '/agent/status'))).body).toEqual(stale);
  // Many polls later: still one event. (Also past tmux's whole-second activity mark, so the output below
  // lands in a new second.)
  await sleep(1100);
  expect(agentEvents()).toHaveLength(2);

  await typeInPane('echo still working');
  const fresh = await nextAgentEvent(3);
  expect(fresh).toEqual({ state: 'building', description: 'compiling', model: 'm', provider: 'p', harness: 'h' });
  expect(agentEvents()[2].workspace.agent.stale).toBeUndefined();

  // Quiet again: stale again; then a report clears it with its own one event.
  expect(await nextAgentEvent(4)).toMatchObject({ stale: true });
  const reported = await report('verifying', 'running tests');
  expect(reported.body).toEqual({
    state: 'verifying',
    description: 'running tests',
    model: 'm',
    provider: 'p',
    harness: 'h',
  });
  expect(await nextAgentEvent(5)).toEqual(reported.body);
  // Whatever follows is the next staleness, never a second event for the report.
  expect(await nextAgentEvent(6)).toMatchObject({ state: 'verifying', stale: true });
});

it('idle and awaiting never go stale; awaiting carries the question', async () => {
  const before = agentEvents().length;
  expect((await report('idle', 'done')).body.stale).toBeUndefined();
  // A window, not a condition: three staleness periods in which idle must not go stale.
  await sleep(3 * STALE_MS);
  const question = 'Push to main or open a pull request?';
  expect((await report('awaiting', question)).body).toMatchObject({ state: 'awaiting', description: question });
  // A window, not a condition: three staleness periods in which awaiting must not go stale.
  await sleep(3 * STALE_MS);
  expect(
    agentEvents()
      .slice(before)
      .map((event) => event.workspace.agent),
  ).toEqual([
    expect.objectContaining({ state: 'idle', description: 'done' }),
    expect.objectContaining({ state: 'awaiting', description: question }),
  ]);
  expect(
    agentEvents()
      .slice(before)
      .every((event) => event.workspace.agent.stale === undefined),
  ).toBe(true);
  expect((await call(ship.url, 'GET', path('st', 'one'))).body.agent).toMatchObject({
    state: 'awaiting',
    description: question,
  });
});

it("the shell's exit clears the status and the workspace is inactive", async () => {
  await report('building', 'about to exit');
  await typeInPane('exit');
  const deactivated = await until(
    () => events.events.find((event) => event.type === 'workspace.deactivated'),
    'a deactivated event',
    10_000,
    20,
  );
  expect(deactivated.workspace).toMatchObject({ active: false, agent: null });
  expect((await call(ship.url, 'GET', path('st', 'one', '/agent/status'))).body).toBeNull();
});
