// Ship-agent tokens (spec "Principals"): each time a ship comes online the bridge mints a fresh token, stores
// its sha256 in place of the previous one (which is thereby revoked), and pushes `{bridgeUrl, token}` to the
// ship's POST /agent/credentials, where the ship's repository tools pick it up. Removing the ship removes the
// token with it (foreign key). A push that gets no answer is retried three times, then logged; the next
// reconnect tries again.
import type { Logger } from 'pino';
import type { AgentTokensStore } from '../store/agent-tokens-store.js';
import type { ShipClient } from '../ships/ship-client.js';
import type { Authenticator } from './authenticator.js';
import type { Clock } from '../../protocol/clock.js';
import { newToken, tokenHash } from './tokens.js';

/** Waits before each retry of a push that got no answer (the last entry is unused: no retry after it). */
const PUSH_RETRY_DELAYS_MS = [250, 1000, 3000, 0];

export class AgentCredentials {
  constructor(
    private readonly deps: { store: AgentTokensStore; authenticator: Authenticator; clock: Clock; bridgeUrl: () => string; logger: Logger },
  ) {}

  async push(ship: string, client: ShipClient): Promise<void> {
    const token = newToken();
    try {
      if (!(await this.deps.store.replace(ship, tokenHash(token), this.deps.clock()))) return;
      this.deps.authenticator.forgetShip(ship);
    } catch (error) {
      this.deps.logger.warn({ ship, err: (error as Error).message }, 'could not store agent credentials for the ship');
      return;
    }
    // A ship that has just come online may still be starting (a launch starts the bridge first): a push that
    // gets no answer is tried again a few times before it is worth a warning.
    for (const [attempt, delayMs] of PUSH_RETRY_DELAYS_MS.entries()) {
      try {
        const reply = await client.call({ method: 'POST', path: '/agent/credentials', body: { bridgeUrl: this.deps.bridgeUrl(), token }, timeoutMs: 5000 });
        if (reply.status !== 200) this.deps.logger.warn({ ship, status: reply.status }, 'ship refused its agent credentials');
        return;
      } catch (error) {
        if (attempt === PUSH_RETRY_DELAYS_MS.length - 1) {
          this.deps.logger.warn({ ship, err: (error as Error).message }, 'could not push agent credentials to the ship');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
      }
    }
  }
}
