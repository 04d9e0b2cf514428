// The credential the bridge pushes through POST /agent/credentials, which repository tools use to call the
// bridge's /repos routes as the ship-agent principal. Memory only.
import type { AgentCredentialsRequest } from '../../protocol/index.js';

export class BridgeCredentials {
  private current: AgentCredentialsRequest | null = null;

  set(credentials: AgentCredentialsRequest): void {
    this.current = { ...credentials };
  }

  get(): AgentCredentialsRequest | null {
    return this.current;
  }
}
