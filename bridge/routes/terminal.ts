// WS /workspaces/:repo/:name/terminal: proxied to the owning ship (see terminal/terminal-proxy.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { identifierProblem, WorkspaceParams, workspacePath } from '../../protocol/index.js';
import type { ShipRegistry } from '../ships/registry.js';
import { proxyTerminal, type Upstream } from '../terminal/terminal-proxy.js';
import type { UserSockets } from '../auth/user-sockets.js';
import { SHOWN_WEBSOCKET_ROUTE, webSocketAnswers } from '../../server/route-responses.js';

export function terminalRoutes(registry: ShipRegistry, sockets: UserSockets, heartbeatMs?: number) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/workspaces/:repo/:name/terminal',
      {
        websocket: true,
        schema: {
          params: WorkspaceParams,
          response: webSocketAnswers(
            "Upgraded (credential: `?ticket=` from POST /auth/ws-ticket): a pipe to the owning ship's terminal socket (protocol/terminal.ts, docs/terminal.md); `exit 1` for an unknown or offline workspace.",
          ),
        },
        config: SHOWN_WEBSOCKET_ROUTE,
      },
      (socket, request) => {
        const { repo, name } = request.params;
        sockets.track(request.principal, socket);
        let upstream: Upstream | null = null;
        if (!identifierProblem(repo) && !identifierProblem(name)) {
          try {
            const ship = registry.owning(repo, name);
            const url = new URL(workspacePath(repo, name, '/terminal'), ship.url);
            url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
            upstream = { url: url.toString(), bridgeToken: ship.client.token };
          } catch {
            upstream = null;
          }
        }
        proxyTerminal(socket, upstream, heartbeatMs);
      },
    );
  };
}
