// GET /system-resources.
import type { FastifyInstance } from 'fastify';
import { SystemResources } from '../../protocol/index.js';
import { answer } from '../../server/route-responses.js';
import { readSystemResources } from '../resources/system-resources.js';

export function systemRoutes() {
  return async (app: FastifyInstance) => {
    app.get(
      '/system-resources',
      { schema: { response: { 200: answer("The host's resources, CPU sampled over 100 ms.", SystemResources) } } },
      async () => readSystemResources(),
    );
  };
}
