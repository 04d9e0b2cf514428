// The monotonic clock reads as epoch ms near wall time, and never goes back.
import { describe, expect, it } from 'vitest';
import { monotonicClock } from './clock.js';

describe('monotonicClock', () => {
  it('starts near wall time and only advances', () => {
    expect(Math.abs(monotonicClock() - Date.now())).toBeLessThan(60_000);
    let previous = monotonicClock();
    for (let i = 0; i < 10_000; i++) {
      const now = monotonicClock();
      expect(now).toBeGreaterThanOrEqual(previous);
      previous = now;
    }
  });
});
