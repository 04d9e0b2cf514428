// The hub's spacing of aggregate syncs: the first at once; those asked for within SYNC_SPACING_MS after it
// become one, sent at the end of the spacing and built then (so it holds every change made meanwhile);
// events are never held; a new subscriber gets its own aggregate at once. Fake sockets, fake timers.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { segmentOf } from './broadcast-frame.js';
import { EventHub, SYNC_SPACING_MS } from './event-hub.js';

function fakeSocket() {
  const sent: Array<{ type: string; workspaces?: unknown[] }> = [];
  const socket = {
    bufferedAmount: 0,
    readyState: 1,
    on: () => socket,
    send(data: Buffer, _options: unknown, done?: () => void) {
      sent.push(JSON.parse(data.toString()));
      done?.();
    },
    close: () => undefined,
  };
  return { sent, socket: socket as unknown as WebSocket };
}

const workspace = { repoName: 'r', name: 'n', branch: 'main', active: false, agent: null, ship: 's', ephemeral: null };

describe('event hub', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the first aggregate sync at once and one more, built at the end of the spacing, for those asked meanwhile', () => {
    let names = ['a'];
    const hub = new EventHub(() => [segmentOf(JSON.stringify(names.map((name) => ({ ...workspace, name }))))]);
    const { sent, socket } = fakeSocket();
    hub.add(socket);
    expect(sent.map((frame) => frame.type)).toEqual(['sync']);

    names = ['a', 'b'];
    hub.publishSync();
    names = ['a', 'b', 'c'];
    hub.publishSync();
    hub.publish('workspace.activated', { ...workspace, name: 'c', active: true });
    names = ['a', 'b', 'c', 'd'];
    hub.publishSync();
    // The first at once, the event at once; the other two wait.
    expect(sent.map((frame) => frame.type)).toEqual(['sync', 'sync', 'workspace.activated']);
    expect(sent[1]!.workspaces).toHaveLength(2);

    vi.advanceTimersByTime(SYNC_SPACING_MS);
    expect(sent.map((frame) => frame.type)).toEqual(['sync', 'sync', 'workspace.activated', 'sync']);
    expect(sent[3]!.workspaces).toHaveLength(4);

    // Nothing asked for in that spacing: the next goes at once again.
    vi.advanceTimersByTime(SYNC_SPACING_MS);
    expect(sent).toHaveLength(4);
    names = ['e'];
    hub.publishSync();
    expect(sent).toHaveLength(5);
    expect(sent[4]!.workspaces).toEqual([{ ...workspace, name: 'e' }]);

    // A subscriber connecting meanwhile gets its aggregate at once.
    const late = fakeSocket();
    hub.add(late.socket);
    expect(late.sent.map((frame) => frame.type)).toEqual(['sync']);
    hub.closeAll();
  });
});
