import { describe, expect, it } from 'vitest';
import { SingleFlight } from './single-flight.js';

/** A fetch the test ends by hand: `release(i, value)` settles the i-th call (0-based). */
function manual<T>() {
  const pending: Array<{ resolve: (value: T) => void; reject: (error: Error) => void }> = [];
  let running = 0;
  let maxRunning = 0;
  const run = () => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    return new Promise<T>((resolve, reject) => pending.push({ resolve, reject })).finally(() => running--);
  };
  return {
    run,
    get calls() {
      return pending.length;
    },
    get maxRunning() {
      return maxRunning;
    },
    release: (i: number, value: T) => pending[i]!.resolve(value),
    fail: (i: number, error: Error) => pending[i]!.reject(error),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('single flight', () => {
  it('gives a caller arriving after a fetch started the next fetch, shared by all who waited', async () => {
    const fetches = manual<string>();
    const flight = new SingleFlight(fetches.run);
    const first = flight.get();
    const late = [flight.get(), flight.get(), flight.get()];
    expect(fetches.calls).toBe(1);
    fetches.release(0, 'old');
    expect(await first).toBe('old');
    await tick();
    expect(fetches.calls).toBe(2);
    const later = flight.get();
    fetches.release(1, 'new');
    expect(await Promise.all(late)).toEqual(['new', 'new', 'new']);
    await tick();
    expect(fetches.calls).toBe(3);
    fetches.release(2, 'newest');
    expect(await later).toBe('newest');
    expect(fetches.maxRunning).toBe(1);
  });

  it('remembers nothing once a fetch ended', async () => {
    let calls = 0;
    const flight = new SingleFlight(async () => ++calls);
    expect(await flight.get()).toBe(1);
    expect(await flight.get()).toBe(2);
    expect(await flight.get()).toBe(3);
  });

  it('never answers a caller with a roster read before a change that preceded its arrival', async () => {
    const roster = ['alpha'];
    const gate = manual<void>();
    const flight = new SingleFlight(async () => {
      const seen = [...roster];
      await gate.run();
      return seen;
    });
    const before = flight.get();
    roster.push('beta');
    const after = flight.get();
    gate.release(0);
    expect(await before).toEqual(['alpha']);
    await tick();
    gate.release(1);
    expect(await after).toEqual(['alpha', 'beta']);
  });

  it('shares a failure among its callers only, and still runs the fetch queued behind it', async () => {
    const fetches = manual<string>();
    const flight = new SingleFlight(fetches.run);
    const first = [flight.get()];
    const queued = flight.get();
    fetches.fail(0, new Error('down'));
    await expect(Promise.all(first)).rejects.toThrow('down');
    await tick();
    fetches.release(1, 'up');
    expect(await queued).toBe('up');
  });

  it('turns a synchronous throw into a rejection and recovers', async () => {
    let calls = 0;
    const flight = new SingleFlight(() => {
      if (++calls === 1) throw new Error('boom');
      return Promise.resolve('fine');
    });
    await expect(flight.get()).rejects.toThrow('boom');
    expect(await flight.get()).toBe('fine');
  });
});
