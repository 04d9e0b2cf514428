// Waiting on real processes in fault tests: poll an async probe until it answers, and fail naming what was
// awaited once the deadline has passed. (Inside a test body, expect.poll serves synchronous checks.)

/**
 * The first value `probe` gives other than null or false, polled every `intervalMs`; a probe that throws has
 * not answered yet (the process it asks may be restarting). Checked once more at the deadline, then fails.
 */
export async function until<T>(
  probe: () => Promise<T | null | false>,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Milliseconds until `check` holds (see `until`). */
export async function msUntil(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  await until(check, what, timeoutMs);
  return Date.now() - started;
}
