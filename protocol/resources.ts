// Host resources as a ship reports them (GET /system-resources).
import { Type, type Static } from 'typebox';

export const SystemResources = Type.Object({
  uptimeSeconds: Type.Number(),
  os: Type.Object({
    type: Type.String(),
    platform: Type.String(),
    release: Type.String(),
    version: Type.String(),
    arch: Type.String(),
    machine: Type.String(),
    hostname: Type.String(),
  }),
  cpu: Type.Object({
    model: Type.String(),
    cores: Type.Number(),
    usage: Type.Number({ minimum: 0, maximum: 1 }),
    loadAverage: Type.Tuple([Type.Number(), Type.Number(), Type.Number()]),
  }),
  memory: Type.Object({
    total: Type.Number(),
    free: Type.Number(),
    used: Type.Number(),
    usage: Type.Number({ minimum: 0, maximum: 1 }),
  }),
});
export type SystemResources = Static<typeof SystemResources>;
