// Ship configuration and the discovery file an agent finds two directory levels above its workspace.
import { Type, type Static } from 'typebox';
import { Identifier } from './identifier.js';

export const ShipConfig = Type.Object({
  fleetDirectory: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  name: Identifier,
});
export type ShipConfig = Static<typeof ShipConfig>;

export const DISCOVERY_FILE_NAME = 'atlas.json';
export const DiscoveryFile = Type.Object({ port: Type.Integer() });
export type DiscoveryFile = Static<typeof DiscoveryFile>;

export { SHIP_DEFAULT_PORT, BRIDGE_DEFAULT_PORT } from './ports.js';

/** One route a server serves, with the schemas it validates (for generated docs and schema-driven tests). */
export interface RouteInfo {
  method: string;
  url: string;
  schema?: { body?: unknown; querystring?: unknown; params?: unknown };
}
