// Agent status routes (docs/architecture.md §8) and the bridge's credential push for repository tools.
// Each declares its answers (server/route-responses.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  AgentCredentialsRequest,
  AgentInitRequest,
  AgentStatus,
  OkResponse,
  UpdateAgentStatusRequest,
  WorkspaceParams,
} from '../../protocol/index.js';
import { answer, failures, sendJsonText } from '../../server/route-responses.js';
import type { BridgeCredentials } from '../agents/bridge-credentials.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { checkParams, INVALID_IDENTIFIER, NOT_FOUND, ON_WORKSPACE } from './workspaces.js';

export function agentRoutes(service: WorkspaceService, credentials: BridgeCredentials) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('preValidation', checkParams);

    app.post(
      '/workspaces/:repo/:name/agent/init',
      {
        schema: {
          params: WorkspaceParams,
          body: AgentInitRequest,
          response: {
            200: answer('The agent status initialization seeds (`idle`).', AgentStatus),
            ...failures({ 400: `${INVALID_IDENTIFIER}; or workspace not active: <repo>/<name>`, 404: NOT_FOUND }),
          },
        },
      },
      async (request) => service.agentInit(request.params.repo, request.params.name, request.body),
    );

    app.get(
      '/workspaces/:repo/:name/agent/status',
      {
        schema: {
          params: WorkspaceParams,
          response: {
            200: answer("The agent's status, or null before initialization.", Type.Union([AgentStatus, Type.Null()])),
            ...ON_WORKSPACE,
          },
        },
      },
      async (request, reply) => {
        const status = await service.agentStatus(request.params.repo, request.params.name);
        // A bare `null` body would be sent empty by fastify; serialize it explicitly.
        return sendJsonText(reply, JSON.stringify(status));
      },
    );

    app.post(
      '/workspaces/:repo/:name/agent/status',
      {
        schema: {
          params: WorkspaceParams,
          body: UpdateAgentStatusRequest,
          response: {
            200: answer('The updated status.', AgentStatus),
            ...failures({ 400: `${INVALID_IDENTIFIER}; or agent not initialized: <repo>/<name>`, 404: NOT_FOUND }),
          },
        },
      },
      async (request) => service.agentUpdate(request.params.repo, request.params.name, request.body),
    );

    app.post(
      '/agent/credentials',
      {
        schema: {
          body: AgentCredentialsRequest,
          response: { 200: answer('Kept for the repository tools: `{ok: true}`.', OkResponse) },
        },
      },
      async (request) => {
        credentials.set(request.body);
        return { ok: true } as const;
      },
    );
  };
}
