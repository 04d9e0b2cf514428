// The login backoff's schedule with a hand-moved clock: free failures, doubling to the 60 s cap, the
// address's larger allowance, a success clearing only the name, and forgetting after 15 quiet minutes.
import { describe, expect, it } from 'vitest';
import { LoginBackoff } from './login-backoff.js';

describe('login backoff', () => {
  it('delays a name after five failures, doubling to 60 s, until a success', () => {
    let now = 0;
    const backoff = new LoginBackoff(() => now);
    const delays: number[] = [];
    for (let i = 0; i < 13; i++) {
      delays.push(backoff.delayMs('Alice', `10.0.0.${i}`));
      backoff.failed('alice', `10.0.0.${i}`);
      now += 1000;
    }
    expect(delays).toEqual([0, 0, 0, 0, 0, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
    backoff.succeeded('ALICE');
    expect(backoff.delayMs('alice', '10.0.0.99')).toBe(0);
  });

  it('gives one address twenty failures across names, and a success does not clear it', () => {
    const backoff = new LoginBackoff(() => 0);
    for (let i = 0; i < 20; i++) backoff.failed(`user${i}`, '192.0.2.1');
    expect(backoff.delayMs('fresh', '192.0.2.1')).toBe(1000);
    backoff.succeeded('fresh');
    expect(backoff.delayMs('fresh', '192.0.2.1')).toBe(1000);
    expect(backoff.delayMs('fresh', '192.0.2.2')).toBe(0);
  });

  it('forgets a key after 15 quiet minutes', () => {
    let now = 0;
    const backoff = new LoginBackoff(() => now);
    for (let i = 0; i < 8; i++) backoff.failed('bob', '192.0.2.3');
    expect(backoff.delayMs('bob', '192.0.2.4')).toBe(8000);
    now += 15 * 60_000 + 1;
    expect(backoff.delayMs('bob', '192.0.2.4')).toBe(0);
  });
});
