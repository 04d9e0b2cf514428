// A change event through real processes, as clients connect: `npx svc ship` → `npx svc bridge` → `/events`
// subscribers of both, each offering permessage-deflate or not. The bus encodes an event once and the bridge
// builds each broadcast frame once for all its subscribers (broadcast-frame.ts); every subscriber must still
// get the same event, with deflate negotiated exactly where it was offered. The fleet is stopped the way a
// supervisor stops it: SIGTERM to each group, then SIGKILL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectEvents, type EventClient } from '../helpers/events.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { startNpxFleet, type NpxFleet } from '../helpers/npx-fleet.js';
import { call, makeTempRoot, path, removeRoot } from '../helpers/ship.js';

let root: string;
let fleet: NpxFleet | undefined;

beforeAll(async () => {
  root = await makeTempRoot();
  fleet = await startNpxFleet(root, 'events-ship', { app: makeRemote(root).url });
}, 120_000);
afterAll(async () => {
  await fleet?.stop();
  if (root) await removeRoot(root);
});

describe('change events through `svc` processes', () => {
  it('reach every bridge and ship subscriber alike, compressed or not as each offered', async () => {
    const { bridgeUrl, shipUrl, token } = fleet!;
    const auth = { authorization: `Bearer ${token}` };
    expect(
      (
        await call(
          bridgeUrl,
          'POST',
          '/workspaces',
          { ship: 'events-ship', repoName: 'app', name: 'w1', branch: 'main' },
          auth,
        )
      ).status,
    ).toBe(201);
    expect((await call(bridgeUrl, 'POST', path('app', 'w1', '/activate'), undefined, auth)).status).toBe(200);

    const subscribers: Array<{ where: string; deflate: boolean; client: EventClient }> = [];
    for (const deflate of [false, true]) {
      const { ticket } = (await call(bridgeUrl, 'POST', '/auth/ws-ticket', undefined, auth)).body as { ticket: string };
      subscribers.push({
        where: 'bridge',
        deflate,
        client: await connectEvents(bridgeUrl, {}, { query: `?ticket=${ticket}`, perMessageDeflate: deflate }),
      });
      subscribers.push({
        where: 'ship',
        deflate,
        client: await connectEvents(shipUrl, {}, { perMessageDeflate: deflate }),
      });
    }
    try {
      for (const { client } of subscribers) await client.waitFor(1);
      for (const { deflate, client } of subscribers)
        expect(client.socket.extensions.includes('permessage-deflate')).toBe(deflate);

      expect(
        (await call(shipUrl, 'POST', path('app', 'w1', '/agent/init'), { model: 'm', provider: 'p', harness: 'h' }))
          .status,
      ).toBe(200);
      expect(
        (
          await call(shipUrl, 'POST', path('app', 'w1', '/agent/status'), {
            state: 'building',
            description: 'seen by all four',
          })
        ).status,
      ).toBe(200);
      const building = (client: EventClient) =>
        client.events.find(
          (event) =>
            event.type === 'workspace.agent_status_changed' &&
            event.workspace.agent?.description === 'seen by all four',
        );
      await expect
        .poll(() => subscribers.filter(({ client }) => building(client) !== undefined).length, { timeout: 10_000 })
        .toBe(subscribers.length);

      const agent = { state: 'building', description: 'seen by all four', model: 'm', provider: 'p', harness: 'h' };
      for (const { where, client } of subscribers) {
        const event = building(client);
        expect(event.workspace).toMatchObject({ repoName: 'app', name: 'w1', active: true, agent });
        // The ship's stream names the ship at the top; the bridge's names it on the workspace.
        if (where === 'ship') expect(event.ship).toBe('events-ship');
        else expect([event.ship, event.workspace.ship]).toEqual([undefined, 'events-ship']);
      }
    } finally {
      for (const { client } of subscribers) await client.close();
    }
  }, 60_000);
});
