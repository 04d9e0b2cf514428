// The ship's word on a quiet agent reaches bridge clients unchanged (issue #16): a real ship with a tiny
// stale time behind a real bridge. When `building` goes stale, the bridge's `/events` carries the same
// `workspace.agent_status_changed` as the ship's own (stamped by the bridge, with the `ship` and `ephemeral`
// it adds to every workspace), `stale: true` and `quietSince` as the ship set them, and
// `GET /workspaces/:repo/:name` and `GET /workspaces` on the bridge answer the same agent; pane output clears
// both fields everywhere, with one event each way.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Bridge } from '../../bridge/server.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { startRoutedFleet, type RoutedFleet } from '../helpers/bridge.js';
import { connectEvents, type EventClient } from '../helpers/events.js';
import { until } from '../helpers/poll.js';
import { call, makeTempRoot, path, removeRoot, type TestShip } from '../helpers/ship.js';

const STALE_MS = 1500; // long enough that a read right after the output sees it cleared (the poll: every 500 ms)
const INIT = { model: 'm', provider: 'p', harness: 'h' };

let root: string;
let ship: TestShip;
let bridge: Bridge;
let fleet: RoutedFleet | undefined;
let shipEvents: EventClient;
let bridgeEvents: EventClient;

const agentEvents = (client: EventClient) =>
  client.events.filter((event) => event.type === 'workspace.agent_status_changed');

/** The `count`-th agent event on `client` (1-based), once it has arrived. */
async function nthAgentEvent(client: EventClient, count: number): Promise<any> {
  const got = () => `${count} agent events, got ${JSON.stringify(agentEvents(client))}`;
  await until(() => agentEvents(client).length >= count, got, 10_000, 20);
  return agentEvents(client)[count - 1];
}

/**
 * The ship's event as a bridge client gets it: stamped by the bridge, which moves `ship` onto the workspace
 * with `ephemeral`; the workspace, its agent status included, otherwise as the ship sent it.
 */
const asRouted = (event: any) => ({
  type: event.type,
  at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  workspace: { ...event.workspace, ship: 'quiet', ephemeral: null },
});

beforeAll(async () => {
  root = await makeTempRoot();
  fleet = await startRoutedFleet(root, 'app', { name: 'quiet', agentStaleMs: STALE_MS });
  ({ ship, bridge } = fleet);
  expect(
    (await call(bridge.url, 'POST', '/workspaces', { ship: 'quiet', repoName: 'app', name: 'w1', branch: 'main' }))
      .status,
  ).toBe(201);
  expect((await call(bridge.url, 'POST', path('app', 'w1', '/activate'))).status).toBe(200);
  shipEvents = await connectEvents(ship.url);
  bridgeEvents = await connectEvents(bridge.url);
  await Promise.all([shipEvents.waitFor(1), bridgeEvents.waitFor(1)]); // the snapshots
  // The agent reports to its ship, as it does over MCP.
  expect((await call(ship.url, 'POST', path('app', 'w1', '/agent/init'), INIT)).status).toBe(200);
  const init = await nthAgentEvent(shipEvents, 1);
  expect(await nthAgentEvent(bridgeEvents, 1)).toEqual(asRouted(init));
}, 60_000);
afterAll(async () => {
  await shipEvents?.close();
  await bridgeEvents?.close();
  await fleet?.close();
  if (root) await removeRoot(root);
});

it('stale and quietSince reach the bridge unchanged, in its events and its workspace reads; output clears them there too', async () => {
  expect(
    (await call(ship.url, 'POST', path('app', 'w1', '/agent/status'), { state: 'building', description: 'compiling' }))
      .status,
  ).toBe(200);
  const building = await nthAgentEvent(shipEvents, 2);
  expect(building.workspace.agent).toEqual({ ...INIT, state: 'building', description: 'compiling' });
  expect(await nthAgentEvent(bridgeEvents, 2)).toEqual(asRouted(building));

  const stale = await nthAgentEvent(shipEvents, 3);
  expect(stale.workspace.agent).toEqual({
    ...INIT,
    state: 'building',
    description: 'compiling',
    stale: true,
    quietSince: expect.any(String),
  });
  expect(Date.parse(stale.workspace.agent.quietSince)).toBeGreaterThan(Date.now() - 60_000);
  expect(await nthAgentEvent(bridgeEvents, 3)).toEqual(asRouted(stale));

  const single = await call(bridge.url, 'GET', path('app', 'w1'));
  expect(single.status).toBe(200);
  expect(single.body).toMatchObject({ repoName: 'app', name: 'w1', ship: 'quiet', state: 'active' });
  expect(single.body.agent).toEqual(stale.workspace.agent);
  const listed = (await call(bridge.url, 'GET', '/workspaces')).body as Array<{ name: string; agent: unknown }>;
  expect(listed.find((workspace) => workspace.name === 'w1')?.agent).toEqual(stale.workspace.agent);
  // Still one event each for the staleness, however many polls pass. (Also past tmux's whole-second
  // activity mark, so the output below lands in a new second.)
  await sleep(1100);
  expect([agentEvents(shipEvents).length, agentEvents(bridgeEvents).length]).toEqual([3, 3]);

  await ship.ship.tmux.run(['send-keys', '-t', `=${sessionName('app', 'w1')}:`, 'echo still working', 'Enter']);
  const fresh = await nthAgentEvent(shipEvents, 4);
  expect(fresh.workspace.agent).toEqual({ ...INIT, state: 'building', description: 'compiling' });
  expect(await nthAgentEvent(bridgeEvents, 4)).toEqual(asRouted(fresh));
  const cleared = (await call(bridge.url, 'GET', path('app', 'w1'))).body.agent;
  expect(cleared).toEqual(fresh.workspace.agent);
  expect(Object.keys(cleared).sort()).toEqual(['description', 'harness', 'model', 'provider', 'state']);
}, 60_000);
