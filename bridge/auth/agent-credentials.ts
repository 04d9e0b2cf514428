// Ship-agent tokens (spec "Principals"): each time a ship comes online the bridge mints a fresh token, stores
// its sha256 in place of the previous one (which is thereby revoked), and pushes `{bridgeUrl, token}` to the
// ship's POST /agent/credentials, where the ship's repository tools pick it up. Removing the ship removes the
// token with it (foreign key). A failed push is logged; the next reconnect tries again.
import type { Logger } from 'pino';
import type { AgentTokensStore } from '../store/agent-tokens-store.js';
import type { ShipClient } from '../ships/ship-client.js';
import type { Authenticator } from './authenticator.js';
import type { Clock } from './clock.js';
import { newToken, tokenHash } from './tokens.js';

export class AgentCredentials {
  constructor(
    private readonly deps: { store: AgentTokensStore; authenticator: Authenticator; clock: Clock; bridgeUrl: () => string; logger: Logger },
  ) {}

  async push(ship: string, client: ShipClient): Promise<void> {
    const token = newToken();
    try {
      if (!(await this.deps.store.replace(ship, tokenHash(token), this.deps.clock()))) return;
      this.deps.authenticator.forgetShip(ship);
      const reply = await client.call({ method: 'POST', path: '/agent/credentials', body: { bridgeUrl: this.deps.bridgeUrl(), token }, timeoutMs: 5000 });
      if (reply.status !== 200) this.deps.logger.warn({ ship, status: reply.status }, 'ship refused its agent credentials');
    } catch (error) {
      this.deps.logger.warn({ ship, err: (error as Error).message }, 'could not push agent credentials to the ship');
    }
  }
}
