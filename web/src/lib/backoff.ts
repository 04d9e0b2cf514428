// The GUI's one retry schedule for its sockets: each wait doubles from `first` up to `max`, and a
// connection that worked starts the schedule over. Pure.
export class Backoff {
  private wait: number;

  constructor(
    private readonly first = 250,
    private readonly max = 5000,
  ) {
    this.wait = first;
  }

  /** The wait before the next attempt, in ms. */
  next(): number {
    const wait = this.wait;
    this.wait = Math.min(this.wait * 2, this.max);
    return wait;
  }

  reset(): void {
    this.wait = this.first;
  }
}
