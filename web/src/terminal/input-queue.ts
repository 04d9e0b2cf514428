// Keystrokes typed while the terminal is away, kept in order for when it is back: bounded by UTF-8 bytes,
// and once full it takes nothing more (a later keystroke without the earlier ones would be a different
// command) and says so until it is drained. Pure.
const utf8 = new TextEncoder();

export class InputQueue {
  private items: string[] = [];
  private bytes = 0;
  /** Input was refused since the last drain. */
  full = false;

  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.bytes;
  }

  /** False (and `full` set) when `data` does not fit. */
  push(data: string): boolean {
    const size = utf8.encode(data).length;
    if (this.full || this.bytes + size > this.maxBytes) {
      this.full = true;
      return false;
    }
    this.items.push(data);
    this.bytes += size;
    return true;
  }

  /** Everything kept, in order, as one string; the queue is empty and accepting again. */
  drain(): string {
    const all = this.items.join('');
    this.items = [];
    this.bytes = 0;
    this.full = false;
    return all;
  }
}
