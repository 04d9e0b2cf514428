// WS /workspaces/:repo/:name/terminal: hands each socket to a TerminalConnection bound to the workspace's
// session (or to none, when the workspace is missing or inactive: the client then gets `exit 1`).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { WorkspaceParams } from '../../protocol/index.js';
import { TerminalConnection, type TerminalDeps } from '../terminal/terminal-connection.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { checkParams } from './workspaces.js';

export function terminalRoutes(service: WorkspaceService, deps: TerminalDeps) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('preValidation', checkParams);
    app.get(
      '/workspaces/:repo/:name/terminal',
      { websocket: true, schema: { params: WorkspaceParams } },
      (socket, request) => {
        new TerminalConnection(socket, service.activeSession(request.params.repo, request.params.name), deps).start();
      },
    );
  };
}
