// HTTP server limits, the same on ship and bridge (docs/security.md H15–H16): how long a client may take to
// send its headers and its whole request, how long an idle or never-reading socket is kept, how many
// connections and pending WebSocket upgrades are accepted. Plain values and a pure per-address counter, so
// this stays browser-safe; each server applies them to its own fastify instance.

export interface HttpLimits {
  /** Whole request (headers and body) must arrive within this; Node answers 408 and closes. */
  requestTimeoutMs: number;
  /** Headers must arrive within this (slowloris). */
  headersTimeoutMs: number;
  /** Idle time allowed between requests on a kept-alive socket. */
  keepAliveTimeoutMs: number;
  /**
   * A socket with no traffic either way for this long is destroyed: a client that stops reading its
   * response. Longer than any route's own deadline (a clone may run 10 minutes in silence); WebSocket
   * sockets are exempt (the heartbeat watches them).
   */
  idleSocketTimeoutMs: number;
  /** How often Node checks the header and request timeouts (its default, 30 s, lets a slow client hold 40 s). */
  timeoutCheckIntervalMs: number;
  bodyLimit: number;
  maxConnections: number;
  /** WebSocket upgrades from one address still waiting for their handshake (credential check) to finish. */
  pendingUpgradesPerAddress: number;
}

export const HTTP_LIMITS: HttpLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  idleSocketTimeoutMs: 15 * 60_000,
  timeoutCheckIntervalMs: 1_000,
  bodyLimit: 1024 * 1024,
  maxConnections: 2048,
  pendingUpgradesPerAddress: 32,
};

/** The fastify constructor options these limits map to (a plain object; fastify hands `http` to Node). */
export function httpServerOptions(limits: HttpLimits) {
  return {
    bodyLimit: limits.bodyLimit,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.idleSocketTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: limits.timeoutCheckIntervalMs },
  };
}

export const TOO_MANY_PENDING_UPGRADES = 'too many pending connections from this address';

interface UpgradeRequest {
  socket: { remoteAddress?: string; once(event: 'close', listener: () => void): unknown };
}

/**
 * Counts WebSocket upgrades per remote address from the moment their request arrives until the handshake
 * completes or the socket closes. `admit` refuses the one over the limit, so one address cannot park
 * hundreds of upgrades on a slow credential check and starve everyone else of connections.
 */
export class PendingUpgrades {
  private readonly counts = new Map<string, number>();
  private readonly pending = new WeakMap<UpgradeRequest, string>();

  constructor(private readonly limit: number) {}

  admit(request: UpgradeRequest): boolean {
    const address = request.socket.remoteAddress ?? '';
    const count = this.counts.get(address) ?? 0;
    if (count >= this.limit) return false;
    this.counts.set(address, count + 1);
    this.pending.set(request, address);
    request.socket.once('close', () => this.settle(request));
    return true;
  }

  /** The handshake finished (or the socket closed): the upgrade no longer counts. Idempotent. */
  settle(request: UpgradeRequest): void {
    const address = this.pending.get(request);
    if (address === undefined) return;
    this.pending.delete(request);
    const count = (this.counts.get(address) ?? 1) - 1;
    if (count <= 0) this.counts.delete(address);
    else this.counts.set(address, count);
  }
}
