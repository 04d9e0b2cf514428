// The hub's spacing of aggregate syncs: the first at once; those asked for within SYNC_SPACING_MS after it
// become one, sent at the end of the spacing and built then (so it holds every change made meanwhile);
// events are never held; a new subscriber gets its own aggregate at once. A broadcast is written out in
// slices of SLICE_BYTES per turn of the event loop, each subscriber's frames in order. Fake sockets, fake
// timers.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { segmentOf } from './broadcast-frame.js';
import { EventHub, SLICE_BYTES, SLICE_SUBSCRIBERS, SYNC_SPACING_MS } from './event-hub.js';

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

  it('writes a large broadcast over several turns, the first subscribers at once, every subscriber in order', () => {
    let names = ['a'];
    const hub = new EventHub(() => [segmentOf(JSON.stringify(names.map((name) => ({ ...workspace, name }))))]);
    const subscribers = Array.from({ length: 10 }, () => fakeSocket());
    for (const { socket } of subscribers) hub.add(socket);
    // An aggregate of a third of a slice: three subscribers a turn.
    const count = Math.ceil(SLICE_BYTES / 3 / JSON.stringify({ ...workspace, name: 'w-00000' }).length);
    names = Array.from({ length: count }, (_, i) => `w-${String(i).padStart(5, '0')}`);
    hub.publishSync();
    expect(subscribers.map(({ sent }) => sent.length)).toEqual([2, 2, 2, 1, 1, 1, 1, 1, 1, 1]);
    hub.publish('workspace.activated', { ...workspace, active: true });
    expect(subscribers.map(({ sent }) => sent.length)).toEqual([2, 2, 2, 1, 1, 1, 1, 1, 1, 1]);
    // The next turn: three more, each with the event after the sync.
    vi.advanceTimersToNextTimer();
    expect(subscribers.map(({ sent }) => sent.length)).toEqual([2, 2, 2, 3, 3, 3, 1, 1, 1, 1]);
    vi.runAllTimers();
    for (const { sent } of subscribers) {
      expect(sent.map((frame) => frame.type)).toEqual(['sync', 'sync', 'workspace.activated']);
      expect(sent[1]!.workspaces).toHaveLength(count);
    }
    // A small event to all of them goes out in one turn.
    hub.publish('workspace.deactivated', workspace);
    expect(subscribers.every(({ sent }) => sent.at(-1)!.type === 'workspace.deactivated')).toBe(true);
    hub.closeAll();
  });

  it('writes a small event to at most SLICE_SUBSCRIBERS subscribers a turn', () => {
    const hub = new EventHub(() => [segmentOf('[]')]);
    const subscribers = Array.from({ length: SLICE_SUBSCRIBERS + 20 }, () => fakeSocket());
    for (const { socket } of subscribers) hub.add(socket);
    hub.publish('workspace.activated', workspace);
    expect(subscribers.filter(({ sent }) => sent.length === 2)).toHaveLength(SLICE_SUBSCRIBERS);
    vi.runAllTimers();
    expect(subscribers.every(({ sent }) => sent.map((frame) => frame.type).join() === 'sync,workspace.activated')).toBe(
      true,
    );
    hub.closeAll();
  });
});
