// Maps every failure of a ship route to its status and body, in one place: WorkspaceError → its status and
// `{error}`; a schema failure → 422 with the validator's findings, except that a body field failing only the
// identifier rules is the spec's 400 `invalid repo identifier` / `invalid workspace identifier` followed by
// the rule it broke (`: must not contain path separators`); framework errors keep their 4xx status; running
// out of descriptors is a 503 to retry; anything else is a 500 carrying its message.
import type { FastifyError, FastifyInstance } from 'fastify';
import { identifierFailureField, validationBody, type SchemaIssue } from '../../protocol/index.js';
import { invalidRepoIdentifier, invalidWorkspaceIdentifier, isResourceExhaustion, WorkspaceError } from '../errors.js';

const IDENTIFIER_ERRORS: Record<string, (reason: string) => WorkspaceError> = {
  '/repoName': invalidRepoIdentifier,
  '/name': invalidWorkspaceIdentifier,
};

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | WorkspaceError | Error, request, reply) => {
    if (error instanceof WorkspaceError) {
      return reply.code(error.status).send({ error: error.message });
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      const issues = fastifyError.validation as SchemaIssue[];
      const failure = fastifyError.validationContext === 'body' ? identifierFailureField(issues, Object.keys(IDENTIFIER_ERRORS)) : null;
      if (failure) {
        const identifier = IDENTIFIER_ERRORS[failure.field]!(failure.reason);
        return reply.code(identifier.status).send({ error: identifier.message });
      }
      return reply.code(422).send(validationBody(fastifyError.validationContext ?? 'body', issues));
    }
    const status = fastifyError.statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ error: error.message });
    }
    if (isResourceExhaustion(error)) {
      request.log.warn({ err: error.message }, 'out of resources');
      return reply.code(503).header('retry-after', '1').send({ error: `the ship is out of resources; retry shortly (${error.message})` });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: error.message || 'internal error' });
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: `route not found: ${request.method} ${request.url.split('?')[0]}` });
  });
}

/**
 * A path whose percent-encoding is not UTF-8 (a lone surrogate such as `%ED%A0%80`) cannot hold an
 * identifier: the router's "bad URL" becomes the spec's 400 for whichever workspace segment is broken.
 */
export function badUrlError(url: string): WorkspaceError | null {
  const segments = url.split('?')[0]!.split('/');
  if (segments[1] !== 'workspaces') return null;
  const broken = segments.findIndex((segment) => {
    try {
      decodeURIComponent(segment);
      return false;
    } catch {
      return true;
    }
  });
  // Percent-encoding that decodes to no UTF-8 text: the identifier rule it breaks is well-formedness.
  if (broken === 2) return invalidRepoIdentifier('must be well-formed Unicode');
  if (broken === 3) return invalidWorkspaceIdentifier('must be well-formed Unicode');
  return null;
}
