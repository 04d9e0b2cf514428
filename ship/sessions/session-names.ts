// Maps a workspace key to its tmux session name: a fixed prefix and 32 hex characters of sha256(`repo/name`).
// Identifiers may hold `#()`, `.`, `:` and spaces, which tmux would expand or rewrite (docs/security.md F3, F4).
import { createHash } from 'node:crypto';
import { workspaceKey } from '../../protocol/index.js';

export const SESSION_PREFIX = 'svc-';

export function sessionName(repoName: string, name: string): string {
  return SESSION_PREFIX + createHash('sha256').update(workspaceKey(repoName, name)).digest('hex').slice(0, 32);
}

export function isWorkspaceSessionName(session: string): boolean {
  return (
    session.length === SESSION_PREFIX.length + 32 &&
    session.startsWith(SESSION_PREFIX) &&
    /^[0-9a-f]{32}$/.test(session.slice(4))
  );
}
