// One terminal per workspace session: the second connection is told `exit 1`; the first one's close
// releases the slot.
export class TerminalGuard {
  private readonly held = new Set<string>();

  acquire(session: string): boolean {
    if (this.held.has(session)) return false;
    this.held.add(session);
    return true;
  }

  release(session: string): void {
    this.held.delete(session);
  }

  get size(): number {
    return this.held.size;
  }
}
