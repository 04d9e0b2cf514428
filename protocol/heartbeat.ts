// WebSocket liveness, the same on every server socket (docs/security.md H16): a ping every 30 s, and a peer
// that lets two pings in a row go unanswered is terminated, so half-open connections and stalled clients do
// not hold their buffers forever. Browser-safe: works on anything with ping/terminate and a pong event.
export const HEARTBEAT_INTERVAL_MS = 30_000;
export const MISSED_PONGS_LIMIT = 2;

export interface HeartbeatSocket {
  ping(): void;
  terminate(): void;
  once(event: 'close', listener: () => void): unknown;
  on(event: 'pong', listener: () => void): unknown;
}

/** Starts the heartbeat on `socket`; it stops by itself when the socket closes. */
export function keepAlive(socket: HeartbeatSocket, intervalMs = HEARTBEAT_INTERVAL_MS): void {
  let missed = 0;
  socket.on('pong', () => {
    missed = 0;
  });
  const timer = setInterval(() => {
    if (missed >= MISSED_PONGS_LIMIT) {
      clearInterval(timer);
      socket.terminate();
      return;
    }
    missed++;
    try {
      socket.ping();
    } catch {
      // a socket mid-close; the close event clears the timer
    }
  }, intervalMs);
  (timer as { unref?: () => void }).unref?.();
  socket.once('close', () => clearInterval(timer));
}
