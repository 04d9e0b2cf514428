// The answers a route declares (`schema.response`), so the OpenAPI documents (docs/openapi.json,
// docs/openapi-ship.json) say every answer of every route: each status with its body's schema from protocol/
// and what it means on that route. A route declares its success and its own failures; the answers every route
// shares are declared by the module that gives them, through `declareAnswers` (the error handler's 500 and
// 422, a guard's 401/403). WebSocket routes document their 101
// (`webSocketAnswers`, `SHOWN_WEBSOCKET_ROUTE`).
//
// fastify serializes a JSON reply with the schema of its status (fast-json-stringify), which drops what the
// schema does not name and throws on a missing required field: a body schema names every field the route
// sends (docs/DECISIONS.md "Response schemas"). A string or Buffer body is sent as it is, never serialized.
//
// Node only (it shapes fastify route options); the shapes themselves are protocol/'s.
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import { ErrorBody } from '../protocol/errors.js';

/** A route's `schema.response`: status (or `2xx`…) to the answer's schema. */
export type Answers = Record<string, unknown>;

/**
 * `schema` as the answer of one status, with what the OpenAPI document says of it (@fastify/swagger's
 * `x-response-description`, which it leaves out of the body's schema; serializers ignore it).
 */
export function answer<T extends TSchema>(description: string, schema: T): T & { 'x-response-description': string } {
  return { ...schema, 'x-response-description': description };
}

/** An answer without a body (the 101 of an upgrade, a 202). */
export function noBody(description: string) {
  return { type: 'null' as const, description };
}

/**
 * A body that is not JSON (a diff, the metrics text), as its media type. Typed loosely on purpose: the
 * handler may send a Buffer, which fastify sends as it is.
 */
export function textAnswer(
  description: string,
  mediaType = 'text/plain',
): { description: string; content: Record<string, { schema: object }> } {
  return { description, content: { [mediaType]: { schema: { type: 'string' } } } };
}

/**
 * Sends JSON the route serialized itself (kept text, or a bare `null`, which fastify would send empty): a
 * string body is sent as it is, so the route's schema documents it without serializing it again.
 */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}

/** A route's own failures: `{error}` (protocol/errors.ts) with what each status means there. */
export function failures<const Causes extends Record<number, string>>(
  causes: Causes,
): { [Status in keyof Causes]: ReturnType<typeof answer<typeof ErrorBody>> } {
  return Object.fromEntries(
    Object.entries(causes).map(([status, cause]) => [status, answer(cause, ErrorBody)]),
  ) as never;
}

/**
 * Adds `answersOf(route)` to every route registered after this call, where the route did not declare that
 * status itself. Install before the routes (an onRoute hook only sees routes added after it).
 */
export function declareAnswers(app: FastifyInstance, answersOf: (route: RouteOptions) => Answers): void {
  app.addHook('onRoute', (route) => {
    const shared = answersOf(route);
    const declared = (route.schema?.response ?? {}) as Answers;
    const missing = Object.fromEntries(Object.entries(shared).filter(([status]) => !(status in declared)));
    if (Object.keys(missing).length === 0) return;
    // New objects: a schema may be shared by several routes (the MCP route's three methods).
    route.schema = { ...route.schema, response: { ...declared, ...missing } };
  });
}

/**
 * The answers of a WebSocket route: its 101, and its failures before the upgrade. The frames are not
 * OpenAPI's to describe: `description` names their protocol/ schema.
 */
export function webSocketAnswers(description: string, failures: Answers = {}): Answers {
  return { 101: noBody(description), ...failures };
}

/**
 * Route config that shows a WebSocket route in the OpenAPI document, as a GET answering 101:
 * @fastify/websocket marks every WebSocket route hidden.
 */
export const SHOWN_WEBSOCKET_ROUTE: { swaggerTransform: SwaggerTransform } = {
  swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, hide: false }, url }),
};
