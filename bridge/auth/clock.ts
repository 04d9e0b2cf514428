// The bridge's notion of now, in epoch ms, injected wherever a lifetime is enforced (sessions, tickets,
// login backoff) so tests move time instead of waiting for it.
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
