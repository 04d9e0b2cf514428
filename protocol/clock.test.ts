// The monotonic clock reads as epoch ms near wall time, and never goes back; a forward-only wall clock
// takes steps backwards out and keeps the source's pace.
import { describe, expect, it } from 'vitest';
import { forwardOnly, monotonicClock } from './clock.js';

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

describe('forwardOnly', () => {
  it('passes a clock moving forward through unchanged, jumps included', () => {
    let now = 1_000;
    const clock = forwardOnly(() => now);
    expect(clock()).toBe(1_000);
    now = 1_001;
    expect(clock()).toBe(1_001);
    now += 86_400_000;
    expect(clock()).toBe(86_401_001);
  });

  it('holds at a step backwards and then advances at the source pace from where it was', () => {
    let now = 10_000_000;
    const clock = forwardOnly(() => now);
    expect(clock()).toBe(10_000_000);
    now -= 3_600_000;
    expect(clock()).toBe(10_000_000);
    now += 1;
    expect(clock()).toBe(10_000_001);
    now -= 5;
    expect(clock()).toBe(10_000_001);
    now += 10;
    expect(clock()).toBe(10_000_011);
  });
});
