import { describe, expect, it } from 'vitest';
import type { SyncEvent, WorkspaceEvent } from '../../protocol/index.js';
import { encodeFrame } from './event-bus.js';
import { EventSubscription, type SubscriberSocket } from './subscription.js';

class FakeSocket implements SubscriberSocket {
  sent: any[] = [];
  closedWith: { code: number; reason: string } | null = null;
  bufferedAmount = 0;
  send(data: Buffer) {
    this.sent.push(JSON.parse(data.toString()));
  }
  close(code: number, reason: string) {
    this.closedWith = { code, reason };
  }
}

const sync = (): SyncEvent => ({ type: 'sync', ship: 's', at: new Date().toISOString(), workspaces: [] });
/** A change event as the bus hands it to each subscription: encoded once. */
const event = (name: string, description = '') =>
  encodeFrame(
    JSON.stringify({
      type: 'workspace.created',
      ship: 's',
      at: new Date().toISOString(),
      workspace: { repoName: 'r', name, branch: description || 'main', active: false, agent: null },
    } satisfies WorkspaceEvent),
  );

describe('event subscription', () => {
  it('sends sync first, then the events raised while the snapshot was built, in order, then live events', async () => {
    const socket = new FakeSocket();
    const subscription = new EventSubscription(socket);
    let release!: (value: SyncEvent) => void;
    const opened = subscription.open(() => new Promise((resolve) => (release = resolve)));
    subscription.deliver(event('a'));
    subscription.deliver(event('b'));
    expect(socket.sent).toEqual([]);
    release(sync());
    await opened;
    subscription.deliver(event('c'));
    expect(socket.sent.map((e) => (e.type === 'sync' ? 'sync' : e.workspace.name))).toEqual(['sync', 'a', 'b', 'c']);
  });

  it('closes 1011 when the snapshot fails', async () => {
    const socket = new FakeSocket();
    await new EventSubscription(socket).open(async () => {
      throw new Error('disk gone');
    });
    expect(socket.closedWith).toEqual({ code: 1011, reason: 'Failed to build workspace snapshot' });
    expect(socket.sent).toEqual([]);
  });

  it('closes 1009 once more than 256 KiB is held back during the snapshot', async () => {
    const socket = new FakeSocket();
    const subscription = new EventSubscription(socket);
    let release!: (value: SyncEvent) => void;
    const opened = subscription.open(() => new Promise((resolve) => (release = resolve)));
    const big = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 3; i++) subscription.deliver(event(String(i), big));
    expect(socket.closedWith).toBeNull();
    subscription.deliver(event('3', big));
    expect(socket.closedWith).toEqual({ code: 1009, reason: 'Terminal buffer limit exceeded' });
    release(sync());
    await opened;
    expect(socket.sent).toEqual([]);
  });

  it('closes a subscriber that stops reading once 1 MiB waits in its socket', async () => {
    const socket = new FakeSocket();
    const subscription = new EventSubscription(socket);
    await subscription.open(async () => sync());
    socket.bufferedAmount = 2 * 1024 * 1024;
    subscription.deliver(event('late'));
    expect(socket.closedWith?.code).toBe(1013);
    expect(socket.sent.length).toBe(1);
  });
});
