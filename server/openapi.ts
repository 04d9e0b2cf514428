// What the OpenAPI documents of ship and bridge say about themselves (plain data, browser-safe): the
// document's header, its bearer security scheme, and the open path it is served at. Each server hands this
// to @fastify/swagger, which adds the paths from the route schemas (bridge/http/openapi.ts, ship/http/openapi.ts).
import { SVC_VERSION } from '../protocol/version.js';

export const OPENAPI_PATH = '/openapi.json';

export function openApiHeader(title: string, description: string) {
  return {
    openapi: '3.1.0',
    info: { title, version: SVC_VERSION, description },
    components: { securitySchemes: { bearer: { type: 'http' as const, scheme: 'bearer' } } },
    security: [{ bearer: [] }],
  };
}
