// The check `svc client repos add` makes after registering: the bridge's own branch listing of the new repo
// (GET /repos/:name/branches, the same non-interactive probe `repos branches` runs), so a URL nobody can list
// is named now instead of at the first create. It yields a warning, never a refusal: a private remote may
// need credentials only the ships hold (issue #15).
import type { RepoBranch } from '../../protocol/index.js';
import { RequestFailed } from '../../server/request-failed.js';
import type { ApiClient } from '../api/api-client.js';

/**
 * git's first message out of the bridge's `could not list branches for repo "<name>": <stderr>` (the bridge
 * joins git's lines with spaces; the first `fatal:` is the one that names the problem, the rest is git's
 * generic advice), or the whole message for any other failure.
 */
export function listingFailureReason(name: string, message: string): string {
  const prefix = `could not list branches for repo "${name}": `;
  if (!message.startsWith(prefix)) return message;
  const stderr = message.slice(prefix.length);
  return (
    stderr
      .split(/\s+(?=(?:fatal|error): )/)[0]!
      .replace(/^(?:fatal|error): /, '')
      .trim() || stderr
  );
}

/** Why the bridge could not list the branches of repo `name`, or null when it could. */
export async function branchListingProblem(api: ApiClient, name: string): Promise<string | null> {
  try {
    await api.call<RepoBranch[]>('GET', `/repos/${encodeURIComponent(name)}/branches`);
    return null;
  } catch (error) {
    if (error instanceof RequestFailed && error.detail !== undefined) return listingFailureReason(name, error.detail);
    return error instanceof Error ? error.message : String(error);
  }
}
