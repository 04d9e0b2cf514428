// Agent status routes (docs/architecture.md §8) and the bridge's credential push for repository tools.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  AgentCredentialsRequest,
  AgentInitRequest,
  UpdateAgentStatusRequest,
  WorkspaceParams,
} from '../../protocol/index.js';
import type { BridgeCredentials } from '../agents/bridge-credentials.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { checkParams } from './workspaces.js';

export function agentRoutes(service: WorkspaceService, credentials: BridgeCredentials) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('preValidation', checkParams);

    app.post(
      '/workspaces/:repo/:name/agent/init',
      { schema: { params: WorkspaceParams, body: AgentInitRequest } },
      async (request) => service.agentInit(request.params.repo, request.params.name, request.body),
    );

    app.get('/workspaces/:repo/:name/agent/status', { schema: { params: WorkspaceParams } }, async (request, reply) => {
      const status = await service.agentStatus(request.params.repo, request.params.name);
      // A bare `null` body would be sent empty by fastify; serialize it explicitly.
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(status));
    });

    app.post(
      '/workspaces/:repo/:name/agent/status',
      { schema: { params: WorkspaceParams, body: UpdateAgentStatusRequest } },
      async (request) => service.agentUpdate(request.params.repo, request.params.name, request.body),
    );

    app.post('/agent/credentials', { schema: { body: AgentCredentialsRequest } }, async (request) => {
      credentials.set(request.body);
      return { ok: true } as const;
    });
  };
}
