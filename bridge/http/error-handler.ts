// Maps every failure of a bridge route to its status and body in one place: BridgeError → `{error}`; a
// schema failure → 422 with the validator's findings, except identifier rules on the fields a route names
// (config.identifierFields) → 400 with that field's message and the rule broken; framework 4xx keep their
// status; else 500.
import type { FastifyError, FastifyInstance } from 'fastify';
import { identifierFailureField, validationBody, type SchemaIssue } from '../../protocol/index.js';
import { BridgeError } from '../errors.js';

/** Route config: which body fields hold identifiers, and the 400 message for each (the rule broken follows it). */
export interface IdentifierFields {
  identifierFields?: Record<string, string>;
}

/** PostgreSQL gone, restarting or stalled (refused or reset, shutting down or starting up, a client deadline passed). */
export function storeUnavailable(error: Error): boolean {
  const code = String((error as { code?: unknown }).code ?? '');
  if (/^(08|57P0)/.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code)) return true;
  return /Connection terminated|connect ECONNREFUSED|Client has encountered a connection error|terminating connection|Query read timeout|timeout exceeded when trying to connect/.test(
    error.message,
  );
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | BridgeError | Error, request, reply) => {
    if (error instanceof BridgeError) return reply.code(error.status).headers(error.headers).send({ error: error.message });
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      const issues = fastifyError.validation as SchemaIssue[];
      const fields = (request.routeOptions.config as IdentifierFields | undefined)?.identifierFields ?? {};
      const failure = fastifyError.validationContext === 'body' ? identifierFailureField(issues, Object.keys(fields)) : null;
      if (failure) return reply.code(400).send({ error: `${fields[failure.field]}: ${failure.reason}` });
      return reply.code(422).send(validationBody(fastifyError.validationContext ?? 'body', issues));
    }
    if (storeUnavailable(error)) {
      request.log.warn({ err: error.message }, 'store unavailable');
      return reply.code(503).header('retry-after', '2').send({ error: `the bridge's store is unavailable; retry shortly (${error.message})` });
    }
    // PostgreSQL refuses NUL in text (22021) and characters its encoding lacks (22P05): the input's fault.
    const sqlState = (error as { code?: unknown }).code;
    if (sqlState === '22021' || sqlState === '22P05') return reply.code(400).send({ error: 'invalid request — text may not contain NUL or unencodable characters' });
    const status = fastifyError.statusCode;
    if (status && status >= 400 && status < 500) return reply.code(status).send({ error: error.message });
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: error.message || 'internal error' });
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: `route not found: ${request.method} ${request.url.split('?')[0]}` });
  });
}
