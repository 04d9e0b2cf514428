// Errors of the fake Kubernetes API server, shaped as the real apiserver's `Status` objects (reason, code,
// details with the resource and name, causes for 422), so clients see the same bodies they would get from a
// cluster. Handlers throw KubeError; the server turns it into a Status body once (server.ts).

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
  uid?: string;
}

/** The group-qualified resource an error is about (`secrets`, `ships.svc.dev`). */
export interface ErrorResource {
  group: string;
  plural: string;
}

export class KubeError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toStatus(): Record<string, unknown> {
    const status: Record<string, unknown> = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) status.details = this.details;
    return status;
  }
}

function qualified(resource: ErrorResource): string {
  return resource.group ? `${resource.plural}.${resource.group}` : resource.plural;
}

function details(resource: ErrorResource, name: string | undefined, more: Partial<StatusDetails> = {}): StatusDetails {
  const result: StatusDetails = { ...(name !== undefined ? { name } : {}), kind: resource.plural, ...more };
  if (resource.group) result.group = resource.group;
  return result;
}

export const errors = {
  notFound: (resource: ErrorResource, name: string) =>
    new KubeError(404, 'NotFound', `${qualified(resource)} "${name}" not found`, details(resource, name)),
  alreadyExists: (resource: ErrorResource, name: string) =>
    new KubeError(409, 'AlreadyExists', `${qualified(resource)} "${name}" already exists`, details(resource, name)),
  conflict: (
    resource: ErrorResource,
    name: string,
    why = 'the object has been modified; please apply your changes to the latest version and try again',
  ) =>
    new KubeError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualified(resource)} "${name}": ${why}`,
      details(resource, name),
    ),
  /** 422 with one cause per field error, worded as the apiserver's field.ErrorList. */
  invalid: (kind: string, group: string, name: string, causes: StatusCause[]) =>
    new KubeError(
      422,
      'Invalid',
      `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${causes.length === 1 ? `${causes[0]!.field}: ${causes[0]!.message}` : `[${causes.map((cause) => `${cause.field}: ${cause.message}`).join(', ')}]`}`,
      { name, group: group || undefined, kind, causes },
    ),
  badRequest: (message: string) => new KubeError(400, 'BadRequest', message),
  unprocessable: (message: string) => new KubeError(422, 'Invalid', message),
  unsupportedMediaType: (accepted: string[]) =>
    new KubeError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    ),
  notAcceptable: (accepted: string[]) =>
    new KubeError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`),
  methodNotAllowed: (verb: string, resource: ErrorResource) =>
    new KubeError(
      405,
      'MethodNotAllowed',
      `the server does not allow this method on the requested resource`,
      details(resource, undefined, { causes: [{ reason: 'MethodNotAllowed', message: `${verb} is not supported` }] }),
    ),
  pathNotFound: () =>
    new KubeError(404, 'NotFound', 'the server could not find the requested resource', {
      causes: [{ reason: 'UnexpectedServerResponse', message: '404 page not found' }],
    }),
  gone: (message = 'too old resource version') => new KubeError(410, 'Expired', message),
  unauthorized: () => new KubeError(401, 'Unauthorized', 'Unauthorized'),
  forbidden: (user: string, verb: string, resource: ErrorResource, namespace: string | undefined, name?: string) =>
    new KubeError(
      403,
      'Forbidden',
      `${qualified(resource)}${name ? ` "${name}"` : ''} is forbidden: User "${user}" cannot ${verb} resource "${resource.plural}" in API group "${resource.group}"${namespace ? ` in the namespace "${namespace}"` : ' at the cluster scope'}`,
      details(resource, name),
    ),
  tooLarge: () => new KubeError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'),
  resourceVersionTooLarge: () =>
    new KubeError(504, 'Timeout', 'Too large resource version', {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    }),
};
