// Ship-agent tokens (spec "Principals"): each time a ship comes online the bridge mints a fresh token, stores
// its sha256 in place of the previous one (which is thereby revoked), and pushes `{bridgeUrl, token}` to the
// ship's POST /agent/credentials, where the ship's repository tools pick it up. Removing the ship removes the
// token with it (foreign key). A push that gets no answer is retried three times, then logged; the next
// reconnect tries again. A ship only ever ends up holding its newest token: a push stops retrying once a
// newer one was minted, and a push's call waits for the previous push's call to that ship to land first.
import type { Logger } from 'pino';
import type { AgentTokensStore } from '../store/agent-tokens-store.js';
import type { ShipClient } from '../ships/ship-client.js';
import type { Authenticator } from './authenticator.js';
import type { Clock } from '../../protocol/clock.js';
import { newToken, tokenHash } from '../../server/tokens.js';
import { messageOf } from '../../protocol/index.js';

/** Waits before each retry of a push that got no answer: four attempts in all. */
const PUSH_RETRY_DELAYS_MS = [250, 1000, 3000];

export class AgentCredentials {
  constructor(
    private readonly deps: {
      store: AgentTokensStore;
      authenticator: Authenticator;
      clock: Clock;
      bridgeUrl: () => string;
      logger: Logger;
    },
  ) {}

  /** The token each ship should hold: the newest stored, until its push is over. */
  private readonly newest = new Map<string, string>();
  /** Each ship's push call on the wire, which a newer push's call waits for. */
  private readonly onTheWire = new Map<string, Promise<unknown>>();

  async push(ship: string, client: ShipClient): Promise<void> {
    const token = newToken();
    try {
      if (!(await this.deps.store.replace(ship, tokenHash(token), this.deps.clock()))) return;
      this.deps.authenticator.forgetShip(ship);
    } catch (error) {
      this.deps.logger.warn({ ship, err: messageOf(error) }, 'could not store agent credentials for the ship');
      return;
    }
    this.newest.set(ship, token);
    try {
      await this.deliver(ship, client, token);
    } finally {
      if (this.newest.get(ship) === token) this.newest.delete(ship);
    }
  }

  /**
   * A ship that has just come online may still be starting (a launch starts the bridge first): a push that
   * gets no answer is tried again a few times before it is worth a warning.
   */
  private async deliver(ship: string, client: ShipClient, token: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      await this.onTheWire.get(ship);
      if (this.newest.get(ship) !== token) return;
      const call = client.call({
        method: 'POST',
        path: '/agent/credentials',
        body: { bridgeUrl: this.deps.bridgeUrl(), token },
        timeoutMs: 5000,
      });
      const landed = call.catch(() => undefined);
      this.onTheWire.set(ship, landed);
      try {
        const reply = await call;
        if (reply.status !== 200)
          this.deps.logger.warn({ ship, status: reply.status }, 'ship refused its agent credentials');
        return;
      } catch (error) {
        const delayMs = PUSH_RETRY_DELAYS_MS[attempt];
        if (delayMs === undefined) {
          this.deps.logger.warn({ ship, err: messageOf(error) }, 'could not push agent credentials to the ship');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
      } finally {
        if (this.onTheWire.get(ship) === landed) this.onTheWire.delete(ship);
      }
    }
  }
}
