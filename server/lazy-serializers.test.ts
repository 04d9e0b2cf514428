// The lazy serializers: nothing compiled at start, each route's answer compiled once at its first use, and
// the answer serialized as fastify's default compiler does (properties outside the schema left out).
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { fastifySerializerFactory, lazySerializers, type BuildSerializer } from './lazy-serializers.js';

describe('lazySerializers', () => {
  it('compiles a route answer at its first use, once, with fastify default compiler', async () => {
    const compiled: string[] = [];
    const build = fastifySerializerFactory();
    const counting: BuildSerializer = (external, options) => {
      const compile = build(external, options);
      return (route) => {
        compiled.push(`${route.method} ${route.url} ${route.httpStatus}`);
        return compile(route);
      };
    };
    const app = Fastify({ schemaController: lazySerializers(counting) });
    const answer = { type: 'object', properties: { name: { type: 'string' } } };
    app.get('/a', { schema: { response: { 200: answer } } }, () => ({ name: 'a', secret: 'left out' }));
    app.get('/b', { schema: { response: { 200: answer } } }, () => ({ name: 'b' }));
    await app.ready();
    try {
      expect(compiled).toEqual([]);
      for (let i = 0; i < 3; i++) {
        const reply = await app.inject({ method: 'GET', url: '/a' });
        expect(reply.body).toBe('{"name":"a"}');
      }
      expect(compiled).toEqual(['GET /a 200']);
    } finally {
      await app.close();
    }
  });

  it('a schema that cannot compile fails its first answer, as the start did before', async () => {
    const app = Fastify({ schemaController: lazySerializers() });
    const broken = { type: 'object', properties: { name: { $ref: '#/definitions/missing' } } };
    app.get('/broken', { schema: { response: { 200: broken } } }, () => ({ name: 'x' }));
    await app.ready();
    try {
      expect((await app.inject({ method: 'GET', url: '/broken' })).statusCode).toBe(500);
    } finally {
      await app.close();
    }
  });
});
