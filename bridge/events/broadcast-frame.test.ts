// The event hub's broadcasts as real `ws` clients receive them: a large frame compressed once and shared by
// the subscribers that negotiated deflate with the default window, interleaved with small plain frames;
// ws's own per-socket compression for a subscriber that asked for a smaller server window; plain frames for
// one that offered nothing. Every client reads every text exactly, in order. The aggregate `sync` is made of
// segments compressed one by one, as the registry keeps it.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { segmentOf } from './broadcast-frame.js';
import { EventHub, SYNC_SPACING_MS } from './event-hub.js';

/** The workspaces' JSON array in segments of 70 entries, each compressed by a stream of its own. */
const segmentsOf = (workspaces: object[]) => {
  const segments = [segmentOf('[')];
  for (let i = 0; i < workspaces.length; i += 70) {
    if (i > 0) segments.push(segmentOf(','));
    segments.push(
      segmentOf(
        workspaces
          .slice(i, i + 70)
          .map((w) => JSON.stringify(w))
          .join(','),
      ),
    );
  }
  return [...segments, segmentOf(']')];
};

const summary = (i: number, branch: string) => ({
  repoName: `repo-${i % 7}`,
  name: `w${i}`,
  branch,
  active: i % 2 === 0,
  agent: null,
  ship: 's',
  ephemeral: null,
});

let server: WebSocketServer | null = null;
afterEach(() => {
  for (const client of server?.clients ?? []) client.terminate();
  server?.close();
  server = null;
});

describe('broadcast frames', () => {
  it('gives every kind of subscriber every frame, sharing one compressed copy of large ones', async () => {
    let workspaces = Array.from({ length: 300 }, (_, i) => summary(i, 'main'));
    const hub = new EventHub(() => segmentsOf(workspaces));
    server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: true });
    await new Promise((resolve) => server!.once('listening', resolve));
    const serverSockets = new Map<string, WebSocket>();
    server.on('connection', (socket, request) => {
      serverSockets.set(request.headers['x-kind'] as string, socket);
      hub.add(socket);
    });
    const url = `ws://127.0.0.1:${(server.address() as { port: number }).port}`;
    const kinds: Record<string, WebSocket.ClientOptions['perMessageDeflate']> = {
      browser: true,
      'no context takeover': { serverNoContextTakeover: true },
      'small window': { serverMaxWindowBits: 10 },
      plain: false,
    };
    const received = new Map<string, string[]>();
    const clients = new Map<string, WebSocket>();
    await Promise.all(
      Object.entries(kinds).map(
        ([kind, perMessageDeflate]) =>
          new Promise<void>((resolve, reject) => {
            const client = new WebSocket(url, { perMessageDeflate, headers: { 'x-kind': kind } });
            received.set(kind, []);
            clients.set(kind, client);
            client.on('message', (data) => received.get(kind)!.push(data.toString()));
            client.once('message', () => resolve());
            client.once('error', reject);
          }),
      ),
    );
    expect(serverSockets.get('browser')!.extensions).toContain('permessage-deflate');
    expect(serverSockets.get('plain')!.extensions).toBe('');

    // Each round once the last is delivered and the hub's sync spacing is over: a sync published while one
    // is still being written would replace the one waiting (subscriber-delivery.ts), and one published within
    // the spacing would wait for its end (event-hub.ts), neither of which is what this test is about.
    for (let round = 1; round <= 3; round++) {
      await sleep(SYNC_SPACING_MS);
      hub.publish('workspace.branch_changed', summary(round, `small-${round}`));
      workspaces = workspaces.map((w, i) => (i % 3 === round % 3 ? { ...w, branch: `round-${round}` } : w));
      hub.publishSync();
      hub.publish('workspace.activated', summary(round, `small-again-${round}`));
      await expect
        .poll(() => [...received.values()].map((texts) => texts.length), { timeout: 5000 })
        .toEqual(Array(4).fill(1 + 3 * round));
    }

    const reference = received.get('plain')!;
    expect(reference.filter((text) => text.startsWith('{"type":"sync"')).length).toBe(4);
    expect(
      JSON.parse(reference.at(-2)!).workspaces.filter((w: { branch: string }) => w.branch === 'round-3'),
    ).toHaveLength(100);
    for (const kind of Object.keys(kinds)) {
      expect(received.get(kind)!.map((text) => text.replace(/"at":"[^"]*"/, ''))).toEqual(
        reference.map((text) => text.replace(/"at":"[^"]*"/, '')),
      );
    }
    // The large frames did go compressed to the sharing subscribers: a fraction of the plain one's bytes.
    const bytesRead = (kind: string) =>
      (clients.get(kind) as unknown as { _socket: { bytesRead: number } })._socket.bytesRead;
    expect(bytesRead('browser')).toBeLessThan(bytesRead('plain') / 4);
    expect(bytesRead('no context takeover')).toBeLessThan(bytesRead('plain') / 4);
    // ws compressed nothing itself for the sharing subscribers (no zlib stream was ever made for them), and
    // did for the one with the smaller window.
    const deflateOf = (kind: string) =>
      (serverSockets.get(kind) as unknown as { _extensions: Record<string, { _deflate: unknown }> })._extensions[
        'permessage-deflate'
      ]!._deflate;
    expect(deflateOf('browser')).toBeNull();
    expect(deflateOf('no context takeover')).toBeNull();
    expect(deflateOf('small window')).not.toBeNull();
  });
});
