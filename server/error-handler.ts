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
import type { FastifyError, FastifyInstance } from 'fastify';
import { identifierFailureField, validationBody, type SchemaIssue } from '../protocol/index.js';

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
}

export function installErrorHandler(app: FastifyInstance, handling: ErrorHandling): void {
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
