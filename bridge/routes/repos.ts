// The repo registry: GET/POST/DELETE /repos and GET /repos/:name/branches.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  classifyCloneUrl,
  CreateRepoRequest,
  DEFAULT_REPO_PROVIDER,
  identifierProblem,
  redactUrlCredentials,
  RepoParams,
  type Repo,
} from '../../protocol/index.js';
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

    app.get('/repos', async () => options.repos.list());

    app.post(
      '/repos',
      { schema: { body: CreateRepoRequest }, config: { identifierFields: { '/name': 'invalid repo identifier' } } },
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

    app.delete('/repos/:name', { schema: { params: RepoParams } }, async (request) => {
      const repo = await requireRepo(request.params.name);
      await options.repos.remove(repo.name);
      request.log.info(
        { audit: 'repo.delete', principal: principalName(request.principal), repo: repo.name },
        `repo ${repo.name} removed`,
      );
      await options.onRemoved?.(repo.name);
      return { ok: true } as const;
    });

    app.get('/repos/:name/branches', { schema: { params: RepoParams } }, async (request) => {
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
