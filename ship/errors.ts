// The ship's error type: each carries its HTTP status and the spec's message; the HTTP layer maps them in
// one place (http/error-handler.ts). Constructors name the spec's cases so call sites read as the spec does.
import { workspaceKey } from '../protocol/index.js';

export class WorkspaceError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'WorkspaceError';
  }
}

/** The spec's `invalid repo identifier` with the rule that was broken (`reason`, identifierProblem's words). */
export const invalidRepoIdentifier = (reason: string) => new WorkspaceError(400, `invalid repo identifier: ${reason}`);
export const invalidWorkspaceIdentifier = (reason: string) =>
  new WorkspaceError(400, `invalid workspace identifier: ${reason}`);
export const pathEscape = (repo: string, name: string) =>
  new WorkspaceError(400, `path escaping the fleet directory: ${workspaceKey(repo, name)}`);
export const invalidCreateRequest = (reason: string) =>
  new WorkspaceError(400, `invalid workspace create request: ${reason}`);
export const emptyBranch = () => new WorkspaceError(400, 'branch must not be empty');
export const cannotCreateBranch = (branch: string, reason: string) =>
  new WorkspaceError(400, `could not create branch "${branch}": ${reason}`);
export const noUsableHead = (branch: string) =>
  new WorkspaceError(400, `remote has no usable HEAD to create branch "${branch}" from`);
export const notActive = (repo: string, name: string) =>
  new WorkspaceError(400, `workspace not active: ${workspaceKey(repo, name)}`);
export const alreadyActive = (repo: string, name: string) =>
  new WorkspaceError(400, `workspace already active: ${workspaceKey(repo, name)}`);
export const agentNotInitialized = (repo: string, name: string) =>
  new WorkspaceError(400, `agent not initialized: ${workspaceKey(repo, name)}`);
export const notFound = (repo: string, name: string) =>
  new WorkspaceError(404, `workspace not found: ${workspaceKey(repo, name)}`);
export const alreadyExists = (repo: string, name: string) =>
  new WorkspaceError(409, `workspace already exists: ${workspaceKey(repo, name)}`);
export const unpushedWork = (repo: string, name: string, findings: string[]) =>
  new WorkspaceError(
    409,
    `workspace ${workspaceKey(repo, name)} holds work that is not on a remote: ${findings.join('; ')}`,
  );
export const invalidDiffRequest = (reason: string) => new WorkspaceError(400, `invalid diff request: ${reason}`);
export const unauthorized = () => new WorkspaceError(401, 'authentication required');

/**
 * Out of file descriptors or memory (docs/security.md X11): transient, answered 503 so callers retry, and
 * never read as "this file is absent" — a listing that lost its workspaces to EMFILE would make the
 * bridge release keys the ship still holds.
 */
export function isResourceExhaustion(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EMFILE' || code === 'ENFILE' || code === 'ENOMEM';
}
