// The workspace surface of the bridge: every ship workspace route, forwarded to the owning ship (which must
// be online), with responses re-validated and `ship`/`ephemeral` added; a ship's own error passes through
// with its status and message; a transport failure makes the ship offline and the call a 503. The ship's
// `branchCreated` on create and branch answers is passed on (protocol/workspace.ts). Each route declares its
// answers (server/route-responses.ts); a ship's own failure passes through with its status.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Compile } from 'typebox/compile';
import { Type } from 'typebox';
import {
  AgentHistoryList,
  BridgeCreateWorkspaceRequest,
  BridgeCreateWorkspaceResponse,
  BridgeSwitchBranchResponse,
  BridgeWorkspaceStatus,
  BridgeWorkspaceSummary,
  DeleteWorkspaceQuery,
  DiffQuery,
  identifierProblem,
  ListWorkspacesQuery,
  INPUT_BODY_LIMIT,
  OkResponse,
  SendInputRequest,
  SwitchBranchRequest,
  workspaceKey,
  workspacePath,
  WorkspaceParams,
  WorkspaceStatus,
  WorkspaceSummary,
} from '../../protocol/index.js';
import { answer, failures, sendJsonText, textAnswer } from '../../server/route-responses.js';
import { BridgeError, invalidRepoIdentifier, invalidWorkspaceIdentifier } from '../errors.js';
import { parseJson, ShipUnreachable, type ShipCall, type ShipReply } from '../ships/ship-client.js';
import { branchOutcome, shipError } from '../ships/ship-replies.js';
import { createWorkspace, type CreateWorkspaceDeps } from './create-workspace.js';
import { SingleFlight } from '../../protocol/single-flight.js';

/** The failures of a route on one workspace, forwarded to its ship. */
const ROUTED = failures({
  400: "invalid repo or workspace identifier, or the ship's 400 passed through",
  404: 'workspace not found: <repo>/<name>',
  502: 'the ship answered no valid body, or for another workspace',
  503: 'ship "<ship>" hosting <repo>/<name> is offline, or unreachable: <message>',
});
const DONE = answer('Done on the ship: `{ok: true}`.', OkResponse);

const checkStatus = Compile(WorkspaceStatus);
const checkSummaries = Compile(Type.Array(WorkspaceSummary));

function checkParams(request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void {
  const params = request.params as { repo?: string; name?: string };
  if (params.repo !== undefined && params.name !== undefined) {
    const repoProblem = identifierProblem(params.repo);
    if (repoProblem) return done(invalidRepoIdentifier(repoProblem));
    const nameProblem = identifierProblem(params.name);
    if (nameProblem) return done(invalidWorkspaceIdentifier(nameProblem));
  }
  done();
}

export function workspaceRoutes(deps: CreateWorkspaceDeps) {
  const { registry, ephemeral } = deps;
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('preValidation', checkParams);

    const forward = async (repo: string, name: string, call: ShipCall): Promise<{ ship: string; reply: ShipReply }> => {
      const ship = registry.owning(repo, name);
      try {
        return { ship: ship.name, reply: await ship.client.call(call) };
      } catch (error) {
        if (error instanceof ShipUnreachable) throw registry.unreachable(ship, error.message);
        throw error;
      }
    };
    const ok = { ok: true } as const;
    const simple =
      (method: string, suffix: string, body?: (request: FastifyRequest) => unknown) =>
      async (request: FastifyRequest) => {
        const { repo, name } = request.params as { repo: string; name: string };
        const { reply } = await forward(repo, name, {
          method,
          path: workspacePath(repo, name, suffix),
          body: body?.(request),
        });
        if (reply.status !== 200) throw shipError(reply);
        return ok;
      };

    // Refresh from every online ship first; a failing ship is skipped and what was last known is listed.
    // Listings share a refresh only if it started after they arrived, so a change made on a ship before the
    // request is always in the answer; a burst still costs each ship about one call per refresh (H17).
    // A ship's listing that reads exactly as the one last applied, with its view unchanged since, would change
    // nothing: it is not parsed, validated and applied again (at fleet scale that was about half of a
    // listing, bench/fleet.ts; bench/RESULTS.md). Every ship is still asked on every listing.
    const applied = new Map<string, { text: string; version: number }>();
    const refresh = new SingleFlight(async () => {
      // A ship removed since the last listing leaves its entry behind otherwise.
      for (const name of applied.keys()) if (!registry.get(name)) applied.delete(name);
      await Promise.all(
        registry
          .list()
          .filter((ship) => ship.status === 'online')
          .map(async (info) => {
            const ship = registry.get(info.name);
            if (!ship) return;
            try {
              const reply = await ship.client.call({ method: 'GET', path: '/workspaces' });
              if (reply.status !== 200) return;
              const last = applied.get(ship.name);
              if (last && last.text === reply.text && last.version === registry.index.viewVersion(ship.name)) return;
              const body = parseJson(reply);
              if (!checkSummaries.Check(body)) return;
              registry.index.replaceView(ship.name, body);
              applied.set(ship.name, { text: reply.text, version: registry.index.viewVersion(ship.name) });
            } catch (error) {
              if (error instanceof ShipUnreachable) registry.unreachable(ship, error.message);
            }
          }),
      );
    });

    const listing = {
      querystring: ListWorkspacesQuery,
      response: {
        200: answer(
          'Every workspace of every ship, refreshed from the online ones (only the active or inactive ones with `active`).',
          Type.Array(BridgeWorkspaceSummary),
        ),
      },
    };
    app.get('/workspaces', { schema: listing }, async (request, reply) => {
      await refresh.get();
      const { active } = request.query;
      // The registry's JSON of the snapshot (each workspace's text kept while its ship reports it unchanged).
      const filter =
        active === 'true'
          ? (w: WorkspaceSummary) => w.active
          : active === 'false'
            ? (w: WorkspaceSummary) => !w.active
            : undefined;
      return sendJsonText(reply, registry.snapshotJson(filter));
    });

    // The agents' recent past the bridge kept from its ships' streams (protocol/agent-history.ts), for the
    // workspaces it holds now: what a GUI opened later needs for its inbox.
    app.get(
      '/workspaces/agent-history',
      {
        schema: {
          response: { 200: answer("The agents' recent past, for the workspaces the bridge holds.", AgentHistoryList) },
        },
      },
      async (): Promise<AgentHistoryList> => ({
        workspaces: registry.histories
          .list()
          .filter((entry) => registry.index.get(workspaceKey(entry.repoName, entry.name)) !== undefined),
      }),
    );

    const status = {
      params: WorkspaceParams,
      response: { 200: answer("The ship's status with `ship` and `ephemeral`.", BridgeWorkspaceStatus), ...ROUTED },
    };
    app.get('/workspaces/:repo/:name', { schema: status }, async (request, reply) => {
      const { repo, name } = request.params;
      const { ship, reply: answer } = await forward(repo, name, { method: 'GET', path: workspacePath(repo, name) });
      if (answer.status !== 200) throw shipError(answer);
      const body = parseJson(answer);
      if (!checkStatus.Check(body)) throw new BridgeError(502, `ship "${ship}" returned an invalid workspace status`);
      if (body.repoName !== repo || body.name !== name) {
        throw new BridgeError(
          502,
          `ship "${ship}" answered for ${workspaceKey(body.repoName, body.name)} instead of ${workspaceKey(repo, name)}`,
        );
      }
      // The validated object, re-serialized once with the bridge's two fields (no schema serializer).
      const decorated = JSON.stringify({ ...body, ship, ephemeral: registry.ephemeralOf(ship, repo, name) });
      return sendJsonText(reply, decorated);
    });

    app.get(
      '/workspaces/:repo/:name/diff',
      {
        schema: {
          params: WorkspaceParams,
          querystring: DiffQuery,
          response: { 200: textAnswer('The diff as the ship answers it.'), ...ROUTED },
        },
      },
      async (request, reply) => {
        const { repo, name } = request.params;
        const query = new URLSearchParams();
        for (const [key, value] of Object.entries(request.query)) {
          for (const item of Array.isArray(value) ? value : [value])
            if (item !== undefined) query.append(key, String(item));
        }
        const suffix = `/diff${query.size ? `?${query}` : ''}`;
        const { reply: answer } = await forward(repo, name, { method: 'GET', path: workspacePath(repo, name, suffix) });
        if (answer.status !== 200) throw shipError(answer);
        reply.type('text/plain; charset=utf-8');
        return answer.text;
      },
    );

    app.post(
      '/workspaces',
      {
        schema: {
          body: BridgeCreateWorkspaceRequest,
          response: {
            201: answer(
              "Cloned: the ship's summary with `ship`, `ephemeral` and, when the ship said it, `branchCreated`.",
              BridgeCreateWorkspaceResponse,
            ),
            ...failures({
              400: "invalid identifier, unknown ship or repo, a branch and an issueNumber both or neither, a blank branch, a bad issueNumber, `ephemeral` without `issueNumber`; or the ship's 400",
              409: "workspace already exists, a create of it in progress or undecided, the ship removed meanwhile, or the issue's branch neither creatable nor found",
              501: 'provider "<provider>" is not supported yet',
              502: 'ship "<ship>" returned an invalid workspace summary',
              503: 'ship "<ship>" is offline, or unreachable: <message>',
            }),
          },
        },
        config: {
          identifierFields: { '/repoName': 'invalid repo identifier', '/name': 'invalid workspace identifier' },
        },
      },
      async (request, reply) => {
        const created = await createWorkspace(deps, request.body);
        reply.code(201);
        return created;
      },
    );

    app.post(
      '/workspaces/:repo/:name/branch',
      {
        schema: {
          params: WorkspaceParams,
          body: SwitchBranchRequest,
          response: {
            200: answer('Switched: `ok` and, when the ship said it, `branchCreated`.', BridgeSwitchBranchResponse),
            ...ROUTED,
          },
        },
      },
      async (request) => {
        const { repo, name } = request.params;
        const { reply } = await forward(repo, name, {
          method: 'POST',
          path: workspacePath(repo, name, '/branch'),
          body: { branch: request.body.branch },
        });
        if (reply.status !== 200) throw shipError(reply);
        return { ...ok, ...branchOutcome(parseJson(reply)) };
      },
    );
    const onWorkspace = { params: WorkspaceParams, response: { 200: DONE, ...ROUTED } };
    app.post('/workspaces/:repo/:name/activate', { schema: onWorkspace }, simple('POST', '/activate'));
    app.post('/workspaces/:repo/:name/deactivate', { schema: onWorkspace }, simple('POST', '/deactivate'));
    app.post(
      '/workspaces/:repo/:name/input',
      {
        schema: { params: WorkspaceParams, body: SendInputRequest, response: { 200: DONE, ...ROUTED } },
        bodyLimit: INPUT_BODY_LIMIT,
      },
      simple('POST', '/input', (request) => request.body),
    );
    // `force` absent (or true) deletes unconditionally, as the spec says. `force=false` is our extension
    // (docs/DECISIONS.md): forwarded as the ship's guarded delete, whose 409 naming the work found passes
    // through, so `svc client rm` and the GUI can refuse to lose unpushed work.
    app.delete(
      '/workspaces/:repo/:name',
      {
        schema: {
          params: WorkspaceParams,
          querystring: DeleteWorkspaceQuery,
          response: {
            200: DONE,
            ...ROUTED,
            ...failures({ 409: 'with `force=false`: the ship found work that is not on a remote' }),
          },
        },
      },
      async (request) => {
        const { repo, name } = request.params;
        const guarded = request.query.force === false ? '?force=false' : '';
        const { ship, reply } = await forward(repo, name, {
          method: 'DELETE',
          path: workspacePath(repo, name, guarded),
        });
        if (reply.status !== 200) throw shipError(reply);
        registry.deleted(ship, workspaceKey(repo, name));
        await ephemeral.drop(repo, name);
        return ok;
      },
    );
  };
}
