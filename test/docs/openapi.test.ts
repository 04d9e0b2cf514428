// The API reference in docs/ is what the servers serve: GET /openapi.json on a real bridge and a real ship
// (OpenAPI 3.1 generated from the route schemas) must equal docs/openapi.json and docs/openapi-ship.json.
// After changing a route, rewrite them with `SVC_UPDATE_DOCS=1 npx vitest run test/docs/openapi.test.ts`.
// Every operation documents its answers (issue #32, server/route-responses.ts): a 2xx with a schema, or the
// 101 of a WebSocket upgrade, and no answer left as @fastify/swagger's "Default Response".
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { fastifySerializerFactory } from '../../server/lazy-serializers.js';
import { insecureBridge } from '../helpers/bridge.js';
import { call, makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { pino } from 'pino';

const DOCS = resolve(import.meta.dirname, '../../docs');
const update = process.env.SVC_UPDATE_DOCS === '1';
let root: string;
let bridge: Bridge;
let ship: TestShip;

beforeAll(async () => {
  root = await makeTempRoot();
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
  });
  ship = await startTestShip(root, { bridgeToken: 'b'.repeat(43) });
}, 60_000);
afterAll(async () => {
  await ship?.stop();
  await bridge?.close();
  await removeRoot(root);
});

interface Operation {
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

/** Operations with no success to document: a stateless MCP endpoint answers GET and DELETE 405 (docs/mcp.md). */
const NEVER_SUCCEED = new Set(['GET /workspaces/{repo}/{name}/mcp', 'DELETE /workspaces/{repo}/{name}/mcp']);

/** `METHOD path: what is missing` for every operation that does not document its answers. */
function undocumented(document: { paths: Record<string, Record<string, Operation>> }): string[] {
  const problems: string[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const where = `${method.toUpperCase()} ${path}`;
      const responses = Object.entries(operation.responses ?? {});
      for (const [status, response] of responses)
        if (!response.description || response.description === 'Default Response')
          problems.push(`${where}: ${status} has no description of its own`);
      const success = responses.some(
        ([status, response]) =>
          (/^2\d\d$/.test(status) &&
            Object.values(response.content ?? {}).some((media) => media.schema !== undefined)) ||
          status === '101',
      );
      if (!success && !NEVER_SUCCEED.has(where))
        problems.push(`${where}: no 2xx answer with a schema (nor a 101 upgrade)`);
    }
  }
  return problems;
}

function compare(served: unknown, file: string): void {
  const path = join(DOCS, file);
  const text = `${JSON.stringify(served, null, 2)}\n`;
  if (update) writeFileSync(path, text);
  expect(text, `${file} is stale: rewrite it with SVC_UPDATE_DOCS=1 npx vitest run test/docs/openapi.test.ts`).toBe(
    readFileSync(path, 'utf8'),
  );
}

describe('the OpenAPI documents', () => {
  it('the bridge serves OpenAPI 3.1 at /openapi.json without a credential, equal to docs/openapi.json', async () => {
    const reply = await call(bridge.url, 'GET', '/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe('3.1.0');
    expect(Object.keys(reply.body.paths)).toContain('/workspaces/{repo}/{name}');
    expect(reply.body.paths['/openapi.json']).toBeUndefined();
    expect(undocumented(reply.body)).toEqual([]);
    compare(reply.body, 'openapi.json');
  });

  it("every answer the bridge's routes declare compiles to a serializer (the bridge compiles each at its first use)", () => {
    const compile = fastifySerializerFactory()({}, {});
    const failures: string[] = [];
    let compiled = 0;
    for (const { method, url, schema } of bridge.routeCatalog) {
      const responses = (schema as { response?: Record<string, unknown> } | undefined)?.response ?? {};
      for (const [httpStatus, answer] of Object.entries(responses)) {
        // As fastify compiles them: one serializer per media type where the answer names its content.
        const content = (answer as { content?: Record<string, { schema: unknown }> }).content;
        const schemas = content ? Object.values(content).map((media) => media.schema) : [answer];
        for (const one of schemas) {
          try {
            compile({ schema: one, method, url, httpStatus });
            compiled++;
          } catch (error) {
            failures.push(`${method} ${url} ${httpStatus}: ${error}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(compiled).toBeGreaterThan(50);
  });

  it('the ship serves its own at /openapi.json, even when it requires a token, equal to docs/openapi-ship.json', async () => {
    const reply = await call(ship.url, 'GET', '/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.body.info.title).toBe('svc ship');
    // Everything else still needs the token.
    expect((await call(ship.url, 'GET', '/workspaces')).status).toBe(401);
    expect(undocumented(reply.body)).toEqual([]);
    compare(reply.body, 'openapi-ship.json');
  });
});
