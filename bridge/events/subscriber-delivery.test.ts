import { describe, expect, it } from 'vitest';
import { EVENT_PENDING_BUFFER_LIMIT } from '../../protocol/index.js';
import type { EventFrame } from './broadcast-frame.js';
import { SubscriberDelivery, type DeliverySocket } from './subscriber-delivery.js';

const frame = (text: string): EventFrame => ({
  data: Buffer.from(text),
  length: Buffer.byteLength(text),
  compress: false,
  deflated: () => [],
  plain: () => [],
});

/** A socket whose writes finish only when the test says so; `bufferedAmount` counts what is unfinished. */
function fakeSocket() {
  const writing: Array<{ bytes: number; done?: (error?: Error) => void }> = [];
  const socket = {
    sent: [] as string[],
    closed: null as null | { code: number; reason: string },
    extra: 0,
    get bufferedAmount() {
      return writing.reduce((sum, write) => sum + write.bytes, 0) + socket.extra;
    },
    send(frame: EventFrame, done?: (error?: Error) => void) {
      socket.sent.push(frame.data.toString());
      writing.push({ bytes: frame.data.length, done });
      return frame.data.length;
    },
    close(code: number, reason: string) {
      socket.closed = { code, reason };
    },
    /** Finishes every write so far, in order. */
    flush() {
      for (const write of writing.splice(0)) write.done?.();
    },
  };
  return socket satisfies DeliverySocket;
}

const bigSync = (n: number) => frame(`sync ${n} ${'x'.repeat(EVENT_PENDING_BUFFER_LIMIT * 2)}`);
const label = (text: string) => text.split(' ').slice(0, 2).join(' ');

describe('subscriber delivery', () => {
  it('sends syncs and events in order to a subscriber that keeps up', () => {
    const socket = fakeSocket();
    const delivery = new SubscriberDelivery(socket, () => undefined);
    delivery.sync(frame('sync 1'));
    socket.flush();
    delivery.event(frame('event a'));
    delivery.sync(frame('sync 2'));
    socket.flush();
    delivery.event(frame('event b'));
    expect(socket.sent).toEqual(['sync 1', 'event a', 'sync 2', 'event b']);
    expect(socket.closed).toBeNull();
  });

  it('does not count a snapshot still being written against the bound', () => {
    const socket = fakeSocket();
    const delivery = new SubscriberDelivery(socket, () => undefined);
    delivery.sync(bigSync(1));
    delivery.event(frame('event a'));
    expect(socket.sent.map(label)).toEqual(['sync 1', 'event a']);
    expect(socket.closed).toBeNull();
  });

  it('closes with 1009 once more than 256 KiB of events wait, as before', () => {
    const socket = fakeSocket();
    let removed = false;
    const delivery = new SubscriberDelivery(socket, () => (removed = true));
    delivery.sync(bigSync(1));
    socket.extra = EVENT_PENDING_BUFFER_LIMIT + 1;
    delivery.event(frame('event a'));
    expect(socket.closed).toEqual({ code: 1009, reason: 'Terminal buffer limit exceeded' });
    expect(removed).toBe(true);
    expect(socket.sent.map(label)).toEqual(['sync 1']);
  });

  it('exempts a compressed snapshot by the bytes the socket holds for it, not by its uncompressed size', () => {
    const socket = fakeSocket();
    // A subscriber sharing a broadcast's compressed copy: the socket holds a tenth of the frame's length.
    socket.send = (sent: EventFrame, done?: (error?: Error) => void) => {
      const bytes = Math.ceil(sent.length / 10);
      socket.sent.push(sent.data.toString());
      socket.extra += bytes;
      void done;
      return bytes;
    };
    const delivery = new SubscriberDelivery(socket, () => undefined);
    delivery.sync(bigSync(1));
    // Events past 256 KiB on top of the compressed snapshot: over the bound, though less than its raw size.
    socket.extra += EVENT_PENDING_BUFFER_LIMIT + 1;
    delivery.event(frame('event a'));
    expect(socket.closed).toEqual({ code: 1009, reason: 'Terminal buffer limit exceeded' });
  });

  it('holds a newer sync until the one being written is out, replacing any older one waiting', () => {
    const socket = fakeSocket();
    const delivery = new SubscriberDelivery(socket, () => undefined);
    delivery.sync(bigSync(1));
    delivery.event(frame('event a'));
    delivery.sync(bigSync(2));
    delivery.event(frame('event b'));
    delivery.sync(bigSync(3));
    delivery.event(frame('event c'));
    expect(socket.sent.map(label)).toEqual(['sync 1', 'event a']);
    socket.flush();
    // Sync 2 and event b were superseded by sync 3 before they could go out.
    expect(socket.sent.map(label)).toEqual(['sync 1', 'event a', 'sync 3', 'event c']);
    socket.flush();
    delivery.event(frame('event d'));
    expect(socket.sent.map(label).at(-1)).toBe('event d');
    expect(socket.closed).toBeNull();
  });

  it('closes with 1009 when the events held behind a waiting sync pass 256 KiB', () => {
    const socket = fakeSocket();
    const delivery = new SubscriberDelivery(socket, () => undefined);
    delivery.sync(bigSync(1));
    delivery.sync(bigSync(2));
    for (let i = 0; i < 3; i++) delivery.event(frame(`event ${i} ${'y'.repeat(100 * 1024)}`));
    expect(socket.closed).toEqual({ code: 1009, reason: 'Terminal buffer limit exceeded' });
    socket.flush();
    expect(socket.sent.map(label)).toEqual(['sync 1']);
  });
});
