import { describe, expect, it } from 'vitest';
import { SingleFlight } from './single-flight.js';

describe('single flight', () => {
  it('shares one call among concurrent callers and reuses a fresh result', async () => {
    let calls = 0;
    let time = 0;
    let release!: (value: number) => void;
    const flight = new SingleFlight(() => {
      calls++;
      return new Promise<number>((resolve) => (release = resolve));
    }, 500, () => time);
    const waiting = [flight.get(), flight.get(), flight.get()];
    release(7);
    expect(await Promise.all(waiting)).toEqual([7, 7, 7]);
    expect(calls).toBe(1);
    time = 499;
    expect(await flight.get()).toBe(7);
    expect(calls).toBe(1);
    time = 500;
    const next = flight.get();
    release(8);
    expect(await next).toBe(8);
    expect(calls).toBe(2);
    flight.invalidate();
    const after = flight.get();
    release(9);
    expect(await after).toBe(9);
    expect(calls).toBe(3);
  });

  it('does not remember a failure', async () => {
    let calls = 0;
    const flight = new SingleFlight(async () => {
      calls++;
      if (calls === 1) throw new Error('down');
      return 'up';
    });
    await expect(flight.get()).rejects.toThrow('down');
    expect(await flight.get()).toBe('up');
  });
});
