import Fastify from 'fastify';
import { Type } from 'typebox';
import { afterAll, describe, expect, it } from 'vitest';
import { validatorCompiler } from './validator-compiler.js';

describe("the servers' validator compiler", () => {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.get(
    '/s/:repo/:name',
    { schema: { params: Type.Object({ repo: Type.String({ minLength: 2 }), name: Type.String() }) } },
    async (request) => request.params,
  );
  app.get(
    '/n/:number',
    { schema: { params: Type.Object({ number: Type.Integer({ minimum: 1 }) }) } },
    async (request) => request.params,
  );
  afterAll(() => app.close());

  it('passes string params through as they came, and still refuses what the schema refuses', async () => {
    expect((await app.inject('/s/ab/c')).json()).toEqual({ repo: 'ab', name: 'c' });
    const refused = await app.inject('/s/a/c');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toContain('repo');
  });

  it('still converts params a schema types as numbers', async () => {
    expect((await app.inject('/n/7')).json()).toEqual({ number: 7 });
    expect((await app.inject('/n/zero')).statusCode).toBe(400);
  });
});
