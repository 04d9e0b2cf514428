// WS /workspaces/:repo/:name/terminal: hands each socket to a TerminalConnection bound to the workspace's
// session (or to none, when the workspace is missing or inactive: the client then gets `exit 1`).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { WorkspaceParams } from '../../protocol/index.js';
import { SHOWN_WEBSOCKET_ROUTE, failures, webSocketAnswers } from '../../server/route-responses.js';
import { TerminalConnection, type TerminalDeps } from '../terminal/terminal-connection.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { checkParams, INVALID_IDENTIFIER } from './workspaces.js';

export function terminalRoutes(service: WorkspaceService, deps: TerminalDeps) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('preValidation', checkParams);
    app.get(
      '/workspaces/:repo/:name/terminal',
      {
        websocket: true,
        schema: {
          params: WorkspaceParams,
          response: webSocketAnswers(
            "Upgraded: the terminal protocol on the workspace's session (protocol/terminal.ts, docs/terminal.md); `exit 1` when the workspace is missing or inactive.",
            failures({ 400: INVALID_IDENTIFIER }),
          ),
        },
        config: SHOWN_WEBSOCKET_ROUTE,
      },
      (socket, request) => {
        new TerminalConnection(socket, service.activeSession(request.params.repo, request.params.name), deps).start();
      },
    );
  };
}
