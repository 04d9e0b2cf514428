// The bridge's armory routes: the manifest, one file, and every ship's sync state (always 200; a ship that
// is offline or whose answer fails or does not validate has state null).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Compile } from 'typebox/compile';
import { Type } from 'typebox';
import { ArmoryFile, ArmoryFileQuery, ArmoryManifest, ArmorySyncState, ShipArmoryState } from '../../protocol/index.js';
import { answer, failures } from '../../server/route-responses.js';
import type { Armory } from '../armory/armory.js';
import type { ShipRegistry } from '../ships/registry.js';
import { parseJson } from '../ships/ship-client.js';

const checkState = Compile(ArmorySyncState);

export function armoryRoutes(armory: Armory, registry: ShipRegistry) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const manifest = {
      response: {
        200: answer('The manifest (empty when there is no armory directory).', ArmoryManifest),
        ...failures({ 400: 'invalid <path>/dotfile-map.json: one indented line per offending entry' }),
      },
    };
    app.get('/armory', { schema: manifest }, async () => armory.manifest());
    const file = {
      querystring: ArmoryFileQuery,
      response: {
        200: answer('The file, as text or base64.', ArmoryFile),
        ...failures({
          400: 'unsafe armory file path (absolute, with `..`, or a backslash segment)',
          404: 'armory file not found: <path>',
          413: 'armory file too large (<size> bytes, limit 10485760): <path>',
        }),
      },
    };
    app.get('/armory/file', { schema: file }, async (request) => armory.file(request.query.path));
    const ships = {
      response: {
        200: answer(
          "Every ship's sync state; null for an offline ship or one whose answer failed.",
          Type.Array(ShipArmoryState),
        ),
      },
    };
    app.get('/armory/ships', { schema: ships }, async () =>
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
