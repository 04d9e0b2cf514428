// Default ports of a ship and a bridge. A module of its own, free of TypeBox, so `svc` can show them in its
// help without loading the schema library (re-exported by config.ts for everything else).
export const SHIP_DEFAULT_PORT = 4700;
export const BRIDGE_DEFAULT_PORT = 4800;
