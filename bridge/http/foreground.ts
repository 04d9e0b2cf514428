// The requests the bridge is answering, for its background work to step aside for: a sweep pass
// (ephemeral/sweeper.ts) takes its next step only once none is in flight (or after a short wait under a
// steady stream), and paces its steps while requests keep arriving, so a pass run back to back with routed
// traffic costs that traffic little latency (issue #17). WebSocket upgrades are not counted (they are long-lived), nor are the routes marked background
// (POST /workspaces/sweep itself waits for the whole pass).
import type { FastifyInstance } from 'fastify';

export class Foreground {
  private inFlight = 0;
  private waiting: Array<() => void> = [];
  private lastSeenAt = -Infinity;

  /** Counts every plain request of `app` except those whose route config says `background: true`. */
  install(app: FastifyInstance): void {
    app.addHook('onRequest', (request, reply, done) => {
      if (request.headers.upgrade || (request.routeOptions.config as { background?: boolean } | undefined)?.background)
        return done();
      this.inFlight++;
      this.lastSeenAt = performance.now();
      reply.raw.once('close', () => this.settled());
      done();
    });
  }

  /** Whether a counted request arrived within the last `windowMs`. */
  activeWithin(windowMs: number): boolean {
    return performance.now() - this.lastSeenAt < windowMs;
  }

  /** Resolves once no counted request is in flight, or after `maxWaitMs` at most. */
  whenIdle(maxWaitMs: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(finish, maxWaitMs);
      const waiting = this.waiting;
      function finish(): void {
        clearTimeout(timer);
        const index = waiting.indexOf(finish);
        if (index >= 0) waiting.splice(index, 1);
        resolve();
      }
      waiting.push(finish);
    });
  }

  private settled(): void {
    this.inFlight--;
    if (this.inFlight > 0 || this.waiting.length === 0) return;
    for (const finish of this.waiting.slice()) finish();
  }
}
