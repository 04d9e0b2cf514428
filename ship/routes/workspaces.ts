// Workspace routes of the ship (spec "Ship endpoints"), thin over WorkspaceService. Path identifiers are
// checked before the body so an invalid name is always the spec's 400. Create and branch add `branchCreated`
// to the spec's bodies (protocol/workspace.ts says why).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  CreateWorkspaceRequest,
  DeleteWorkspaceQuery,
  DiffQuery,
  ListWorkspacesQuery,
  INPUT_BODY_LIMIT,
  SendInputRequest,
  SwitchBranchRequest,
  WorkspaceParams,
  type CreateWorkspaceResponse,
  type SwitchBranchResponse,
} from '../../protocol/index.js';
import { checkKey } from '../workspaces/fleet.js';
import type { WorkspaceService } from '../workspaces/service.js';

export async function checkParams(request: FastifyRequest): Promise<void> {
  const params = request.params as { repo?: string; name?: string };
  if (params.repo !== undefined && params.name !== undefined) checkKey(params.repo, params.name);
}

const ok = { ok: true } as const;

export function workspaceRoutes(service: WorkspaceService) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('preValidation', checkParams);

    app.get('/workspaces', { schema: { querystring: ListWorkspacesQuery } }, async (request) => {
      const { active } = request.query;
      return service.list(active === 'true' ? true : active === 'false' ? false : undefined);
    });

    app.post(
      '/workspaces',
      { schema: { body: CreateWorkspaceRequest } },
      async (request, reply): Promise<CreateWorkspaceResponse> => {
        const { summary, branchCreated } = await service.create(request.body);
        reply.code(201);
        return { ...summary, branchCreated };
      },
    );

    app.get('/workspaces/:repo/:name', { schema: { params: WorkspaceParams } }, async (request) =>
      service.status(request.params.repo, request.params.name),
    );

    app.get(
      '/workspaces/:repo/:name/diff',
      { schema: { params: WorkspaceParams, querystring: DiffQuery } },
      async (request, reply) => {
        const text = await service.diff(request.params.repo, request.params.name, request.query);
        reply.type('text/plain; charset=utf-8');
        return text;
      },
    );

    app.post(
      '/workspaces/:repo/:name/branch',
      { schema: { params: WorkspaceParams, body: SwitchBranchRequest } },
      async (request): Promise<SwitchBranchResponse> => {
        const { branchCreated } = await service.switchBranch(
          request.params.repo,
          request.params.name,
          request.body.branch,
        );
        return { ...ok, branchCreated };
      },
    );

    app.post('/workspaces/:repo/:name/activate', { schema: { params: WorkspaceParams } }, async (request) => {
      await service.activate(request.params.repo, request.params.name);
      return ok;
    });

    app.post('/workspaces/:repo/:name/deactivate', { schema: { params: WorkspaceParams } }, async (request) => {
      await service.deactivate(request.params.repo, request.params.name);
      return ok;
    });

    // The body limit leaves room for any text within the cap, JSON-escaped (`\u001b` is 6 bytes for 1): an
    // over-cap text is the schema's 400 naming the cap, not a 413 (docs/DECISIONS.md).
    app.post(
      '/workspaces/:repo/:name/input',
      { schema: { params: WorkspaceParams, body: SendInputRequest }, bodyLimit: INPUT_BODY_LIMIT },
      async (request) => {
        await service.sendInput(
          request.params.repo,
          request.params.name,
          request.body.text,
          request.body.enter ?? true,
        );
        return ok;
      },
    );

    app.delete(
      '/workspaces/:repo/:name',
      { schema: { params: WorkspaceParams, querystring: DeleteWorkspaceQuery } },
      async (request) => {
        await service.remove(request.params.repo, request.params.name, request.query.force);
        return ok;
      },
    );
  };
}
