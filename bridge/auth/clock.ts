// The bridge's notion of now, in epoch ms, injected wherever a lifetime is enforced (sessions, tickets,
// login backoff) so tests move time instead of waiting for it. Two kinds: wall time for what is stored and
// must mean the same after a restart (session expiry), and a monotonic clock for what lives only in memory
// (tickets, backoff), so a wall-clock step backwards never extends a ticket (security notes X10).
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** Epoch-ms readings that only ever advance: the process start's wall time plus monotonic elapsed time. */
export const monotonicClock: Clock = () => performance.timeOrigin + performance.now();
