// How the ship's failures map to answers (server/error-handler.ts does the mapping for both servers):
// WorkspaceError → its status and `{error}`; a body field failing only the identifier rules → the spec's
// 400 `invalid repo identifier` / `invalid workspace identifier` and the rule it broke; running out of
// descriptors or memory → a 503 to retry.
import type { ErrorHandling } from '../../server/error-handler.js';
import { invalidRepoIdentifier, invalidWorkspaceIdentifier, isResourceExhaustion, WorkspaceError } from '../errors.js';

export const SHIP_ERRORS: ErrorHandling = {
  known: (error) => (error instanceof WorkspaceError ? { status: error.status, message: error.message } : null),
  identifierFields: { '/repoName': 'invalid repo identifier', '/name': 'invalid workspace identifier' },
  unavailable: (error) =>
    isResourceExhaustion(error)
      ? {
          message: `the ship is out of resources; retry shortly (${error.message})`,
          retryAfterSeconds: 1,
          log: 'out of resources',
        }
      : null,
};

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
