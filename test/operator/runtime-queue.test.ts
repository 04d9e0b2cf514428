// The operator's work queue (operator/runtime/queue.ts) on its own: de-duplication, one reconcile per key at a
// time (a change arriving mid-reconcile runs once more afterwards, never concurrently), capped exponential
// retries reset by a success, requeueAfter, and the start/stop gate leader election drives.
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../protocol/backoff.js';
import { WorkQueue, type QueueHandler, type ReconcileOutcome } from '../../operator/runtime/queue.js';
import { until } from '../helpers/poll.js';

// A pause: a reconcile that takes time, or (after the wait for what must happen) a window for what must not.
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function recordingQueue(
  handler: QueueHandler,
  options: { concurrency?: number; baseMs?: number; maxMs?: number } = {},
) {
  const outcomes: Array<{ key: string; outcome: ReconcileOutcome }> = [];
  const queue = new WorkQueue({
    handler,
    concurrency: options.concurrency ?? 4,
    retry: { baseMs: options.baseMs ?? 20, maxMs: options.maxMs ?? 160 },
    onDone: (key, outcome) => outcomes.push({ key, outcome }),
  });
  return { queue, outcomes };
}

describe('operator work queue', () => {
  it('backoff doubles from the base and stops at the cap', () => {
    const policy = { baseMs: 200, maxMs: 60_000 };
    expect([1, 2, 3, 4, 9, 10, 30, 1_000].map((failures) => backoffDelay(policy, failures))).toEqual([
      200, 400, 800, 1_600, 51_200, 60_000, 60_000, 60_000,
    ]);
    // Jitter only ever shortens the delay, by at most its fraction.
    expect(backoffDelay({ ...policy, jitter: 0.2 }, 3, () => 1)).toBe(640);
  });

  it('de-duplicates a key added many times while it waits', async () => {
    const calls: string[] = [];
    const { queue } = recordingQueue(async (key) => {
      calls.push(key);
    });
    for (let index = 0; index < 50; index += 1) queue.add('ns/a');
    queue.add('ns/b');
    expect(queue.depth).toBe(2);
    queue.start();
    await until(async () => calls.length === 2, 'both keys reconciled');
    // A window, not a condition: no third reconcile follows.
    await tick(30);
    expect(calls.sort()).toEqual(['ns/a', 'ns/b']);
  });

  it('never reconciles one key twice at once; a change during a reconcile runs it once more afterwards', async () => {
    let running = 0;
    let maxRunningA = 0;
    let calls = 0;
    const { queue } = recordingQueue(
      async (key) => {
        if (key !== 'ns/a') return;
        calls += 1;
        running += 1;
        maxRunningA = Math.max(maxRunningA, running);
        // A reconcile that takes a while, so changes arrive while it runs.
        await tick(40);
        running -= 1;
      },
      { concurrency: 8 },
    );
    queue.start();
    queue.add('ns/a');
    await until(async () => running === 1, 'the first reconcile of ns/a running');
    // Mid-reconcile: ten more changes to the same key, and other keys that may run in parallel.
    for (let index = 0; index < 10; index += 1) {
      queue.add('ns/a');
      queue.add(`ns/other-${index}`);
    }
    await until(async () => calls === 2 && running === 0, 'the second reconcile of ns/a to finish', 5_000);
    // A window, not a condition: a third reconcile of ns/a would have started by now; none may overlap.
    await tick(80);
    expect(maxRunningA).toBe(1);
    expect(calls).toBe(2);
  });

  it('runs different keys concurrently up to the concurrency', async () => {
    let running = 0;
    let maxRunning = 0;
    const { queue } = recordingQueue(
      async () => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        // A reconcile that takes a while, so the parallel ones overlap.
        await tick(30);
        running -= 1;
      },
      { concurrency: 3 },
    );
    for (let index = 0; index < 9; index += 1) queue.add(`ns/k${index}`);
    queue.start();
    await until(async () => queue.depth === 0 && running === 0, 'all keys done', 5_000);
    expect(maxRunning).toBe(3);
  });

  it('retries a failing key with exponential backoff up to the cap, and a success resets it', async () => {
    const attempts: number[] = [];
    let failUntil = 6;
    const { queue, outcomes } = recordingQueue(
      async () => {
        attempts.push(performance.now());
        if (attempts.length < failUntil) throw new Error('bridge unavailable');
      },
      { baseMs: 20, maxMs: 100 },
    );
    queue.start();
    queue.add('ns/a');
    await until(async () => attempts.length === 6, 'six attempts', 5_000);
    const gaps = attempts.slice(1).map((at, index) => at - attempts[index]!);
    // 20, 40, 80, 100 (capped), 100 — each at least its delay, and not wildly more.
    for (const [index, expected] of [20, 40, 80, 100, 100].entries()) {
      expect(gaps[index]).toBeGreaterThanOrEqual(expected - 2);
      expect(gaps[index]).toBeLessThan(expected + 60);
    }
    expect(outcomes.map((entry) => entry.outcome)).toEqual(['error', 'error', 'error', 'error', 'error', 'success']);
    expect(queue.retries('ns/a')).toBe(0);
    // After the success, the next failure starts from the base delay again.
    failUntil = 8;
    const before = attempts.length;
    queue.add('ns/a');
    await until(async () => attempts.length === before + 2, 'a failure then a retry', 5_000);
    expect(attempts[before + 1]! - attempts[before]!).toBeLessThan(20 + 60);
  });

  it('requeueAfter reconciles the key again after the delay; an earlier event wins and cancels it', async () => {
    const calls: number[] = [];
    const { queue, outcomes } = recordingQueue(async () => {
      calls.push(performance.now());
      return calls.length === 1 ? { requeueAfterMs: 150 } : undefined;
    });
    queue.start();
    queue.add('ns/a');
    await until(async () => calls.length === 2, 'the requeue', 5_000);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(148);
    expect(outcomes[0]!.outcome).toBe('requeue');

    // A long requeue cut short by an event: the event runs at once, and the timer no longer fires.
    let count = 0;
    const counted = new WorkQueue({
      handler: async () => {
        count += 1;
        return count === 1 ? { requeueAfterMs: 120 } : undefined;
      },
    });
    counted.start();
    counted.add('ns/b');
    await until(async () => count === 1, 'first reconcile');
    counted.add('ns/b');
    await until(async () => count === 2, 'the event-driven reconcile');
    // A window, not a condition: no timed requeue may follow the event-driven reconcile.
    await tick(200);
    expect(count).toBe(2);
    expect(counted.waiting).toBe(0);
    await counted.shutdown();
  });

  it('only runs while started; stop() aborts reconciles in flight and keeps their keys queued', async () => {
    const seen: string[] = [];
    let aborted = 0;
    const { queue } = recordingQueue(async (key, signal) => {
      seen.push(key);
      if (key === 'ns/slow') {
        await new Promise<void>((resolve) => {
          // A slow reconcile, cut short by the abort this test is about.
          const timer = setTimeout(resolve, 5_000);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            aborted += 1;
            resolve();
          });
        });
        signal.throwIfAborted();
      }
    });
    queue.add('ns/a');
    // A window, not a condition: a stopped queue must not reconcile.
    await tick(50);
    expect(seen).toEqual([]);
    queue.start();
    await until(async () => seen.includes('ns/a'), 'ns/a after start');
    queue.add('ns/slow');
    await until(async () => seen.includes('ns/slow'), 'ns/slow started');
    await queue.stop();
    expect(aborted).toBe(1);
    // Added while stopped: held, with the aborted key, until the next start.
    queue.add('ns/c');
    // A window, not a condition: a key added while stopped must wait for the next start.
    await tick(50);
    expect(seen.filter((key) => key === 'ns/c')).toEqual([]);
    expect(queue.depth).toBe(2);
    queue.start();
    await until(
      async () => seen.includes('ns/c') && seen.filter((key) => key === 'ns/slow').length === 2,
      'both after restart',
    );
    await queue.shutdown();
  });
});
