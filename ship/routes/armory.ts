// The ship's armory routes: POST /armory/sync (a push from the bridge, answered with the resulting state)
// and GET /armory (the state; read-only, triggers nothing).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ArmorySyncRequest } from '../../protocol/index.js';
import type { ArmorySync } from '../armory/armory-sync.js';

export function armoryRoutes(armory: ArmorySync) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/armory/sync', { schema: { body: ArmorySyncRequest } }, async (request) =>
      armory.sync(request.body.bridgeUrl, request.body.revision),
    );
    app.get('/armory', async () => armory.state());
  };
}
