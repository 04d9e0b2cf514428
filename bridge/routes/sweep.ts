// POST /workspaces/sweep: one ephemeral cleanup pass now (or the running one's), answered with the spec's
// five counters.
import type { FastifyInstance } from 'fastify';
import type { Sweeper } from '../ephemeral/sweeper.js';
import { SweepCounters } from '../../protocol/index.js';
import { answer } from '../../server/route-responses.js';
import { principalName } from '../auth/principal.js';

export function sweepRoutes(sweeper: Sweeper) {
  return async (app: FastifyInstance) => {
    // Background: the requests a pass steps aside for (http/foreground.ts) do not include the one waiting for it.
    app.post(
      '/workspaces/sweep',
      {
        schema: { response: { 200: answer('What the pass did.', SweepCounters) } },
        config: { background: true },
      },
      async (request) => {
        const counters = await sweeper.sweep();
        request.log.info(
          { audit: 'sweep', principal: principalName(request.principal), ...counters },
          'sweep requested',
        );
        return counters;
      },
    );
  };
}
