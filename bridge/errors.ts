// The bridge's error type: status and the spec's message, mapped to `{error}` in one place.
export class BridgeError extends Error {
  constructor(readonly status: number, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
    this.name = 'BridgeError';
  }
}

export const invalidRepoIdentifier = () => new BridgeError(400, 'invalid repo identifier');
export const invalidWorkspaceIdentifier = () => new BridgeError(400, 'invalid workspace identifier');
export const invalidShipIdentifier = () => new BridgeError(400, 'invalid ship identifier');
export const invalidRepo = (reason: string) => new BridgeError(400, `invalid repo: ${reason}`);
export const repoNotFound = (name: string) => new BridgeError(404, `repo not found: ${name}`);
export const repoExists = (name: string) => new BridgeError(409, `repo already registered: ${name}`);
export const branchListingFailed = (name: string, detail: string) =>
  new BridgeError(502, `could not list branches for repo "${name}": ${detail}`);
