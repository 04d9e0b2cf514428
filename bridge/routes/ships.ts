// Ship roster routes and host resources: GET/POST /ships, DELETE /ships/:name,
// GET /ships/:ship/system-resources and the fleet-wide GET /system-resources.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Compile } from 'typebox/compile';
import {
  identifierProblem,
  OkResponse,
  RegisterShipRequest,
  ShipInfo,
  ShipSystemResources,
  SystemResources,
  messageOf,
} from '../../protocol/index.js';
import { answer, failures } from '../../server/route-responses.js';
import { BridgeError, invalidShipIdentifier } from '../errors.js';
import { parseJson, ShipUnreachable } from '../ships/ship-client.js';
import type { LiveShip, ShipRegistry } from '../ships/registry.js';
import { shipError } from '../ships/ship-replies.js';
import { SingleFlight } from '../../protocol/single-flight.js';
import { Type } from 'typebox';

const checkResources = Compile(SystemResources);
const ShipParams = Type.Object({ ship: Type.String() });
const NameParams = Type.Object({ name: Type.String() });

export function shipRoutes(registry: ShipRegistry) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/ships',
      { schema: { response: { 200: answer('Every registered ship, online or offline.', Type.Array(ShipInfo)) } } },
      async () => registry.list(),
    );

    const registration = {
      body: RegisterShipRequest,
      response: {
        201: answer('Registered: the ship, named by its first sync event.', ShipInfo),
        ...failures({
          400: 'a ship is registered with both a shipToken and a bridgeToken, or neither',
          409: 'ship already registered: <name>, or ship "<name>" has workspaces already hosted elsewhere: <keys>',
          502: 'ship at <url> did not respond: <message>',
        }),
      },
    };
    app.post('/ships', { schema: registration }, async (request, reply) => {
      const info = await registry.register(request.body);
      reply.code(201);
      return info;
    });

    const removal = {
      params: NameParams,
      response: {
        200: answer('Deregistered: `{ok: true}`.', OkResponse),
        ...failures({ 400: 'invalid ship identifier', 404: 'ship not found: <name>' }),
      },
    };
    app.delete('/ships/:name', { schema: removal }, async (request) => {
      const problem = identifierProblem(request.params.name);
      if (problem) throw invalidShipIdentifier(problem);
      await registry.remove(request.params.name);
      return { ok: true } as const;
    });

    /** One ship's snapshot as it answers now; a transport failure is left to the caller (ShipUnreachable). */
    const sample = async (ship: LiveShip): Promise<SystemResources> => {
      const reply = await ship.client.call({ method: 'GET', path: '/system-resources' });
      const body = parseJson(reply);
      if (reply.status !== 200) throw shipError(reply);
      if (!checkResources.Check(body))
        throw new BridgeError(502, `ship "${ship.name}" returned invalid system resources`);
      return body;
    };

    // Not registered is the spec's 400 `unknown ship`, offline its 503 (registry.target).
    const oneShip = {
      params: ShipParams,
      response: {
        200: answer("The ship's resources, as it answers them.", SystemResources),
        ...failures({
          400: 'invalid ship identifier, or unknown ship: <name>',
          502: 'ship "<name>" returned invalid system resources',
          503: 'ship "<name>" is offline, or unreachable: <message>',
        }),
      },
    };
    app.get('/ships/:ship/system-resources', { schema: oneShip }, async (request) => {
      const problem = identifierProblem(request.params.ship);
      if (problem) throw invalidShipIdentifier(problem);
      const ship = registry.target(request.params.ship);
      try {
        return await sample(ship);
      } catch (error) {
        if (error instanceof ShipUnreachable) throw registry.unreachable(ship, error.message);
        throw error;
      }
    });

    // Every ship sampled in parallel, never failing because of one. A ship the call cannot reach is flipped
    // offline (spec degradation rules) and listed as the offline ship it now is. Single-flight with no
    // memory: each read gets a fetch started after it arrived (each costs every ship a 100 ms sample, H17).
    const fleetResources = new SingleFlight(() =>
      Promise.all(
        registry.list().map(async (info): Promise<ShipSystemResources> => {
          const offline: ShipSystemResources = { ship: info.name, status: 'offline', resources: null, error: null };
          const ship = registry.get(info.name);
          if (info.status === 'offline' || !ship) return offline;
          try {
            return { ship: info.name, status: 'online', resources: await sample(ship), error: null };
          } catch (error) {
            if (!(error instanceof ShipUnreachable))
              return { ship: info.name, status: 'online', resources: null, error: messageOf(error) };
            registry.unreachable(ship, error.message);
            return offline;
          }
        }),
      ),
    );
    const fleet = {
      response: {
        200: answer(
          "Every ship's resources; an offline ship or a failed call is reported inline.",
          Type.Array(ShipSystemResources),
        ),
      },
    };
    app.get('/system-resources', { schema: fleet }, async () => fleetResources.get());
  };
}
