// Single-flight for fleet-wide reads: the bridge's fleet listings (docs/security.md H17) and the operator's
// GET /ships and GET /repos (operator/reconcile/rosters.ts). At most one fetch runs at a time, and a caller
// shares a fetch only if that fetch started after the caller arrived. A caller arriving while a fetch runs
// waits for the next one, which starts when the running one ends and is shared by everyone who waited; no
// result is kept after its fetch ends. So a burst costs each ship about one call per fetch duration, yet a
// read never answers from a fetch begun before it arrived: a change on a ship or in the roster that
// happened before the request is always in its answer (issue #14).
// The order is structural (which fetch was running when a caller arrived), not timed: no clock to compare.
export class SingleFlight<T> {
  /** The fetch running now, whose result goes only to callers that arrived before it started. */
  private running: Promise<T> | null = null;
  /** The fetch that starts when `running` ends, shared by every caller that arrived while it ran. */
  private queued: { promise: Promise<T>; start: () => void } | null = null;

  constructor(private readonly run: () => Promise<T>) {}

  get(): Promise<T> {
    if (!this.running) return this.start();
    if (!this.queued) {
      let start!: () => void;
      const promise = new Promise<T>((resolve) => (start = () => resolve(this.start())));
      this.queued = { promise, start };
    }
    return this.queued.promise;
  }

  private start(): Promise<T> {
    // `run` is called now (it reads the roster now); a synchronous throw becomes this fetch's rejection.
    const fetch = new Promise<T>((resolve) => resolve(this.run()));
    this.running = fetch;
    // Registered before any caller's continuation: the hand-over to the queued fetch happens in one step,
    // so no caller can slip in between and start a second fetch beside it.
    const settle = () => {
      const next = this.queued;
      this.queued = null;
      this.running = null;
      next?.start();
    };
    fetch.then(settle, settle);
    return fetch;
  }
}
