// Ship roster routes and host resources: GET/POST /ships, DELETE /ships/:name,
// GET /ships/:ship/system-resources and the fleet-wide GET /system-resources.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Compile } from 'typebox/compile';
import { identifierProblem, RegisterShipRequest, SystemResources, type ShipSystemResources } from '../../protocol/index.js';
import { BridgeError, invalidShipIdentifier } from '../errors.js';
import { parseJson, ShipUnreachable } from '../ships/ship-client.js';
import type { ShipRegistry } from '../ships/registry.js';
import { SingleFlight } from '../http/single-flight.js';
import { Type } from 'typebox';

const checkResources = Compile(SystemResources);
const ShipParams = Type.Object({ ship: Type.String() });
const NameParams = Type.Object({ name: Type.String() });

export function shipRoutes(registry: ShipRegistry) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get('/ships', async () => registry.list());

    app.post('/ships', { schema: { body: RegisterShipRequest } }, async (request, reply) => {
      const info = await registry.register(request.body);
      reply.code(201);
      return info;
    });

    app.delete('/ships/:name', { schema: { params: NameParams } }, async (request) => {
      if (identifierProblem(request.params.name)) throw invalidShipIdentifier();
      await registry.remove(request.params.name);
      return { ok: true } as const;
    });

    const resourcesOf = async (name: string) => {
      const ship = registry.target(name);
      let reply;
      try {
        reply = await ship.client.call({ method: 'GET', path: '/system-resources' });
      } catch (error) {
        if (error instanceof ShipUnreachable) throw registry.unreachable(ship, error.message);
        throw error;
      }
      const body = parseJson(reply);
      if (reply.status !== 200) throw new BridgeError(reply.status, (body as { error?: string } | null)?.error ?? `ship answered ${reply.status}`);
      if (!checkResources.Check(body)) throw new BridgeError(502, `ship "${name}" returned invalid system resources`);
      return body;
    };

    app.get('/ships/:ship/system-resources', { schema: { params: ShipParams } }, async (request) => {
      if (identifierProblem(request.params.ship)) throw invalidShipIdentifier();
      const ship = registry.get(request.params.ship);
      if (!ship) throw new BridgeError(404, `ship not found: ${request.params.ship}`);
      return resourcesOf(request.params.ship);
    });

    // One fleet-wide sample at a time, reused for 500 ms: each costs every ship a 100 ms CPU sample (H17).
    const fleetResources = new SingleFlight(() =>
      Promise.all(
        registry.list().map(async (info): Promise<ShipSystemResources> => {
          if (info.status === 'offline') return { ship: info.name, status: 'offline', resources: null, error: null };
          try {
            return { ship: info.name, status: 'online', resources: await resourcesOf(info.name), error: null };
          } catch (error) {
            return { ship: info.name, status: 'online', resources: null, error: (error as Error).message };
          }
        }),
      ),
    );
    app.get('/system-resources', async () => fleetResources.get());
  };
}
