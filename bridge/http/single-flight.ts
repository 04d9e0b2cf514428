// Single-flight with a short memory, for fleet-wide reads (security notes H17): concurrent callers share
// the one call in flight, and a result younger than `ttlMs` is reused, so a burst of `GET /workspaces` or
// `GET /system-resources` costs each ship one call, not one per request.
export class SingleFlight<T> {
  private inFlight: Promise<T> | null = null;
  private last: { at: number; value: T } | null = null;

  constructor(private readonly run: () => Promise<T>, private readonly ttlMs = 500, private readonly now: () => number = Date.now) {}

  get(): Promise<T> {
    if (this.last && this.now() - this.last.at < this.ttlMs) return Promise.resolve(this.last.value);
    this.inFlight ??= this.run()
      .then((value) => {
        this.last = { at: this.now(), value };
        return value;
      })
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  /** Forget the remembered result (after a change the next read must see). */
  invalidate(): void {
    this.last = null;
  }
}
