// The idle heap release: V8's full collection when the loop was idle and the heap holds more than it uses;
// none while the loop is busy, without slack, or after stop; and `gc` never left on the global object.
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { releaseHeapWhenIdle, type IdleHeapOptions } from './idle-heap.js';

let stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

/** How many times the release collected over a few checks. */
async function collections(options: IdleHeapOptions, stopAtOnce = false): Promise<number> {
  let count = 0;
  const stop = releaseHeapWhenIdle({ checkMs: 50, ...options, collect: () => count++ });
  stops.push(stop);
  if (stopAtOnce) stop();
  await sleep(300);
  return count;
}

describe('releaseHeapWhenIdle', () => {
  it('runs a major collection when the loop was idle and the heap has slack', async () => {
    const seen: PerformanceEntry[] = [];
    const observer = new PerformanceObserver((list) => seen.push(...list.getEntries()));
    observer.observe({ entryTypes: ['gc'] });
    stops.push(releaseHeapWhenIdle({ checkMs: 50, idleUtilization: 1, slackBytes: 0 }));
    // Entries arrive on a later turn than their collection.
    await sleep(300);
    observer.disconnect();
    const major = seen.filter(
      (entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
    );
    expect(major.length).toBeGreaterThan(0);
    // The collector came from a context of its own: new contexts and the global object do not get `gc` from it.
    expect(runInNewContext('typeof gc')).toBe(typeof (globalThis as { gc?: unknown }).gc);
  });

  it('collects only when idle, with slack, and until stopped', async () => {
    expect(await collections({ idleUtilization: 1, slackBytes: 0 })).toBeGreaterThan(0);
    // No share of the loop's time is idle enough: a busy loop is never interrupted.
    expect(await collections({ idleUtilization: -1, slackBytes: 0 })).toBe(0);
    expect(await collections({ idleUtilization: 1, slackBytes: Number.MAX_SAFE_INTEGER })).toBe(0);
    expect(await collections({ idleUtilization: 1, slackBytes: 0 }, true)).toBe(0);
  });
});
