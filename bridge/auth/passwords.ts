// Password hashing: argon2id through @node-rs/argon2 at OWASP's minimum (m=19 MiB, t=2, p=1), computed on
// libuv's thread pool so a login burst never stalls the event loop (and with it proxied terminals). The
// parameters travel inside the PHC string stored per user, so raising them later still verifies old hashes.
// At most 8 hashes wait behind the ones running; past that a caller gets 503 with Retry-After (security
// notes H17: a hash is costly by design, and a burst of logins would otherwise saturate the cores).
import { Algorithm, hash, verify } from '@node-rs/argon2';
import { BridgeError } from '../errors.js';

const PARAMETERS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const RUNNING = 4;
const QUEUE_DEPTH = 8;

export class PasswordHasher {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** A real hash of a random password: unknown users are verified against it so they take as long. */
  private dummy: Promise<string> | null = null;

  hash(password: string): Promise<string> {
    return this.slot(() => hash(password, PARAMETERS));
  }

  /** Whether `password` matches `stored`; a malformed stored hash is a mismatch, never an exception. */
  verify(stored: string, password: string): Promise<boolean> {
    return this.slot(() => verify(stored, password).catch(() => false));
  }

  /** Spends the time of one verification and answers false (unknown user). */
  async verifyDummy(password: string): Promise<false> {
    this.dummy ??= hash(`dummy-${Math.random()}`, PARAMETERS);
    await this.verify(await this.dummy, password);
    return false;
  }

  private async slot<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= RUNNING) {
      if (this.waiting.length >= QUEUE_DEPTH)
        throw new BridgeError(503, 'too many password checks in progress; retry shortly', { 'retry-after': '1' });
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
