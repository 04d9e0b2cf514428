// How every failure of a route becomes its status and body, the same on the ship and the bridge:
// - the component's own typed error (WorkspaceError, BridgeError) → its status, `{error}` and headers;
// - a schema failure → 422 with the validator's findings, except a body field that fails only the
//   identifier rules, which is the spec's 400 (`invalid repo identifier: <the rule it broke>`) for the
//   fields a route's config names (`identifierFields`), else the component's defaults;
// - a failure the component says is temporary (the store gone, descriptors exhausted) → 503 with
//   Retry-After, logged as a warning;
// - a failure the component says is the input's fault (text PostgreSQL cannot store) → 400;
// - a framework error keeps its 4xx status; anything else is a 500 carrying its message, logged.
// Unknown routes are 404 `route not found: <METHOD> <path>`.
// It declares on every route the answers it gives any route (server/route-responses.ts): the 500, and the
// 422 of a route with a request part that can fail its schema.
import type { FastifyError, FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import {
  ErrorBody,
  identifierFailureField,
  ValidationErrorBody,
  validationBody,
  type SchemaIssue,
} from '../protocol/index.js';
import { answer, declareAnswers } from './route-responses.js';

/** Route config: which body fields hold identifiers, and the 400 message for each (the rule broken follows it). */
export interface IdentifierFields {
  identifierFields?: Record<string, string>;
}

export interface ErrorHandling {
  /** The component's own error: its status, message and headers; null for anything else. */
  known(error: Error): { status: number; message: string; headers?: Record<string, string> } | null;
  /** Identifier fields for routes whose config names none. */
  identifierFields?: Record<string, string>;
  /** A temporary failure: what the 503 says and when to retry; null when it is not one. */
  unavailable?(error: Error): { message: string; retryAfterSeconds: number; log: string } | null;
  /** A failure caused by the input (a 400): its message; null when it is not one. */
  badInput?(error: Error): string | null;
  /**
   * The documented 422 body, when the component answers 422 with more than the validator's findings (the
   * bridge passes a ship's or a forge's 422 `{error}` through).
   */
  validationAnswer?: TSchema;
}

/**
 * Whether a request part can fail its schema: a body always can; a path, query or header part only when a
 * field is more than a plain string, or a query or header field is required (a path's fields are always there).
 */
function canFail(part: 'body' | 'querystring' | 'params' | 'headers', schema: unknown): boolean {
  if (schema === undefined) return false;
  if (part === 'body') return true;
  const object = schema as { type?: string; properties?: Record<string, object>; required?: string[] };
  if (object.type !== 'object' || !object.properties) return true;
  if (part !== 'params' && (object.required?.length ?? 0) > 0) return true;
  return Object.values(object.properties).some(
    (field) => (field as { type?: unknown }).type !== 'string' || Object.keys(field).some((key) => key !== 'type'),
  );
}
const VALIDATED_PARTS = ['body', 'querystring', 'params', 'headers'] as const;
const INTERNAL_ERROR = answer('Any other failure, with its message.', ErrorBody);
const VALIDATION_FAILED = answer(
  "A request part failed its schema: the validator's findings (not `{error}`).",
  ValidationErrorBody,
);

export function installErrorHandler(app: FastifyInstance, handling: ErrorHandling): void {
  declareAnswers(app, (route) => ({
    ...(VALIDATED_PARTS.some((part) => canFail(part, route.schema?.[part]))
      ? { 422: handling.validationAnswer ?? VALIDATION_FAILED }
      : {}),
    500: INTERNAL_ERROR,
  }));
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    const known = handling.known(error);
    if (known)
      return reply
        .code(known.status)
        .headers(known.headers ?? {})
        .send({ error: known.message });
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      const issues = fastifyError.validation as SchemaIssue[];
      const fields =
        (request.routeOptions.config as IdentifierFields | undefined)?.identifierFields ??
        handling.identifierFields ??
        {};
      const failure =
        fastifyError.validationContext === 'body' ? identifierFailureField(issues, Object.keys(fields)) : null;
      if (failure) return reply.code(400).send({ error: `${fields[failure.field]}: ${failure.reason}` });
      return reply.code(422).send(validationBody(fastifyError.validationContext ?? 'body', issues));
    }
    const unavailable = handling.unavailable?.(error);
    if (unavailable) {
      request.log.warn({ err: error.message }, unavailable.log);
      return reply
        .code(503)
        .header('retry-after', String(unavailable.retryAfterSeconds))
        .send({ error: unavailable.message });
    }
    const badInput = handling.badInput?.(error);
    if (badInput) return reply.code(400).send({ error: badInput });
    const status = fastifyError.statusCode;
    if (status && status >= 400 && status < 500) return reply.code(status).send({ error: error.message });
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: error.message || 'internal error' });
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: `route not found: ${request.method} ${request.url.split('?')[0]}` });
  });
}
