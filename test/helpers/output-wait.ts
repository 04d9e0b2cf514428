// The one wait on a child process's output (ptyCli, startCli, startNpx): poll what it has written until a
// pattern shows, and fail with that output once the deadline has passed or the process ended without it.
import { until } from './poll.js';

/**
 * The text of `output()` that `pattern` matches (the string itself, or the RegExp's match), polled every
 * 20 ms. Fails with `label` and the output at that moment when the process `ended()` without showing it, or
 * after `timeoutMs`.
 */
export async function untilOutput(
  output: () => string,
  ended: () => boolean,
  pattern: RegExp | string,
  timeoutMs: number,
  label = 'output:',
): Promise<string> {
  const match = () => {
    const text = output();
    return typeof pattern === 'string' ? (text.includes(pattern) ? pattern : null) : pattern.exec(text)?.[0];
  };
  const shown = () => `waited for ${String(pattern)}; ${label}\n${output()}`;
  const seen = await until(() => match() || (ended() && { ended: true }), shown, timeoutMs, 20);
  if (typeof seen === 'string') return seen;
  const late = match(); // written just before the end
  if (late) return late;
  throw new Error(shown());
}
