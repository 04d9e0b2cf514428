// Who a request acts as (spec "Principals"): a user through a session (or a ticket minted from one), a ship
// through its shipToken, or a ship's agents through the token the bridge pushed to that ship.
import type { User } from '../../protocol/index.js';

export type Principal =
  | { kind: 'user'; user: User; sessionHash: string | null }
  | { kind: 'ship'; ship: string }
  | { kind: 'ship-agent'; ship: string };

/** How a principal is named in audit lines: `user:<name>`, `ship:<name>`, `ship-agent:<ship>`, or `anonymous`. */
export function principalName(principal: Principal | null): string {
  if (!principal) return 'anonymous';
  return principal.kind === 'user' ? `user:${principal.user.username}` : `${principal.kind}:${principal.ship}`;
}

/** What every request is with `--insecure-no-auth`: an admin, decided before any header is read. */
export const INSECURE_ADMIN: Principal = {
  kind: 'user',
  user: {
    id: '00000000-0000-0000-0000-000000000000',
    username: 'admin',
    email: 'admin@localhost',
    role: 'admin',
    createdAt: 0,
  },
  sessionHash: null,
};

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth guard before routing; null only on open routes reached without a credential. */
    principal: Principal | null;
  }
}
