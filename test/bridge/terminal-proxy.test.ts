// The bridge's terminal proxy against a real ship: frames both ways, the one-terminal guard released by the
// client's close, the proxy's own close codes, and exit 1 for unknown workspaces; and what the bridge
// compresses toward a client that offers permessage-deflate, on the terminal and on /events (issue #18).
import { insecureBridge } from './../helpers/bridge.js';
import { join } from 'node:path';
import { pino } from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { connectTerminal, terminalUrl } from '../helpers/terminal.js';
import { FILL_SCREEN, isFilled, offRule, openTapped, tappedTerminal } from '../helpers/deflate-socket.js';
import type { GridFrame } from '../../protocol/index.js';

let root: string;
let bridge: Bridge;
let ship: TestShip;

beforeAll(async () => {
  root = await makeTempRoot();
  const remote = makeRemote(root);
  ship = await startTestShip(root, { name: 'tship' });
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
  });
  await call(bridge.url, 'POST', '/repos', { name: 'app', url: remote.url });
  await call(bridge.url, 'POST', '/ships', { url: ship.url });
  for (const name of ['t1', 't2', 't3']) {
    await call(bridge.url, 'POST', '/workspaces', { ship: 'tship', repoName: 'app', name, branch: 'main' });
    await call(bridge.url, 'POST', path('app', name, '/activate'));
  }
}, 60_000);
afterAll(async () => {
  await bridge.close();
  await ship.stop();
  await removeRoot(root);
});

function rawSocket(url: string) {
  const socket = new WebSocket(url);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise<{ socket: WebSocket; closed: typeof closed }>((resolve, reject) => {
    socket.once('open', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

describe('bridge terminal proxy', () => {
  it('pipes frames both ways: grid on open, echo of typed input, exit code', async () => {
    const client = await connectTerminal(terminalUrl(bridge.url, 'app', 't1'));
    await client.until((screen) => /[$#] ?$/m.test(screen.text()));
    expect(client.frames[0]).toMatchObject({ type: 'grid', seq: 0, cols: 80, rows: 24 });
    client.input('echo via-bridge-$((2*21))\r');
    await client.until((screen) => screen.text().includes('via-bridge-42'));
    client.input('exit 5\r');
    expect(await client.exit).toBe(5);
  });

  it('passes the ship guard through (second connection exit 1) and releases it when the client closes', async () => {
    const first = await connectTerminal(terminalUrl(bridge.url, 'app', 't2'));
    await first.waitForFrames(1);
    const second = await connectTerminal(terminalUrl(bridge.url, 'app', 't2'));
    expect(await second.exit).toBe(1);
    await first.close();
    // No outside signal says the ship has released the first terminal once the close handshake ends: give its close
    // handler a turn.
    await new Promise((r) => setTimeout(r, 200));
    const third = await connectTerminal(terminalUrl(bridge.url, 'app', 't2'));
    await third.waitForFrames(1);
    expect(third.frames[0]!.type).toBe('grid');
    await third.close();
  });

  it('answers an unknown workspace with exit 1', async () => {
    const client = await connectTerminal(terminalUrl(bridge.url, 'app', 'nope'));
    expect(await client.exit).toBe(1);
  });

  it('closes 1008 for an invalid client frame and 1003 for a binary one', async () => {
    const invalid = await rawSocket(terminalUrl(bridge.url, 'app', 't3'));
    invalid.socket.send(JSON.stringify({ type: 'init', cols: 0, rows: 24 }));
    expect(await invalid.closed).toEqual({ code: 1008, reason: 'Invalid terminal message' });
    // Let the ship release the refused terminal before the next one opens (no outside signal for it).
    await new Promise((r) => setTimeout(r, 100));
    const binary = await rawSocket(terminalUrl(bridge.url, 'app', 't3'));
    binary.socket.send(Buffer.from('x'), { binary: true });
    expect(await binary.closed).toEqual({ code: 1003, reason: 'Binary terminal messages are not supported' });
  });
});

describe('the bridge with and without permessage-deflate offered (issue #18)', () => {
  for (const deflate of [false, true]) {
    const mode = deflate ? 'offered' : 'not offered';
    it(`terminal, deflate ${mode}: negotiated only if offered; the large grid comes ${deflate ? 'compressed' : 'as it is'}, small patches as they are`, async () => {
      const name = `z-${deflate}`;
      await call(bridge.url, 'POST', '/workspaces', { ship: 'tship', repoName: 'app', name, branch: 'main' });
      await call(bridge.url, 'POST', path('app', name, '/activate'));
      const filler = await connectTerminal(terminalUrl(bridge.url, 'app', name), { cols: 160, rows: 40 });
      await filler.until((screen) => /[$#] ?$/m.test(screen.text()));
      filler.input(FILL_SCREEN);
      await filler.until(isFilled);
      await filler.close();
      // Let the ship release the filler's terminal before the next one opens (no outside signal for it).
      await new Promise((resolve) => setTimeout(resolve, 100));

      const terminal = await tappedTerminal(terminalUrl(bridge.url, 'app', name), { deflate, cols: 160, rows: 40 });
      if (deflate) expect(terminal.client.extensionsHeader).toMatch(/^permessage-deflate\b/);
      else expect(terminal.client.extensionsHeader).toBeUndefined();
      await terminal.until(isFilled);
      const grid = terminal.frames.map((frame) => frame.type).lastIndexOf('grid');
      expect(terminal.client.texts[grid]!.length).toBeGreaterThan(10_000);
      expect(terminal.client.wire[grid]!.compressed).toBe(deflate);
      expect((terminal.frames[grid] as GridFrame).cells).toHaveLength(40);
      terminal.input('clear\r');
      await terminal.until((screen) => /^\S*[$#]$/.test(screen.text().trim()));
      // Quiet, not a condition: the clear's last patches land before the frames below are counted.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const before = terminal.frames.length;
      terminal.input(`echo sm''all-$((3*5))\r`);
      await terminal.until((screen) => /^small-15$/m.test(screen.text()));
      expect(terminal.client.texts.slice(before).every((text) => text.length < 1024)).toBe(true);
      expect(offRule(terminal.client, deflate)).toEqual([]);
      terminal.input('exit 4\r');
      await terminal.client.waitFor((text) => text === '{"type":"exit","code":4}');
      expect(offRule(terminal.client, deflate)).toEqual([]);
      await terminal.client.close();
    });

    it(`/events, deflate ${mode}: negotiated only if offered; a large event comes ${deflate ? 'compressed' : 'as it is'}, a small one as it is, both intact`, async () => {
      const name = `e-${deflate}`;
      await call(bridge.url, 'POST', '/workspaces', { ship: 'tship', repoName: 'app', name, branch: 'main' });
      await call(bridge.url, 'POST', path('app', name, '/activate'));
      await call(ship.url, 'POST', path('app', name, '/agent/init'), { model: 'm', provider: 'p', harness: 'h' });
      const events = await openTapped(`${bridge.url.replace(/^http/, 'ws')}/events`, { deflate });
      if (deflate) expect(events.extensionsHeader).toMatch(/^permessage-deflate\b/);
      else expect(events.extensionsHeader).toBeUndefined();
      await events.waitFor((text) => text.startsWith('{"type":"sync"'));
      const long = Array.from({ length: 400 }, (_, i) => `step ${String(i).padStart(4, '0')}`)
        .join(' ')
        .slice(0, 4000);
      for (const description of [long, 'short']) {
        expect(
          (await call(ship.url, 'POST', path('app', name, '/agent/status'), { state: 'building', description })).status,
        ).toBe(200);
      }
      const ofDescription = (description: string) =>
        events.waitFor(
          (text) =>
            text.includes('agent_status_changed') && JSON.parse(text).workspace.agent?.description === description,
        );
      const [large, small] = [await ofDescription(long), await ofDescription('short')];
      expect(JSON.parse(events.texts[large]!).workspace).toMatchObject({
        name,
        ship: 'tship',
        agent: { description: long },
      });
      expect(events.wire[large]!.compressed).toBe(deflate);
      expect(events.wire[small]!.compressed).toBe(false);
      expect(offRule(events, deflate)).toEqual([]);
      await events.close();
    });
  }
});
