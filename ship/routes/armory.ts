// The ship's armory routes: POST /armory/sync (a push from the bridge, answered with the resulting state)
// and GET /armory (the state; read-only, triggers nothing). The push's failures are the spec's
// ("POST /armory/sync"); the answers every route shares are declared where they are given.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ArmorySyncRequest, ArmorySyncState } from '../../protocol/index.js';
import { answer, failures } from '../../server/route-responses.js';
import type { ArmorySync } from '../armory/armory-sync.js';

export function armoryRoutes(armory: ArmorySync) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/armory/sync',
      {
        schema: {
          body: ArmorySyncRequest,
          response: {
            200: answer('Pulled and installed: the resulting state.', ArmorySyncState),
            ...failures({
              400: 'bridge url must be http(s): <url>, or invalid bridge url: <url>',
              403: 'armory push refused: this ship is pinned to another bridge (nothing fetched, state untouched)',
              500: 'armory install failed: <detail> (the pull succeeded)',
              502: 'the pull failed: a status from the bridge, a manifest or file that did not validate, an unsafe path, or bytes not matching their hash',
            }),
          },
        },
      },
      async (request) => armory.sync(request.body.bridgeUrl, request.body.revision),
    );
    app.get('/armory', { schema: { response: { 200: answer('The sync state.', ArmorySyncState) } } }, async () =>
      armory.state(),
    );
  };
}
