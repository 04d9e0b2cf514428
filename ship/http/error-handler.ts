// Maps every failure of a ship route to its status and body, in one place: WorkspaceError → its status and
// `{error}`; a schema failure → 422 with the validator's findings, except that a body field failing only the
// identifier rules is the spec's 400 `invalid repo identifier` / `invalid workspace identifier`; framework
// errors keep their 4xx status; anything else is a 500 carrying its message.
import type { FastifyError, FastifyInstance } from 'fastify';
import type { ValidationErrorBody, ValidationIssue } from '../../protocol/index.js';
import { invalidRepoIdentifier, invalidWorkspaceIdentifier, WorkspaceError } from '../errors.js';

interface SchemaIssue {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: { requiredProperties?: string[] };
}

const IDENTIFIER_FIELDS: Record<string, () => WorkspaceError> = {
  '/repoName': invalidRepoIdentifier,
  '/name': invalidWorkspaceIdentifier,
};

function identifierFailure(issues: SchemaIssue[]): WorkspaceError | null {
  if (issues.length === 0 || !issues.every((issue) => issue.keyword === '~refine' && IDENTIFIER_FIELDS[issue.instancePath ?? ''])) {
    return null;
  }
  const repoIssue = issues.find((issue) => issue.instancePath === '/repoName');
  return (IDENTIFIER_FIELDS[(repoIssue ?? issues[0]!).instancePath!] as () => WorkspaceError)();
}

export function validationBody(part: string, issues: SchemaIssue[]): ValidationErrorBody {
  // A missing property is reported at its own pointer (`/url is required`), not at its parent object.
  const mapped: ValidationIssue[] = issues.flatMap((issue) =>
    issue.keyword === 'required' && issue.params?.requiredProperties?.length
      ? issue.params.requiredProperties.map((property) => ({
          part: part as ValidationIssue['part'],
          path: `${issue.instancePath ?? ''}/${property}`,
          message: 'is required',
        }))
      : [{ part: part as ValidationIssue['part'], path: issue.instancePath ?? '', message: issue.message ?? 'is invalid' }],
  );
  const first = mapped[0];
  return {
    message: first ? `${first.part}${first.path} ${first.message}` : `${part} is invalid`,
    issues: mapped,
  };
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | WorkspaceError | Error, request, reply) => {
    if (error instanceof WorkspaceError) {
      return reply.code(error.status).send({ error: error.message });
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      const issues = fastifyError.validation as SchemaIssue[];
      const identifier = fastifyError.validationContext === 'body' ? identifierFailure(issues) : null;
      if (identifier) return reply.code(identifier.status).send({ error: identifier.message });
      return reply.code(422).send(validationBody(fastifyError.validationContext ?? 'body', issues));
    }
    const status = fastifyError.statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ error: error.message });
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
  if (broken === 2) return invalidRepoIdentifier();
  if (broken === 3) return invalidWorkspaceIdentifier();
  return null;
}
