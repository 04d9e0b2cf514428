// Armory push (spec "Armory push"): `POST /armory/sync {bridgeUrl, revision}` to every online ship when the
// armory changes on disk, and to one ship when it registers or comes online. Fire-and-forget: a failing
// ship is logged and skipped, never retried inline, and nothing waits on a push. A push cut short because the
// ship was removed meanwhile (launch re-registering its local ship, an operator deleting one) or the bridge is
// stopping is no ship failing: it is logged at debug, not warned about.
import type { Logger } from 'pino';
import type { LiveShip, ShipRegistry } from '../ships/registry.js';
import { ShipClientClosed } from '../ships/ship-client.js';
import type { Armory } from './armory.js';

/** A ship syncs synchronously (manifest and files); give it time. */
const PUSH_TIMEOUT_MS = 120_000;

export class ArmoryPush {
  constructor(
    private readonly deps: { armory: Armory; registry: ShipRegistry; bridgeUrl: () => string; logger: Logger },
  ) {}

  start(): void {
    this.deps.armory.watch((revision) => {
      for (const info of this.deps.registry.list()) {
        const ship = this.deps.registry.get(info.name);
        if (ship?.connection.isOnline()) this.send(ship, revision);
      }
    });
    this.deps.registry.onShipOnline((ship) => {
      this.deps.armory.manifest().then(
        (manifest) => this.send(ship, manifest.revision),
        (error: Error) =>
          this.deps.logger.warn({ ship: ship.name, err: error.message }, 'armory not pushed: the manifest is invalid'),
      );
    });
  }

  private send(ship: LiveShip, revision: string): void {
    ship.client
      .call({
        method: 'POST',
        path: '/armory/sync',
        body: { bridgeUrl: this.deps.bridgeUrl(), revision },
        timeoutMs: PUSH_TIMEOUT_MS,
      })
      .then(
        (reply) => {
          if (reply.status !== 200)
            this.deps.logger.warn(
              { ship: ship.name, status: reply.status, body: reply.text.slice(0, 300) },
              'ship refused the armory push',
            );
          else this.deps.logger.info({ ship: ship.name, revision }, 'armory pushed');
        },
        (error: Error) => {
          if (error instanceof ShipClientClosed)
            this.deps.logger.debug(
              { ship: ship.name },
              'armory push abandoned: the ship was removed or the bridge is stopping',
            );
          else this.deps.logger.warn({ ship: ship.name, err: error.message }, 'armory push failed');
        },
      );
  }
}
