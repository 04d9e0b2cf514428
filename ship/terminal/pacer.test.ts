import { describe, expect, it } from 'vitest';
import { FramePacer, type PacerTimers } from './pacer.js';

/** A manual clock: timers fire only when the test advances time. */
class ManualTimers implements PacerTimers {
  time = 0;
  private timers: Array<{ at: number; callback: () => void; id: number }> = [];
  private nextId = 0;
  now = () => this.time;
  setTimeout = (callback: () => void, ms: number) => {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, callback, id });
    return id;
  };
  clearTimeout = (handle: unknown) => {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  };
  advance(ms: number) {
    const until = this.time + ms;
    for (;;) {
      const due = this.timers.filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.time = due.at;
      due.callback();
    }
    this.time = until;
  }
}

function setup(options: { coalesceMs?: number; ackTimeoutMs?: number } = {}) {
  const timers = new ManualTimers();
  const sent: Array<{ seq: number; full: boolean; at: number }> = [];
  let seq = 0;
  const pacer = new FramePacer(
    (full) => {
      sent.push({ seq, full, at: timers.time });
      return seq++;
    },
    { timers, coalesceMs: options.coalesceMs ?? 16, ackTimeoutMs: options.ackTimeoutMs ?? 5000 },
  );
  /** Acknowledges the last frame sent, as a client keeping up does. */
  const ackLast = (): void => pacer.ack(sent.at(-1)!.seq);
  /** `parses` parses of 64 KiB `gapMs` apart, each frame acknowledged at once: a flood. */
  const flood = (parses: number, gapMs: number) => {
    for (let i = 0; i < parses; i++) {
      pacer.markDirty(64 * 1024);
      ackLast();
      timers.advance(gapMs);
    }
  };
  return { timers, sent, pacer, ackLast, flood };
}

/** A pacer whose first snapshot went out and was acknowledged: an attached, idle terminal. */
function attached() {
  const paced = setup();
  paced.pacer.requestSnapshot();
  paced.pacer.ack(0);
  return paced;
}

describe('frame pacer', () => {
  it('sends the first frame as a full snapshot at once', () => {
    const { sent, pacer } = setup();
    pacer.requestSnapshot();
    expect(sent).toEqual([{ seq: 0, full: true, at: 0 }]);
  });

  it('draws output after a quiet spell at once, even right after a frame', () => {
    const { timers, sent, pacer } = attached();
    timers.advance(3);
    pacer.markDirty();
    expect(sent.at(-1)).toEqual({ seq: 1, full: false, at: 3 });
  });

  it('draws at once after idle, and at most once per coalescing interval while output streams', () => {
    const { timers, sent, pacer } = attached();
    timers.advance(100);
    pacer.markDirty(); // idle: immediate
    expect(sent.at(-1)).toEqual({ seq: 1, full: false, at: 100 });
    pacer.ack(1);
    for (let t = 0; t < 10; t++) {
      timers.advance(1);
      pacer.markDirty();
    }
    expect(sent.length).toBe(2); // coalesced until 116
    timers.advance(10);
    expect(sent.at(-1)).toEqual({ seq: 2, full: false, at: 116 });
  });

  it('draws a sustained flood less often', () => {
    const { timers, sent, pacer, ackLast } = setup();
    pacer.requestSnapshot();
    const stream = () => {
      for (let t = 0; t < 100; t++) {
        timers.advance(1);
        pacer.markDirty(4096);
        ackLast();
      }
    };
    stream(); // 0-100 ms: every 16 ms
    const early = sent.length;
    expect(early).toBeGreaterThanOrEqual(6);
    stream();
    stream(); // 100-300 ms
    const before = sent.length;
    stream(); // 300-400 ms: every 50 ms
    expect(sent.length - before).toBeLessThanOrEqual(3);
  });

  it('holds at two unacknowledged frames until an ack', () => {
    const { timers, sent, pacer } = setup();
    pacer.requestSnapshot();
    timers.advance(20);
    pacer.markDirty();
    expect(sent.length).toBe(2);
    timers.advance(20);
    pacer.markDirty();
    timers.advance(1000);
    expect(sent.length).toBe(2);
    pacer.ack(0);
    expect(sent.at(-1)).toMatchObject({ seq: 2, full: false });
  });

  it('after the ack timeout sends one full snapshot, and so a never-acking client gets one per timeout', () => {
    const { timers, sent, pacer } = setup({ ackTimeoutMs: 5000 });
    pacer.requestSnapshot();
    timers.advance(20);
    pacer.markDirty();
    expect(sent.length).toBe(2); // blocked from t=20
    for (let i = 0; i < 3; i++) {
      timers.advance(4999);
      pacer.markDirty();
      expect(sent.at(-1)!.full).toBe(false);
      timers.advance(1);
      expect(sent.at(-1)).toMatchObject({ full: true });
      timers.advance(20);
      pacer.markDirty();
    }
    expect(sent.filter((frame) => frame.full).length).toBe(4);
  });

  it('a resync or resize asks for a full frame; stale and future acks are ignored', () => {
    const { timers, sent, pacer } = setup();
    pacer.requestSnapshot();
    timers.advance(20);
    pacer.markDirty();
    pacer.ack(7); // never sent: ignored
    pacer.ack(-1);
    timers.advance(20);
    pacer.markDirty();
    expect(sent.length).toBe(2); // still blocked
    pacer.ack(0);
    pacer.ack(0); // stale: ignored
    expect(sent.map((frame) => frame.full)).toEqual([true, false, false]); // the held change went out
    pacer.requestSnapshot(); // blocked again (1 and 2 unacked): waits
    timers.advance(20);
    expect(sent.length).toBe(3);
    pacer.ack(2);
    // Unblocked at 60 ms, but snapshots are spaced 100 ms apart: the first went out at 0.
    expect(sent.length).toBe(3);
    timers.advance(40);
    expect(sent.map((frame) => frame.full)).toEqual([true, false, false, true]);
    expect(sent.at(-1)!.at).toBe(100);
  });

  it('spaces snapshots 100 ms apart however fast a client asks for them, and holds output meanwhile', () => {
    const { timers, sent, pacer, ackLast } = attached();
    // 1,000 resyncs a second for a second, each frame acknowledged at once: a client that can take anything.
    for (let i = 0; i < 1000; i++) {
      pacer.requestSnapshot();
      if (i % 7 === 0) pacer.markDirty(10);
      ackLast();
      timers.advance(1);
    }
    const snapshots = sent.filter((frame) => frame.full);
    expect(snapshots.length).toBeLessThanOrEqual(11);
    for (let i = 1; i < snapshots.length; i++)
      expect(snapshots[i]!.at - snapshots[i - 1]!.at).toBeGreaterThanOrEqual(100);
    // Output is not lost: the last snapshot is followed by no pending change.
    timers.advance(200);
    ackLast();
    expect(sent.at(-1)!.full).toBe(true);
  });

  it('a snapshot asked for while a patch waits for its interval still keeps the spacing', () => {
    const { timers, sent, pacer, ackLast } = attached();
    timers.advance(50);
    pacer.markDirty(10); // after a quiet spell: drawn at once
    ackLast();
    pacer.markDirty(10); // within the interval: a patch waits 16 ms
    pacer.requestSnapshot();
    timers.advance(16);
    expect(sent.map((frame) => frame.full)).toEqual([true, false]);
    timers.advance(50);
    expect(sent.map((frame) => frame.full)).toEqual([true, false, true]);
    expect(sent.at(-1)!.at).toBe(100);
  });

  it('paces a flood by the interval even when its parses come a few milliseconds apart', () => {
    const { timers, sent, flood } = attached();
    timers.advance(200);
    // 64 KiB parsed every 3 ms: each gap is past the 2 ms quiet spell, yet the stream is one flood.
    flood(100, 3);
    // 300 ms: every 16 ms for the first 250, every 50 after, instead of a frame per parse.
    expect(sent.length - 1).toBeLessThanOrEqual(18);
    expect(sent.length - 1).toBeGreaterThanOrEqual(12);
  });

  it('draws output at once again only once a flood has died down', () => {
    const { timers, sent, pacer, ackLast, flood } = attached();
    const floodThenPause = () => {
      flood(20, 3);
      timers.advance(100);
      ackLast();
    };
    /** Two small outputs 3 ms apart after `pauseMs`: whether the second was drawn at once. */
    const echoTwice = (pauseMs: number) => {
      timers.advance(pauseMs);
      pacer.markDirty(10);
      ackLast();
      timers.advance(3);
      pacer.markDirty(10);
      return sent.at(-1)!.at === timers.time;
    };
    floodThenPause();
    // 160 ms after the flood's last output (1.3 MB in 60 ms): still the flood, so the second echo waits.
    expect(echoTwice(60)).toBe(false);
    floodThenPause();
    expect(echoTwice(500)).toBe(true);
  });

  it('never counts a slow stream as a flood, however long it lasts', () => {
    const { timers, sent, pacer, ackLast } = attached();
    // A status line redrawn 50 times a second: 500 bytes every 20 ms for a minute, 1.5 MB in all, each
    // drawn at once.
    for (let tick = 0; tick < 3000; tick++) {
      timers.advance(20);
      pacer.markDirty(500);
      expect(sent.at(-1)!.at).toBe(timers.time);
      ackLast();
    }
  });

  it('keeps the short interval for output that is no flood, however long it lasts', () => {
    const { timers, sent, pacer, ackLast } = attached();
    // A keystroke every 30 ms for 600 ms, each redrawn in two writes 1 ms apart (a TUI): the second write
    // waits for the 16 ms interval, never the 50 ms of a flood.
    for (let key = 0; key < 20; key++) {
      timers.advance(29);
      pacer.markDirty(200);
      ackLast();
      timers.advance(1);
      pacer.markDirty(200);
      const pending = sent.length;
      timers.advance(16);
      expect(sent.length).toBe(pending + 1);
      ackLast();
    }
  });

  it('keeps drawing keystroke echoes at once, however long the typing lasts', () => {
    const { timers, sent, pacer } = attached();
    for (let key = 0; key < 100; key++) {
      timers.advance(7);
      pacer.markDirty(3);
      expect(sent.at(-1)).toMatchObject({ seq: key + 1, at: timers.time });
      pacer.ack(key + 1);
    }
  });

  it('stop() cancels everything pending', () => {
    const { timers, sent, pacer } = attached();
    pacer.markDirty(); // after quiet: at once
    pacer.ack(1);
    timers.advance(1);
    pacer.markDirty(); // streaming: waits for the coalescing interval
    expect(sent.length).toBe(2);
    pacer.stop();
    timers.advance(10_000);
    expect(sent.length).toBe(2);
  });
});
