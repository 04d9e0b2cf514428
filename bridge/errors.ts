// The bridge's error type: status and the spec's message, mapped to `{error}` in one place.
export class BridgeError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

/** The spec's `invalid … identifier` with the rule that was broken (`reason`, identifierProblem's words). */
export const invalidRepoIdentifier = (reason: string) => new BridgeError(400, `invalid repo identifier: ${reason}`);
export const invalidWorkspaceIdentifier = (reason: string) =>
  new BridgeError(400, `invalid workspace identifier: ${reason}`);
export const invalidShipIdentifier = (reason: string) => new BridgeError(400, `invalid ship identifier: ${reason}`);
export const invalidRepo = (reason: string) => new BridgeError(400, `invalid repo: ${reason}`);
export const repoNotFound = (name: string) => new BridgeError(404, `repo not found: ${name}`);
export const repoExists = (name: string) => new BridgeError(409, `repo already registered: ${name}`);
export const branchListingFailed = (name: string, detail: string) =>
  new BridgeError(502, `could not list branches for repo "${name}": ${detail}`);
