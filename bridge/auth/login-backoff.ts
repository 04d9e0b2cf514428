// Failed-login backoff per username and per client address (docs/security.md H17/H22): after a few free
// failures each further attempt on that key waits 1 s, doubling to 60 s, before it is even checked; a
// success clears the username's count. An address gets more free failures than a name (many people share
// one address behind a NAT, or the CLI on one host), and a success does not clear it (an attacker holding
// one account must not be able to reset it). Pure: the caller sleeps for the delay it is given.
import type { Clock } from '../../protocol/clock.js';

const FREE_FAILURES_PER_USER = 5;
export const FREE_FAILURES_PER_ADDRESS = 20;
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 60_000;
/** A key with no failure for this long is forgotten. */
const FORGET_AFTER_MS = 15 * 60_000;
const MAX_KEYS = 10_000;

interface Failures {
  count: number;
  last: number;
}

export class LoginBackoff {
  private readonly failures = new Map<string, Failures>();

  constructor(private readonly clock: Clock) {}

  /** How long an attempt for this username from this address waits before it is checked. */
  delayMs(username: string, address: string): number {
    return Math.max(
      this.delayOf(`user:${username.toLowerCase()}`, FREE_FAILURES_PER_USER),
      this.delayOf(`ip:${address}`, FREE_FAILURES_PER_ADDRESS),
    );
  }

  failed(username: string, address: string): void {
    this.bump(`user:${username.toLowerCase()}`);
    this.bump(`ip:${address}`);
  }

  succeeded(username: string): void {
    this.failures.delete(`user:${username.toLowerCase()}`);
  }

  private delayOf(key: string, free: number): number {
    const entry = this.failures.get(key);
    if (!entry) return 0;
    if (this.clock() - entry.last > FORGET_AFTER_MS) {
      this.failures.delete(key);
      return 0;
    }
    if (entry.count < free) return 0;
    return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (entry.count - free));
  }

  private bump(key: string): void {
    const entry = this.failures.get(key) ?? { count: 0, last: 0 };
    this.failures.delete(key);
    entry.count++;
    entry.last = this.clock();
    this.failures.set(key, entry);
    // Oldest first in insertion order: a flood of fresh keys evicts the stalest ones.
    while (this.failures.size > MAX_KEYS) this.failures.delete(this.failures.keys().next().value as string);
  }
}
