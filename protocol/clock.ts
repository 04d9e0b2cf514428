// Now, in epoch ms, injected wherever a lifetime is enforced — the bridge's sessions, tickets and login
// backoff, the operator's leases, grace periods and condition times — so tests move time instead of
// waiting for it. Two kinds: wall time for what is stored and must mean the same after a restart (session
// expiry), and a monotonic clock for what lives only in memory (tickets, backoff). The bridge reads wall
// time through `forwardOnly`, so a wall-clock step backwards extends neither (docs/security.md X10).
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** Epoch-ms readings that only ever advance: the process start's wall time plus monotonic elapsed time. */
export const monotonicClock: Clock = () => performance.timeOrigin + performance.now();

/**
 * `source` with every step backwards taken out: a reading below the last one moves an offset instead, so
 * time goes on from where it was at the source's pace (a clock set back an hour does not give every session
 * an extra hour). Steps forward pass through: they can only end lifetimes early. The offset lives in memory;
 * a bridge restarted on a clock set back starts from the clock again.
 */
export function forwardOnly(source: Clock): Clock {
  let offset = 0;
  let last = -Infinity;
  return () => {
    const reading = source() + offset;
    if (reading < last) {
      offset += last - reading;
      return last;
    }
    last = reading;
    return reading;
  };
}
