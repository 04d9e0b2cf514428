// The WebSockets each user holds open through the bridge (events, terminals), so revoking a session or
// changing a user closes what that credential opened (docs/security.md H19: a deleted user must not keep a
// terminal). Closed with 1008 (policy violation).
import type { WebSocket } from 'ws';
import type { Principal } from './principal.js';

interface Held {
  socket: WebSocket;
  userId: string;
  sessionHash: string | null;
}

export class UserSockets {
  private readonly held = new Set<Held>();

  /** Remembers `socket` under the request's principal until it closes. */
  track(principal: Principal | null, socket: WebSocket): void {
    if (principal?.kind !== 'user') return;
    const entry: Held = { socket, userId: principal.user.id, sessionHash: principal.sessionHash };
    this.held.add(entry);
    socket.once('close', () => this.held.delete(entry));
  }

  closeSession(sessionHash: string, reason: string): void {
    this.closeWhere((entry) => entry.sessionHash === sessionHash, reason);
  }

  closeUser(userId: string, reason: string): void {
    this.closeWhere((entry) => entry.userId === userId, reason);
  }

  private closeWhere(match: (entry: Held) => boolean, reason: string): void {
    for (const entry of [...this.held]) {
      if (!match(entry)) continue;
      this.held.delete(entry);
      entry.socket.close(1008, reason);
    }
  }
}
