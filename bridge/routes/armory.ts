// The bridge's armory routes: the manifest, one file, and every ship's sync state (always 200; a ship that
// is offline or whose answer fails or does not validate has state null).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Compile } from 'typebox/compile';
import { ArmoryFileQuery, ArmorySyncState, type ShipArmoryState } from '../../protocol/index.js';
import type { Armory } from '../armory/armory.js';
import type { ShipRegistry } from '../ships/registry.js';
import { parseJson } from '../ships/ship-client.js';

const checkState = Compile(ArmorySyncState);

export function armoryRoutes(armory: Armory, registry: ShipRegistry) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/armory', async () => armory.manifest());
    app.get('/armory/file', { schema: { querystring: ArmoryFileQuery } }, async (request) =>
      armory.file(request.query.path),
    );
    app.get('/armory/ships', async () =>
      Promise.all(
        registry.list().map(async (info): Promise<ShipArmoryState> => {
          const ship = registry.get(info.name);
          if (info.status === 'offline' || !ship) return { ship: info.name, status: info.status, state: null };
          try {
            const reply = await ship.client.call({ method: 'GET', path: '/armory', timeoutMs: 5000 });
            const body = parseJson(reply);
            return {
              ship: info.name,
              status: 'online',
              state: reply.status === 200 && checkState.Check(body) ? (body as ArmorySyncState) : null,
            };
          } catch {
            return { ship: info.name, status: 'online', state: null };
          }
        }),
      ),
    );
  };
}
