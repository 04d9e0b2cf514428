// WebSocket tickets (spec credential table): 30 s, single-use, in memory only (a restart voids them all).
// Each holds the user principal that minted it; a logout, password or role change, or user removal voids
// the unused tickets of that session or user (the guard also refuses one whose session has expired since).
import { WS_TICKET_LIFETIME_MS, type User } from '../../protocol/index.js';
import type { Clock } from '../../protocol/clock.js';
import type { Principal } from './principal.js';
import { newToken } from '../../server/tokens.js';

type UserPrincipal = Extract<Principal, { kind: 'user' }>;

interface Ticket {
  principal: UserPrincipal;
  expiresAt: number;
}

/** Live tickets are few (each lives 30 s); past this many the oldest are dropped. */
const MAX_TICKETS = 50_000;

export class TicketBook {
  private readonly tickets = new Map<string, Ticket>();
  private pruneAt = 1024;

  constructor(private readonly clock: Clock) {}

  issue(principal: UserPrincipal): { ticket: string; expiresAt: number } {
    this.prune();
    const ticket = newToken();
    const expiresAt = this.clock() + WS_TICKET_LIFETIME_MS;
    this.tickets.set(ticket, { principal, expiresAt });
    while (this.tickets.size > MAX_TICKETS) this.tickets.delete(this.tickets.keys().next().value as string);
    return { ticket, expiresAt };
  }

  /** The ticket's principal, consuming it; null when unknown, used or expired (valid strictly before expiry). */
  redeem(ticket: string): UserPrincipal | null {
    const entry = this.tickets.get(ticket);
    if (!entry) return null;
    this.tickets.delete(ticket);
    return this.clock() < entry.expiresAt ? entry.principal : null;
  }

  revokeSession(sessionHash: string): void {
    for (const [ticket, entry] of this.tickets)
      if (entry.principal.sessionHash === sessionHash) this.tickets.delete(ticket);
  }

  revokeUser(user: Pick<User, 'id'>): void {
    for (const [ticket, entry] of this.tickets) if (entry.principal.user.id === user.id) this.tickets.delete(ticket);
  }

  /** Drops expired tickets once the book has doubled since the last sweep (amortised O(1) per issue). */
  private prune(): void {
    if (this.tickets.size < this.pruneAt) return;
    const now = this.clock();
    for (const [ticket, entry] of this.tickets) if (now >= entry.expiresAt) this.tickets.delete(ticket);
    this.pruneAt = Math.max(1024, this.tickets.size * 2);
  }
}
