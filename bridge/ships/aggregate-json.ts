// The aggregate's JSON (every owned workspace with its ship, sorted by key: the bridge's `sync` and its
// GET /workspaces) kept between builds as runs of consecutive keys, each run with its text, its bytes and its
// compressed bytes until one of its entries changes. Whoever owns the truth says which keys' entries may have
// changed (`touch`: the ownership index for owners and summaries, the registry for ephemeral views); the next
// build asks for those keys' entries again and re-renders only the runs they are in. So a ship's `sync` costs
// the runs its own workspaces are in, not the whole fleet's (bench/fleet.ts: before, each aggregate was a sorted
// walk, a lookup per workspace, one join and one deflate of all of it). What a build says never depends on
// what was kept: aggregate-json.test.ts checks it against a fresh build after random changes.
import { segmentOf, type FrameSegment } from '../events/broadcast-frame.js';

/**
 * A run is split in two past this many entries, and merged into a neighbour when it falls under a quarter
 * of it: compressed by a stream of its own a run loses a little against one stream over the whole aggregate
 * (smaller runs lose more), and a changed entry costs re-encoding and re-compressing its run (the sizes and
 * times for each run length are in bench/RESULTS.md).
 */
const RUN_MAX = 512;

interface Run {
  keys: string[];
  texts: string[];
  /** Made on first use after a change. */
  segment: FrameSegment | null;
}

const OPEN = segmentOf('[');
const COMMA = segmentOf(',');
const CLOSE = segmentOf(']');

/** The first index of sorted `keys` whose key is not below `key` (the index's order: `Array.prototype.sort`'s). */
function lowerBound(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class AggregateJson {
  private readonly runs: Run[] = [];
  private readonly stale = new Set<string>();

  /** `entry(key)`: the key's JSON in the aggregate now, or null when the key is not in it. */
  constructor(private readonly entry: (key: string) => string | null) {}

  /** `key`'s entry may have changed (or joined, or left). */
  touch(key: string): void {
    this.stale.add(key);
  }

  /** The JSON array as segments: `[`, the runs with `,` between them, `]`. */
  segments(): FrameSegment[] {
    this.refresh();
    const segments = [OPEN];
    for (const run of this.runs) {
      if (segments.length > 1) segments.push(COMMA);
      run.segment ??= segmentOf(run.texts.join(','));
      segments.push(run.segment);
    }
    segments.push(CLOSE);
    return segments;
  }

  /** The JSON array as text; with `keep`, of the keys it keeps only. */
  text(keep?: (key: string) => boolean): string {
    if (!keep)
      return this.segments()
        .map((segment) => segment.text)
        .join('');
    this.refresh();
    const texts: string[] = [];
    for (const run of this.runs)
      for (let i = 0; i < run.keys.length; i++) if (keep(run.keys[i]!)) texts.push(run.texts[i]!);
    return `[${texts.join(',')}]`;
  }

  private refresh(): void {
    if (this.stale.size === 0) return;
    const keys = [...this.stale].sort();
    this.stale.clear();
    for (const key of keys) this.put(key, this.entry(key));
  }

  private put(key: string, text: string | null): void {
    const at = this.runOf(key);
    const run = this.runs[at];
    if (!run) {
      if (text !== null) this.runs.push({ keys: [key], texts: [text], segment: null });
      return;
    }
    const i = lowerBound(run.keys, key);
    const present = run.keys[i] === key;
    if (text === null) {
      if (!present) return;
      run.keys.splice(i, 1);
      run.texts.splice(i, 1);
      run.segment = null;
      if (run.keys.length < RUN_MAX / 4) this.merge(at);
      return;
    }
    if (present) {
      if (run.texts[i] === text) return;
      run.texts[i] = text;
      run.segment = null;
      return;
    }
    run.keys.splice(i, 0, key);
    run.texts.splice(i, 0, text);
    run.segment = null;
    if (run.keys.length > RUN_MAX) {
      const half = run.keys.length >>> 1;
      this.runs.splice(at + 1, 0, { keys: run.keys.splice(half), texts: run.texts.splice(half), segment: null });
    }
  }

  /** The run `key` belongs in: the last whose first key is not above it, else the first. */
  private runOf(key: string): number {
    let low = 0;
    let high = this.runs.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.runs[middle]!.keys[0]! <= key) low = middle + 1;
      else high = middle;
    }
    return Math.max(0, low - 1);
  }

  /** A run that became small joins its next (or previous) neighbour when both fit in one; an empty one goes. */
  private merge(at: number): void {
    const run = this.runs[at]!;
    if (run.keys.length === 0) {
      this.runs.splice(at, 1);
      return;
    }
    const into = at + 1 < this.runs.length ? at + 1 : at - 1;
    const neighbour = this.runs[into];
    if (!neighbour || neighbour.keys.length + run.keys.length > RUN_MAX) return;
    const [first, second] = into > at ? [run, neighbour] : [neighbour, run];
    this.runs.splice(Math.min(at, into), 2, {
      keys: [...first.keys, ...second.keys],
      texts: [...first.texts, ...second.texts],
      segment: null,
    });
  }
}
