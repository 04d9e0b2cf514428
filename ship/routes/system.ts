// GET /system-resources.
import type { FastifyInstance } from 'fastify';
import { readSystemResources } from '../resources/system-resources.js';

export function systemRoutes() {
  return async (app: FastifyInstance) => {
    app.get('/system-resources', async () => readSystemResources());
  };
}
