// When terminal frames go out: at once when output arrives after a quiet spell of 2 ms (keystroke echo), at most
// one per coalescing interval while output keeps streaming, and never more than two unacknowledged. A flood is
// output at a rate: its byte count, decaying by e every 100 ms, is above 64 KiB. A flood's short pauses (the
// emulator or tmux busy for a few milliseconds) do not count as quiet: only the interval paces it, and a
// longer one once it has lasted 250 ms. With two outstanding it waits for an ack, or for the ack timeout,
// after which the next frame is a full snapshot. A resync or resize asks for a snapshot too, but snapshots
// are spaced at least 100 ms apart, so a client asking for one in a loop costs the ship and the bridge ten
// grids a second, not one per frame interval (docs/DECISIONS.md, "How often can a client have a full
// snapshot?"). Pure: the clock and timers are injected, frames are produced by `flush`.
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
  /** Output arriving after this long without any is drawn at once (unless it is part of a flood). */
  idleGapMs?: number;
  /** Output is a flood while its byte count, decaying by e every `floodDecayMs`, is above `floodBytes`. */
  floodBytes?: number;
  floodDecayMs?: number;
  /** A flood that has lasted this long is drawn at most once per `sustainedCoalesceMs`. */
  sustainedAfterMs?: number;
  sustainedCoalesceMs?: number;
  /** Full snapshots at most once per this interval (the ack timeout's excepted). */
  snapshotIntervalMs?: number;
  ackTimeoutMs?: number;
  maxUnacked?: number;
  timers?: PacerTimers;
}

/** Sends one frame: a grid when `full`, else a patch; returns the seq sent, or null when nothing changed. */
export type FrameSender = (full: boolean) => number | null;

export class FramePacer {
  private readonly coalesceMs: number;
  private readonly idleGapMs: number;
  private readonly floodBytes: number;
  private readonly floodDecayMs: number;
  private readonly sustainedAfterMs: number;
  private readonly sustainedCoalesceMs: number;
  /** Recent output in bytes, decaying by e every `floodDecayMs` (at `lastDirtyAt`). */
  private floodLevel = 0;
  /** When the current flood began, or null while there is none. */
  private floodStartedAt: number | null = null;
  private readonly snapshotIntervalMs: number;
  private readonly ackTimeoutMs: number;
  private readonly maxUnacked: number;
  private readonly timers: PacerTimers;
  private lastSentSeq = -1;
  private lastAckedSeq = -1;
  private lastSentAt = -Infinity;
  private lastSnapshotAt = -Infinity;
  private lastDirtyAt = -Infinity;
  private dirty = false;
  private wantFull = true;
  private flushTimer: unknown = null;
  private ackTimer: unknown = null;
  private stopped = false;

  constructor(
    private readonly send: FrameSender,
    options: PacerOptions = {},
  ) {
    this.coalesceMs = options.coalesceMs ?? 16;
    this.idleGapMs = options.idleGapMs ?? 2;
    this.floodBytes = options.floodBytes ?? 64 * 1024;
    this.floodDecayMs = options.floodDecayMs ?? 100;
    this.sustainedAfterMs = options.sustainedAfterMs ?? 250;
    this.sustainedCoalesceMs = options.sustainedCoalesceMs ?? 50;
    this.snapshotIntervalMs = options.snapshotIntervalMs ?? 100;
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
    this.floodLevel = this.floodLevel * Math.exp(-gap / this.floodDecayMs) + bytes;
    const flooding = this.floodLevel > this.floodBytes;
    if (!flooding) this.floodStartedAt = null;
    else this.floodStartedAt ??= now;
    this.dirty = true;
    // Output after a quiet spell (a keystroke's echo) is drawn at once; a flood, gaps and all, is batched.
    if (gap >= this.idleGapMs && !flooding && !this.blocked && this.snapshotWait(now) <= 0) {
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
    // frames leave the cores to the program and to tmux. Typing, however long, keeps the short interval.
    const sustained = this.floodStartedAt !== null && now - this.floodStartedAt >= this.sustainedAfterMs;
    const interval = sustained ? this.sustainedCoalesceMs : this.coalesceMs;
    const wait = Math.max(this.lastSentAt + interval - now, this.snapshotWait(now));
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.flushTimer = this.timers.setTimeout(() => {
      this.flushTimer = null;
      // Asked again: a snapshot requested while this timer waited may have to wait longer.
      this.schedule();
    }, wait);
  }

  /** How long a pending snapshot must still wait to keep snapshots spaced (≤ 0: none pending, or it may go). */
  private snapshotWait(now: number): number {
    return this.wantFull ? this.lastSnapshotAt + this.snapshotIntervalMs - now : 0;
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
    if (full) this.lastSnapshotAt = this.lastSentAt;
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
