// Fastify's response serializers, compiled when a route first answers with a status its schema describes
// rather than when the route is registered (issue #26). Every route declares its answers (issue #32), and
// fastify compiles each one with fast-json-stringify at start: ~100 generated functions, some with an Ajv
// instance of their own, held for life and most never used by an idle or a lightly used server, ~3 MiB
// of heap (bench/RESULTS.md, session 18). The compiler is fastify's own default, resolved as fastify
// resolves it, with the same shared schemas and options; only the time of compiling moves. A schema that
// cannot compile now fails its route's first answer (a 500) instead of the start, so
// test/docs/openapi.test.ts compiles every answer the bridge's routes declare.
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type SchemaControllerOptions = NonNullable<FastifyServerOptions['schemaController']>;
/** What fastify asks of `compilersFactory.buildSerializer`. */
export type BuildSerializer = NonNullable<NonNullable<SchemaControllerOptions['compilersFactory']>['buildSerializer']>;
type RouteDefinition = Parameters<ReturnType<BuildSerializer>>[0];
type Serialize = ReturnType<ReturnType<BuildSerializer>>;

/** Fastify's default serializer factory (fast-json-stringify through @fastify/fast-json-stringify-compiler). */
export function fastifySerializerFactory(): BuildSerializer {
  const fastify = createRequire(import.meta.url).resolve('fastify');
  const selector = createRequire(fastify)('@fastify/fast-json-stringify-compiler') as () => BuildSerializer;
  return selector();
}

/** The `schemaController` option that defers each serializer's compile to its first use. */
export function lazySerializers(build: BuildSerializer = fastifySerializerFactory()): SchemaControllerOptions {
  return {
    compilersFactory: {
      buildSerializer: (externalSchemas, serializerOptions) => {
        const compile = build(externalSchemas, serializerOptions);
        return (route: RouteDefinition) => {
          let serialize: Serialize | undefined;
          return (data) => {
            serialize ??= compile(route);
            return serialize(data);
          };
        };
      },
    },
  };
}
