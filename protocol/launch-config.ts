// The `svc launch` configuration file (docs/cli.md, spec "Launch configuration"): a bridge section and a map
// of ships, each `source: local` (started in the launch process) or `source: remote` (registered by URL).
// Token values are written `secrets:<VAR>` or with `${VAR}` interpolation; they are resolved before this
// schema sees them. Cross-field rules (a remote ship needs a url, tokens come in pairs) are checked by the
// loader, which reports every problem with its position.
import { Type, type Static } from 'typebox';

const Port = Type.Integer({ minimum: 1, maximum: 65535 });

export const LaunchBridgeConfig = Type.Object(
  {
    dataDirectory: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Port),
    name: Type.Optional(Type.String({ minLength: 1 })),
    publicUrl: Type.Optional(Type.String({ minLength: 1 })),
    databaseUrl: Type.Optional(Type.String({ minLength: 1 })),
    insecureNoAuth: Type.Optional(Type.Boolean()),
    sweepIntervalMs: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type LaunchBridgeConfig = Static<typeof LaunchBridgeConfig>;

export const LaunchShipConfig = Type.Object(
  {
    source: Type.Union([Type.Literal('local'), Type.Literal('remote')]),
    fleetDirectory: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Port),
    name: Type.Optional(Type.String({ minLength: 1 })),
    url: Type.Optional(Type.String({ minLength: 1 })),
    shipToken: Type.Optional(Type.String()),
    bridgeToken: Type.Optional(Type.String()),
    /** Variables every session of this (local) ship receives, name → value (`secrets:<VAR>`, `${VAR}`). */
    sessionEnv: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
);
export type LaunchShipConfig = Static<typeof LaunchShipConfig>;

export const LaunchConfig = Type.Object(
  {
    bridge: Type.Optional(LaunchBridgeConfig),
    ships: Type.Optional(Type.Record(Type.String(), LaunchShipConfig)),
  },
  { additionalProperties: false },
);
export type LaunchConfig = Static<typeof LaunchConfig>;
