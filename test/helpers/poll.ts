// The one way tests wait for a condition (docs/DECISIONS.md, "Which polling helper do tests use?"): poll a
// probe until it answers, and fail naming what was awaited once the deadline has passed. Inside a test body,
// expect.poll serves assertions; everything else that waits (helpers, hooks, fault tests) calls `until`.
//
// It waits on node:timers/promises and reads performance.now(), which vi.useFakeTimers leaves real, so a test
// that fakes setTimeout and Date can still wait for real work to finish.

import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The first value `probe` gives other than null, undefined or false, polled every `intervalMs`; a probe that
 * throws has not answered yet (the process it asks may be restarting). Checked once more at the deadline, then
 * fails with `what` (a function when the message should show the state at the deadline) and the last error.
 */
export async function until<T>(
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  what: string | (() => string),
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch((error: unknown) => {
        lastError = error;
        return null;
      });
    if (value !== null && value !== undefined && value !== false) return value;
    if (performance.now() > deadline) {
      const thrown = lastError === undefined ? '' : `; the probe last threw: ${String(lastError)}`;
      const message = `timed out after ${timeoutMs} ms: ${typeof what === 'string' ? what : what()}${thrown}`;
      throw new Error(message, { cause: lastError });
    }
    await sleep(intervalMs);
  }
}

/** Milliseconds until `check` holds (see `until`). */
export async function msUntil(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<number> {
  const started = performance.now();
  await until(check, what, timeoutMs);
  return performance.now() - started;
}

/**
 * Whether `waiting` (an `until`, a terminal client's `until`) fulfilled, its failure taken as `false`: for a
 * wait the test follows with its own assertion, which shows the state where a timeout would only name it, or
 * one whose miss the caller handles (a SIGKILL after the SIGTERM's grace).
 */
export function settles(waiting: Promise<unknown>): Promise<boolean> {
  return waiting.then(
    () => true,
    () => false,
  );
}
