// Workspace routes of the ship (spec "Ship endpoints"), thin over WorkspaceService. Path identifiers are
// checked before the body so an invalid name is always the spec's 400. Create and branch add `branchCreated`
// to the spec's bodies (protocol/workspace.ts says why). Each route declares its answers (spec "Ship errors";
// server/route-responses.ts); the 401, 422 and 500 every route shares are declared where they are given.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  CreateWorkspaceRequest,
  CreateWorkspaceResponse,
  DeleteWorkspaceQuery,
  DiffQuery,
  ListWorkspacesQuery,
  INPUT_BODY_LIMIT,
  OkResponse,
  SendInputRequest,
  SwitchBranchRequest,
  SwitchBranchResponse,
  WorkspaceParams,
  WorkspaceStatus,
  WorkspaceSummary,
} from '../../protocol/index.js';
import { answer, failures, textAnswer } from '../../server/route-responses.js';
import { checkKey } from '../workspaces/fleet.js';
import type { WorkspaceService } from '../workspaces/service.js';

export async function checkParams(request: FastifyRequest): Promise<void> {
  const params = request.params as { repo?: string; name?: string };
  if (params.repo !== undefined && params.name !== undefined) checkKey(params.repo, params.name);
}

const ok = { ok: true } as const;

export const INVALID_IDENTIFIER = 'invalid repo identifier or invalid workspace identifier, and the rule broken';
export const NOT_FOUND = 'workspace not found: <repo>/<name> (no directory, or not a git working tree)';
/** The failures of a route on one workspace whose only 400 is an invalid identifier. */
export const ON_WORKSPACE = failures({ 400: INVALID_IDENTIFIER, 404: NOT_FOUND });
const NOT_ACTIVE = failures({ 400: 'invalid identifier, or workspace not active: <repo>/<name>', 404: NOT_FOUND });
const DONE = answer('Done: `{ok: true}`.', OkResponse);

export function workspaceRoutes(service: WorkspaceService) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('preValidation', checkParams);

    app.get(
      '/workspaces',
      {
        schema: {
          querystring: ListWorkspacesQuery,
          response: {
            200: answer(
              'Every workspace (only the active or inactive ones with `active`).',
              Type.Array(WorkspaceSummary),
            ),
          },
        },
      },
      async (request) => {
        const { active } = request.query;
        return service.list(active === 'true' ? true : active === 'false' ? false : undefined);
      },
    );

    app.post(
      '/workspaces',
      {
        schema: {
          body: CreateWorkspaceRequest,
          response: {
            201: answer(
              'Cloned: the summary (`active` false, `agent` null) and whether the branch was created.',
              CreateWorkspaceResponse,
            ),
            ...failures({
              400: 'invalid identifier or create request, an empty branch, a branch git refuses to create, or a remote whose HEAD is no commit',
              409: 'the clone destination exists already',
            }),
          },
        },
      },
      async (request, reply): Promise<CreateWorkspaceResponse> => {
        const { summary, branchCreated } = await service.create(request.body);
        reply.code(201);
        return { ...summary, branchCreated };
      },
    );

    app.get(
      '/workspaces/:repo/:name',
      {
        schema: {
          params: WorkspaceParams,
          response: { 200: answer("The workspace's status.", WorkspaceStatus), ...ON_WORKSPACE },
        },
      },
      async (request) => service.status(request.params.repo, request.params.name),
    );

    app.get(
      '/workspaces/:repo/:name/diff',
      {
        schema: {
          params: WorkspaceParams,
          querystring: DiffQuery,
          response: { 200: textAnswer('The diff as git prints it.'), ...ON_WORKSPACE },
        },
      },
      async (request, reply) => {
        const text = await service.diff(request.params.repo, request.params.name, request.query);
        reply.type('text/plain; charset=utf-8');
        return text;
      },
    );

    app.post(
      '/workspaces/:repo/:name/branch',
      {
        schema: {
          params: WorkspaceParams,
          body: SwitchBranchRequest,
          response: {
            200: answer('Switched: `ok` and whether the branch was created.', SwitchBranchResponse),
            ...failures({ 400: 'invalid identifier, or a branch git refuses', 404: NOT_FOUND }),
          },
        },
      },
      async (request): Promise<SwitchBranchResponse> => {
        const { branchCreated } = await service.switchBranch(
          request.params.repo,
          request.params.name,
          request.body.branch,
        );
        return { ...ok, branchCreated };
      },
    );

    app.post(
      '/workspaces/:repo/:name/activate',
      {
        schema: {
          params: WorkspaceParams,
          response: {
            200: DONE,
            ...failures({ 400: 'invalid identifier, or workspace already active: <repo>/<name>', 404: NOT_FOUND }),
          },
        },
      },
      async (request) => {
        await service.activate(request.params.repo, request.params.name);
        return ok;
      },
    );

    app.post(
      '/workspaces/:repo/:name/deactivate',
      { schema: { params: WorkspaceParams, response: { 200: DONE, ...NOT_ACTIVE } } },
      async (request) => {
        await service.deactivate(request.params.repo, request.params.name);
        return ok;
      },
    );

    // The body limit leaves room for any text within the cap, JSON-escaped (`\u001b` is 6 bytes for 1): an
    // over-cap text is the schema's 400 naming the cap, not a 413 (docs/DECISIONS.md).
    app.post(
      '/workspaces/:repo/:name/input',
      {
        schema: { params: WorkspaceParams, body: SendInputRequest, response: { 200: DONE, ...NOT_ACTIVE } },
        bodyLimit: INPUT_BODY_LIMIT,
      },
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
      {
        schema: {
          params: WorkspaceParams,
          querystring: DeleteWorkspaceQuery,
          response: {
            200: DONE,
            ...failures({
              400: INVALID_IDENTIFIER,
              404: NOT_FOUND,
              409: 'with `force=false`: workspace <repo>/<name> holds work that is not on a remote: <findings>',
            }),
          },
        },
      },
      async (request) => {
        await service.remove(request.params.repo, request.params.name, request.query.force);
        return ok;
      },
    );
  };
}
