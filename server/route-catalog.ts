// The routes a server serves, collected as they are registered (HEAD mirrors left out), with the schemas each
// validates: the route list and the schema-driven tests read it (protocol/config.ts RouteInfo). Install before
// the routes: an onRoute hook only sees routes added after it.
import type { FastifyInstance } from 'fastify';
import type { RouteInfo } from '../protocol/index.js';

/** The catalog, filled in as routes are registered after this call. */
export function catalogRoutes(app: FastifyInstance): RouteInfo[] {
  const catalog: RouteInfo[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      if (method !== 'HEAD') catalog.push({ method, url: route.url, schema: route.schema as RouteInfo['schema'] });
  });
  return catalog;
}
