// Bearer token → principal, through the store with a short positive cache (30 s) so the routed path costs a
// hash and a map lookup, not a query. Every revocation made by this process drops the affected entries at
// once (logout, password change, role change, user or ship removal, agent-token rotation); the TTL only
// bounds how long another bridge process sharing the database could lag. Session expiry is checked on
// every request against the injected clock, cached or not.
import type { CredentialsStore } from '../store/credentials-store.js';
import type { Clock } from '../../protocol/clock.js';
import type { Principal } from './principal.js';
import { tokenHash } from '../../server/tokens.js';

const CACHE_TTL_MS = 30_000;
const CACHE_SIZE = 10_000;
/** A token longer than this is not one the bridge issued (ours are 43 characters). */
const MAX_TOKEN_LENGTH = 512;

interface Entry {
  principal: Principal;
  /** The session's expiry; Infinity for ship and agent tokens. */
  expiresAt: number;
  cachedAt: number;
  owner: string;
}

const ownerOf = (principal: Principal): string =>
  principal.kind === 'user' ? `user:${principal.user.id}` : `ship:${principal.ship}`;

export class Authenticator {
  private readonly cache = new Map<string, Entry>();

  constructor(
    private readonly credentials: CredentialsStore,
    private readonly clock: Clock,
  ) {}

  /** The cached principal for `token`: a principal, null (expired), or undefined (not cached: ask `resolve`). */
  cached(token: string): Principal | null | undefined {
    const hash = tokenHash(token);
    const entry = this.cache.get(hash);
    if (!entry) return undefined;
    const now = this.clock();
    if (now - entry.cachedAt >= CACHE_TTL_MS) {
      this.cache.delete(hash);
      return undefined;
    }
    return now < entry.expiresAt ? entry.principal : null;
  }

  /** Whether a session known to this process has expired by now (a ticket minted from it is void). */
  sessionExpired(sessionHash: string): boolean {
    const entry = this.cache.get(sessionHash);
    return entry !== undefined && this.clock() >= entry.expiresAt;
  }

  async resolve(token: string): Promise<Principal | null> {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
    const hash = tokenHash(token);
    const record = await this.credentials.lookup(hash);
    if (!record) return null;
    let principal: Principal;
    let expiresAt = Infinity;
    if (record.kind === 'session') {
      const { userId: id, username, email, role, createdAt } = record;
      principal = { kind: 'user', user: { id, username, email, role, createdAt }, sessionHash: hash };
      expiresAt = record.expiresAt;
    } else {
      principal = { kind: record.kind, ship: record.ship };
    }
    const now = this.clock();
    this.cache.set(hash, { principal, expiresAt, cachedAt: now, owner: ownerOf(principal) });
    while (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    return now < expiresAt ? principal : null;
  }

  forgetSession(sessionHash: string): void {
    this.cache.delete(sessionHash);
  }

  forgetUser(userId: string): void {
    this.forgetOwner(`user:${userId}`);
  }

  forgetShip(ship: string): void {
    this.forgetOwner(`ship:${ship}`);
  }

  private forgetOwner(owner: string): void {
    for (const [hash, entry] of this.cache) if (entry.owner === owner) this.cache.delete(hash);
  }
}
