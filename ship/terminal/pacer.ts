// When terminal frames go out: at once when output arrives after a quiet spell of 2 ms (keystroke echo), at most
// one per coalescing interval while output keeps streaming (a longer one once the stream has lasted), and never
// more than two unacknowledged. A stream is output without a 100 ms pause; once it has brought 64 KiB it is a
// flood, whose short pauses (the emulator or tmux busy for a few milliseconds) no longer count as quiet: only
// the interval paces it. With two outstanding it waits for an ack, or for the ack timeout, after which the next
// frame is a full snapshot. A resync or resize asks for a snapshot too. Pure: the clock and timers are
// injected, frames are produced by `flush`.
import { TERMINAL_ACK_TIMEOUT_MS, TERMINAL_MAX_UNACKED_FRAMES } from '../../protocol/index.js';

export interface PacerTimers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: PacerTimers = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface PacerOptions {
  /** While output streams, at most one frame per this interval. */
  coalesceMs?: number;
  /** Output arriving after this long without any is drawn at once (unless it continues a flood). */
  idleGapMs?: number;
  /** A pause this long ends a stream: what follows starts a new one. */
  streamEndGapMs?: number;
  /** A stream that has brought more than this many bytes is a flood: paced by the interval alone. */
  floodBytes?: number;
  /** A stream that has lasted this long is drawn at most once per `sustainedCoalesceMs`. */
  sustainedAfterMs?: number;
  sustainedCoalesceMs?: number;
  ackTimeoutMs?: number;
  maxUnacked?: number;
  timers?: PacerTimers;
}

/** Sends one frame: a grid when `full`, else a patch; returns the seq sent, or null when nothing changed. */
export type FrameSender = (full: boolean) => number | null;

export class FramePacer {
  private readonly coalesceMs: number;
  private readonly idleGapMs: number;
  private readonly streamEndGapMs: number;
  private readonly floodBytes: number;
  private readonly sustainedAfterMs: number;
  private readonly sustainedCoalesceMs: number;
  /** When the current stream of output began (the first change after a pause of `streamEndGapMs`). */
  private streamStartedAt = -Infinity;
  /** Output bytes the current stream has brought. */
  private streamBytes = 0;
  private readonly ackTimeoutMs: number;
  private readonly maxUnacked: number;
  private readonly timers: PacerTimers;
  private lastSentSeq = -1;
  private lastAckedSeq = -1;
  private lastSentAt = -Infinity;
  private lastDirtyAt = -Infinity;
  private dirty = false;
  private wantFull = true;
  private flushTimer: unknown = null;
  private ackTimer: unknown = null;
  private stopped = false;

  constructor(private readonly send: FrameSender, options: PacerOptions = {}) {
    this.coalesceMs = options.coalesceMs ?? 16;
    this.idleGapMs = options.idleGapMs ?? 2;
    this.streamEndGapMs = options.streamEndGapMs ?? 100;
    this.floodBytes = options.floodBytes ?? 64 * 1024;
    this.sustainedAfterMs = options.sustainedAfterMs ?? 250;
    this.sustainedCoalesceMs = options.sustainedCoalesceMs ?? 50;
    this.ackTimeoutMs = options.ackTimeoutMs ?? TERMINAL_ACK_TIMEOUT_MS;
    this.maxUnacked = options.maxUnacked ?? TERMINAL_MAX_UNACKED_FRAMES;
    this.timers = options.timers ?? realTimers;
  }

  get unacked(): number {
    return this.lastSentSeq - this.lastAckedSeq;
  }

  private get blocked(): boolean {
    return this.unacked >= this.maxUnacked;
  }

  /** The screen changed, through `bytes` of output. */
  markDirty(bytes = 0): void {
    const now = this.timers.now();
    const gap = now - this.lastDirtyAt;
    this.lastDirtyAt = now;
    if (gap >= this.streamEndGapMs) {
      this.streamStartedAt = now;
      this.streamBytes = 0;
    }
    this.streamBytes += bytes;
    this.dirty = true;
    // Output after a quiet spell (a keystroke's echo) is drawn at once; a flood, gaps and all, is batched.
    if (gap >= this.idleGapMs && this.streamBytes <= this.floodBytes && !this.blocked) {
      if (this.flushTimer !== null) {
        this.timers.clearTimeout(this.flushTimer);
        this.flushTimer = null;
      }
      this.flush();
      return;
    }
    this.schedule();
  }

  /** The next frame must be a full snapshot (open, resize, resync). */
  requestSnapshot(): void {
    this.wantFull = true;
    this.dirty = true;
    this.schedule();
  }

  ack(seq: number): void {
    if (seq > this.lastSentSeq || seq <= this.lastAckedSeq) return;
    this.lastAckedSeq = seq;
    if (!this.blocked && this.ackTimer !== null) {
      this.timers.clearTimeout(this.ackTimer);
      this.ackTimer = null;
    }
    this.schedule();
  }

  /** Sends what is pending now, if pacing allows (used when the stream ends). */
  flushNow(): void {
    if (this.flushTimer !== null) {
      this.timers.clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    if (this.dirty && !this.blocked) this.flush();
  }

  private schedule(): void {
    if (this.stopped || !this.dirty || this.blocked || this.flushTimer !== null) return;
    const now = this.timers.now();
    // A flood (a build log, `cat` of a large file) needs no 60 frames a second: after a while, fewer
    // frames leave the cores to the program and to tmux.
    const interval = now - this.streamStartedAt >= this.sustainedAfterMs ? this.sustainedCoalesceMs : this.coalesceMs;
    const wait = this.lastSentAt + interval - now;
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.flushTimer = this.timers.setTimeout(() => {
      this.flushTimer = null;
      if (this.dirty && !this.blocked) this.flush();
    }, wait);
  }

  private flush(): void {
    if (this.stopped) return;
    this.dirty = false;
    const full = this.wantFull;
    this.wantFull = false;
    const seq = this.send(full);
    if (seq === null) return;
    this.lastSentSeq = seq;
    this.lastSentAt = this.timers.now();
    if (this.blocked && this.ackTimer === null) {
      this.ackTimer = this.timers.setTimeout(() => this.ackTimedOut(), this.ackTimeoutMs);
    }
  }

  private ackTimedOut(): void {
    this.ackTimer = null;
    if (this.stopped || !this.blocked) return;
    // The client is not acking: forget what it owes, and give it one full snapshot to start again from.
    this.lastAckedSeq = this.lastSentSeq;
    this.wantFull = true;
    this.dirty = true;
    this.flush();
  }

  stop(): void {
    this.stopped = true;
    if (this.flushTimer !== null) this.timers.clearTimeout(this.flushTimer);
    if (this.ackTimer !== null) this.timers.clearTimeout(this.ackTimer);
    this.flushTimer = null;
    this.ackTimer = null;
  }
}
