// Agent status routes (docs/architecture.md §8), the event stream's buffered replay over a real socket, and
// GET /system-resources.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { connectEvents } from '../helpers/events.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { offRule, openTapped } from '../helpers/deflate-socket.js';
import WebSocket from 'ws';

let root: string;
let remote: RemoteFixture;
let ship: TestShip;
let gate: { promise: Promise<void>; release: () => void } | null = null;

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  ship = await startTestShip(root, {
    beforeSnapshot: async () => {
      if (gate) await gate.promise;
    },
  });
  await call(ship.url, 'POST', '/workspaces', { url: remote.url, repoName: 'ag', name: 'one', branch: 'main' });
});
afterAll(async () => {
  await ship.stop();
  await removeRoot(root);
});

const init = { model: 'claude-x', provider: 'anthropic', harness: 'claude-code' };

describe('agent status', () => {
  it('needs an active workspace for init, and an initialized agent for updates', async () => {
    expect(await call(ship.url, 'POST', path('ag', 'one', '/agent/init'), init)).toMatchObject({
      status: 400,
      body: { error: 'workspace not active: ag/one' },
    });
    await call(ship.url, 'POST', path('ag', 'one', '/activate'));
    expect(
      await call(ship.url, 'POST', path('ag', 'one', '/agent/status'), { state: 'building', description: 'x' }),
    ).toMatchObject({
      status: 400,
      body: { error: 'agent not initialized: ag/one' },
    });
    const status = await call(ship.url, 'GET', path('ag', 'one', '/agent/status'));
    expect(status.status).toBe(200);
    expect(status.body).toBeNull();
  });

  it('init seeds idle and fixes model/provider/harness; updates keep them; both emit agent_status_changed', async () => {
    const events = await connectEvents(ship.url);
    await events.waitFor(1);
    const created = await call(ship.url, 'POST', path('ag', 'one', '/agent/init'), init);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ state: 'idle', ...init });
    expect(created.body.description).toMatch(/^Created session at \d{4}-\d\d-\d\dT/);

    const updated = await call(ship.url, 'POST', path('ag', 'one', '/agent/status'), {
      state: 'verifying',
      description: 'running tests',
    });
    expect(updated.body).toEqual({ state: 'verifying', description: 'running tests', ...init });
    expect((await call(ship.url, 'GET', path('ag', 'one', '/agent/status'))).body).toEqual(updated.body);
    expect((await call(ship.url, 'GET', path('ag', 'one'))).body.agent).toEqual(updated.body);
    expect((await call(ship.url, 'GET', '/workspaces')).body.find((w: any) => w.name === 'one').agent).toEqual(
      updated.body,
    );

    const [, first, second] = await events.waitFor(3);
    expect(first).toMatchObject({ type: 'workspace.agent_status_changed', workspace: { agent: { state: 'idle' } } });
    expect(second).toMatchObject({
      type: 'workspace.agent_status_changed',
      workspace: { agent: { state: 'verifying' } },
    });
    await events.close();
  });

  it('rejects unknown states and missing fields with 422', async () => {
    expect(
      (await call(ship.url, 'POST', path('ag', 'one', '/agent/status'), { state: 'sleeping', description: '' })).status,
    ).toBe(422);
    expect((await call(ship.url, 'POST', path('ag', 'one', '/agent/init'), { model: 'm' })).status).toBe(422);
  });

  it('deactivation drops the status', async () => {
    await call(ship.url, 'POST', path('ag', 'one', '/deactivate'));
    expect((await call(ship.url, 'GET', path('ag', 'one', '/agent/status'))).body).toBeNull();
  });
});

describe('event stream', () => {
  it('holds events raised while the snapshot is built and replays them right after sync, none lost', async () => {
    let release!: () => void;
    gate = { promise: new Promise<void>((resolve) => (release = resolve)), release: () => release() };
    const events = await connectEvents(ship.url);
    await call(ship.url, 'POST', '/workspaces', { url: remote.url, repoName: 'ag', name: 'during', branch: 'main' });
    await call(ship.url, 'POST', path('ag', 'during', '/activate'));
    // A window, not a condition: no event may arrive for a workspace created before the subscription.
    await new Promise((r) => setTimeout(r, 50));
    expect(events.events).toEqual([]);
    gate = null;
    release();
    const [sync, created, activated] = await events.waitFor(3);
    expect(sync.type).toBe('sync');
    expect(created).toMatchObject({ type: 'workspace.created', workspace: { name: 'during' } });
    expect(activated).toMatchObject({ type: 'workspace.activated', workspace: { name: 'during', active: true } });
    await call(ship.url, 'POST', path('ag', 'during', '/deactivate'));
    const [, , , deactivated] = await events.waitFor(4);
    expect(deactivated.type).toBe('workspace.deactivated');
    expect(deactivated).not.toHaveProperty('reason');
    await events.close();
  });

  it('ignores whatever a client sends', async () => {
    const events = await connectEvents(ship.url);
    await events.waitFor(1);
    events.socket.send('{"type":"hello"}');
    events.socket.send('not json');
    await call(ship.url, 'POST', path('ag', 'one', '/activate'));
    const [, activated] = await events.waitFor(2);
    expect(activated.type).toBe('workspace.activated');
    await events.close();
  });
});

describe('event stream with and without permessage-deflate (issue #18)', () => {
  for (const deflate of [false, true]) {
    it(`${deflate ? 'offered: negotiated, and' : 'not offered: not negotiated, and'} a large event comes ${deflate ? 'compressed' : 'as it is'}, small ones as they are, both intact`, async () => {
      const name = `dz-${deflate}`;
      await call(ship.url, 'POST', '/workspaces', { url: remote.url, repoName: 'ag', name, branch: 'main' });
      await call(ship.url, 'POST', path('ag', name, '/activate'));
      await call(ship.url, 'POST', path('ag', name, '/agent/init'), init);
      const events = await openTapped(`${ship.url.replace(/^http/, 'ws')}/events`, { deflate });
      if (deflate) expect(events.extensionsHeader).toMatch(/^permessage-deflate\b/);
      else expect(events.extensionsHeader).toBeUndefined();
      await events.waitFor((text) => text.startsWith('{"type":"sync"'));
      // A description of 4,000 characters makes one event well over the bar; a short one stays under it.
      const long = Array.from({ length: 400 }, (_, i) => `step ${String(i).padStart(4, '0')}`)
        .join(' ')
        .slice(0, 4000);
      for (const description of [long, 'short']) {
        expect(
          (await call(ship.url, 'POST', path('ag', name, '/agent/status'), { state: 'building', description })).status,
        ).toBe(200);
      }
      const ofState = (description: string) =>
        events.waitFor(
          (text) =>
            text.includes('agent_status_changed') && JSON.parse(text).workspace.agent?.description === description,
        );
      const [large, small] = [await ofState(long), await ofState('short')];
      expect(JSON.parse(events.texts[large]!).workspace).toMatchObject({
        name,
        agent: { state: 'building', description: long, ...init },
      });
      expect(events.wire[large]!.compressed).toBe(deflate);
      expect(events.texts[small]!.length).toBeLessThan(1024);
      expect(events.wire[small]!.compressed).toBe(false);
      expect(offRule(events, deflate)).toEqual([]);
      await events.close();
      await call(ship.url, 'POST', path('ag', name, '/deactivate'));
    });
  }
});

describe('event stream with and without permessage-deflate (issue #18), any offer', () => {
  it('accepts an offer that limits the server window (9 bits) or context takeover: deflate is negotiated whenever offered', async () => {
    for (const offer of [
      { serverMaxWindowBits: 9 },
      { serverNoContextTakeover: true, clientNoContextTakeover: true },
      { clientMaxWindowBits: 10 },
    ]) {
      const socket = new WebSocket(`${ship.url.replace(/^http/, 'ws')}/events`, { perMessageDeflate: offer });
      const first = new Promise<string>((resolve) => socket.once('message', (data) => resolve(data.toString())));
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      expect(socket.extensions, JSON.stringify(offer)).toMatch(/^permessage-deflate/);
      expect(JSON.parse(await first).type).toBe('sync');
      socket.close();
    }
  });
});

describe('GET /system-resources', () => {
  it('reports the host in the SystemResources shape', async () => {
    const started = Date.now();
    const reply = await call(ship.url, 'GET', '/system-resources');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(reply.status).toBe(200);
    const r = reply.body;
    expect(Object.keys(r).sort()).toEqual(['cpu', 'memory', 'os', 'uptimeSeconds']);
    expect(Object.keys(r.os).sort()).toEqual(['arch', 'hostname', 'machine', 'platform', 'release', 'type', 'version']);
    expect(r.cpu.cores).toBeGreaterThan(0);
    expect(r.cpu.usage).toBeGreaterThanOrEqual(0);
    expect(r.cpu.usage).toBeLessThanOrEqual(1);
    expect(r.cpu.loadAverage).toHaveLength(3);
    expect(r.memory.used).toBe(r.memory.total - r.memory.free);
    expect(r.memory.usage).toBeCloseTo(r.memory.used / r.memory.total, 10);
    expect(typeof r.cpu.model).toBe('string');
  });
});
