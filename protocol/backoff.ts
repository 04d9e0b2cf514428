// Capped exponential backoff with optional jitter, the one retry schedule of svc: the operator's per-key
// retries and watch restarts, the bridge's reconnects to its ships, the GUI's sockets. Jitter (a random
// factor taken off each delay) keeps many keys, replicas or bridges that failed together from retrying in
// lockstep against a recovering server. Pure: the GUI loads it too.

export interface BackoffPolicy {
  /** Delay after the first failure. */
  baseMs: number;
  /** Never wait longer than this. */
  maxMs: number;
  /** Fraction of the delay taken off at random (0 = none). */
  jitter?: number;
}

/** The delay before retry number `failures` (1 = after the first failure). */
export function backoffDelay(policy: BackoffPolicy, failures: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, failures - 1);
  // 2 ** 60 overflows nothing in a double, but cap the exponent so the product stays finite and exact.
  const raw = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(exponent, 52));
  const jitter = policy.jitter ?? 0;
  return Math.round(raw * (1 - jitter * random()));
}

/** The GUI's sockets: from a quarter second up to five, no jitter (one browser retries alone). */
export const GUI_RECONNECT: BackoffPolicy = { baseMs: 250, maxMs: 5000 };

/** Counts consecutive failures of one thing (a key, a watch, a socket) and turns them into delays. */
export class Backoff {
  private failures = 0;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** Records a failure and returns how long to wait before the next attempt. */
  next(): number {
    this.failures += 1;
    return backoffDelay(this.policy, this.failures, this.random);
  }

  reset(): void {
    this.failures = 0;
  }

  get attempts(): number {
    return this.failures;
  }
}
