// The name of a fleet's tmux socket (`tmux -L <name>`): one server per fleet directory, found the same way
// by the ship that uses it and by the session holder that owns it on a cluster (session-holder.ts).
import { createHash } from 'node:crypto';

/** The socket name for a fleet directory, given as its real path. */
export function tmuxSocketFor(fleetDirectory: string): string {
  return `svc-${createHash('sha256').update(fleetDirectory).digest('hex').slice(0, 16)}`;
}
