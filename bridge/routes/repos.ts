// The repo registry: GET/POST/DELETE /repos and GET /repos/:name/branches.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  classifyCloneUrl,
  CreateRepoRequest,
  DEFAULT_REPO_PROVIDER,
  identifierProblem,
  redactUrlCredentials,
  Repo,
  RepoBranch,
  RepoParams,
  OkResponse,
} from '../../protocol/index.js';
import { Type } from 'typebox';
import { answer, failures } from '../../server/route-responses.js';
import { principalName } from '../auth/principal.js';
import { branchListingFailed, invalidRepo, invalidRepoIdentifier, repoExists, repoNotFound } from '../errors.js';
import { BranchListingError, listBranches, type BranchProbeLimits } from '../repos/branches.js';
import type { ReposStore } from '../store/repos-store.js';

export interface RepoRouteOptions {
  repos: ReposStore;
  allowLocalRepos: boolean;
  probe?: BranchProbeLimits;
  /** Called after a repo is removed (ephemeral records of it are dropped). */
  onRemoved?: (name: string) => Promise<void>;
}

/** The failures of a route on one registered repo. */
const NAMED = failures({ 400: 'invalid repo identifier', 404: 'repo not found: <name>' });

export function repoRoutes(options: RepoRouteOptions) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const requireRepo = async (name: string): Promise<Repo> => {
      const problem = identifierProblem(name);
      if (problem !== null) throw invalidRepoIdentifier(problem);
      const repo = await options.repos.get(name);
      if (!repo) throw repoNotFound(name);
      return repo;
    };

    app.get('/repos', { schema: { response: { 200: answer('Every registered repo.', Type.Array(Repo)) } } }, async () =>
      options.repos.list(),
    );

    app.post(
      '/repos',
      {
        schema: {
          body: CreateRepoRequest,
          response: {
            201: answer('Registered: the repo (`provider` defaults to `custom`).', Repo),
            ...failures({
              400: 'invalid repo identifier, or invalid repo: <reason> (a clone URL svc refuses)',
              409: 'repo already registered: <name>',
            }),
          },
        },
        config: { identifierFields: { '/name': 'invalid repo identifier' } },
      },
      async (request, reply) => {
        const { name, url } = request.body;
        const provider = request.body.provider ?? DEFAULT_REPO_PROVIDER;
        const transport = classifyCloneUrl(url, { allowLocalRepos: options.allowLocalRepos });
        if ('problem' in transport) throw invalidRepo(transport.problem);
        if (!(await options.repos.add({ name, url, provider }))) throw repoExists(name);
        request.log.info(
          {
            audit: 'repo.create',
            principal: principalName(request.principal),
            repo: name,
            url: redactUrlCredentials(url),
          },
          `repo ${name} registered`,
        );
        reply.code(201);
        return { name, url, provider };
      },
    );

    const removal = {
      params: RepoParams,
      response: {
        200: answer('Removed (workspaces cloned from it are left alone): `{ok: true}`.', OkResponse),
        ...NAMED,
      },
    };
    app.delete('/repos/:name', { schema: removal }, async (request) => {
      const repo = await requireRepo(request.params.name);
      await options.repos.remove(repo.name);
      request.log.info(
        { audit: 'repo.delete', principal: principalName(request.principal), repo: repo.name },
        `repo ${repo.name} removed`,
      );
      await options.onRemoved?.(repo.name);
      return { ok: true } as const;
    });

    const branches = {
      params: RepoParams,
      response: {
        200: answer('The branches the remote advertises, sorted by name.', Type.Array(RepoBranch)),
        ...NAMED,
        ...failures({ 502: 'could not list branches for repo "<name>": <git stderr, credentials redacted>' }),
      },
    };
    app.get('/repos/:name/branches', { schema: branches }, async (request) => {
      const repo = await requireRepo(request.params.name);
      try {
        return await listBranches(repo.url, { allowLocalRepos: options.allowLocalRepos, ...options.probe });
      } catch (error) {
        if (error instanceof BranchListingError) throw branchListingFailed(repo.name, error.message);
        throw error;
      }
    });
  };
}
