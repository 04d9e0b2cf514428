// The forge routes of docs/architecture.md §8 under /repos/:name/…: each resolves the repo, picks the provider its
// `provider` names (none → 501), and answers the provider's docs/architecture.md §8 shape. ProviderError is mapped to a
// BridgeError once, by bridgeErrorOf: a forge 5xx (or no answer) is 502, any other forge status passes through.
// Who may call them is the access table's business (users and the ship-agent), not these routes'. Each
// declares its answers (server/route-responses.ts) with the shapes of protocol/forge.ts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  CheckRun,
  FailedJobLog,
  ForgeComment,
  ForgeReview,
  identifierProblem,
  IssueSummary,
  IssueView,
  PullSummary,
  PullView,
  RepoInfo,
  type Repo,
} from '../../protocol/index.js';
import { principalName } from '../auth/principal.js';
import { BridgeError, invalidRepoIdentifier, repoNotFound } from '../errors.js';
import { answer, failures } from '../../server/route-responses.js';
import {
  bridgeErrorOf,
  providerFor,
  type CheckTarget,
  type ForgeProvider,
  type ForgeProviders,
} from '../providers/forge-provider.js';
import type { ReposStore } from '../store/repos-store.js';

export interface ForgeRouteOptions {
  repos: ReposStore;
  providers: ForgeProviders;
}

const Name = Type.Object({ name: Type.String() });
const NameNumber = Type.Object({ name: Type.String(), number: Type.Integer({ minimum: 1 }) });
const StateQuery = Type.Object({
  state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('all')])),
});
const CheckQuery = Type.Object({
  ref: Type.Optional(Type.String({ minLength: 1 })),
  pr: Type.Optional(Type.Integer({ minimum: 1 })),
});
const CommentBody = Type.Object({ body: Type.String({ minLength: 1, maxLength: 65536 }) });
const ReviewBody = Type.Object({
  event: Type.Union([Type.Literal('APPROVE'), Type.Literal('REQUEST_CHANGES'), Type.Literal('COMMENT')]),
  body: Type.Optional(Type.String({ maxLength: 65536 })),
});

export const CHECKS_TARGET_REQUIRED = 'checks require a ref or pr';

/** The failures of every forge route; any other status the forge answers (401, 403, 422…) passes through. */
const FORGE_FAILURES = failures({
  400: 'invalid repo identifier',
  404: 'repo not found: <name>, or the forge has no such issue or pull request',
  501: 'provider "<provider>" is not supported yet',
  502: 'the forge failed or did not answer',
});
const CHECK_FAILURES = {
  ...FORGE_FAILURES,
  ...failures({ 400: `invalid repo identifier; ${CHECKS_TARGET_REQUIRED}, or give a ref or a pr, not both` }),
};

export function forgeRoutes(options: ForgeRouteOptions) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    /** The repo and its provider, or the spec's 400/404/501. */
    const resolve = async (name: string): Promise<{ repo: Repo; provider: ForgeProvider }> => {
      const problem = identifierProblem(name);
      if (problem !== null) throw invalidRepoIdentifier(problem);
      const repo = await options.repos.get(name);
      if (!repo) throw repoNotFound(name);
      const provider = providerFor(options.providers, repo.provider);
      if (!provider) throw new BridgeError(501, `provider "${repo.provider}" is not supported yet`);
      return { repo, provider };
    };
    const forge = async <T>(name: string, work: (provider: ForgeProvider, repo: Repo) => Promise<T>): Promise<T> => {
      const { repo, provider } = await resolve(name);
      try {
        return await work(provider, repo);
      } catch (error) {
        throw bridgeErrorOf(error);
      }
    };
    const checkTarget = (query: { ref?: string; pr?: number }): CheckTarget => {
      if (query.ref !== undefined && query.pr !== undefined) throw new BridgeError(400, 'give a ref or a pr, not both');
      if (query.ref !== undefined) return { ref: query.ref };
      if (query.pr !== undefined) return { pr: query.pr };
      throw new BridgeError(400, CHECKS_TARGET_REQUIRED);
    };

    app.get(
      '/repos/:name/info',
      {
        schema: {
          params: Name,
          response: { 200: answer('The repo as the forge describes it.', RepoInfo), ...FORGE_FAILURES },
        },
      },
      (request) => forge(request.params.name, (p, repo) => p.repoInfo(repo)),
    );
    app.get(
      '/repos/:name/issues',
      {
        schema: {
          params: Name,
          querystring: StateQuery,
          response: {
            200: answer('The issues in that state (default open).', Type.Array(IssueSummary)),
            ...FORGE_FAILURES,
          },
        },
      },
      (request) => forge(request.params.name, (p, repo) => p.listIssues(repo, request.query.state ?? 'open')),
    );
    app.get(
      '/repos/:name/issues/:number',
      {
        schema: {
          params: NameNumber,
          response: { 200: answer('The issue with its comments.', IssueView), ...FORGE_FAILURES },
        },
      },
      (request) => forge(request.params.name, (p, repo) => p.viewIssue(repo, request.params.number)),
    );
    app.post(
      '/repos/:name/issues/:number/comments',
      {
        schema: {
          params: NameNumber,
          body: CommentBody,
          response: { 201: answer('The comment posted.', ForgeComment), ...FORGE_FAILURES },
        },
      },
      async (request, reply) => {
        const posted = await forge(request.params.name, (p, repo) =>
          p.commentIssue(repo, request.params.number, request.body.body),
        );
        request.log.info(
          {
            audit: 'forge.issue_comment',
            principal: principalName(request.principal),
            repo: request.params.name,
            number: request.params.number,
          },
          'issue comment posted',
        );
        reply.code(201);
        return posted;
      },
    );
    app.get(
      '/repos/:name/pulls',
      {
        schema: {
          params: Name,
          querystring: StateQuery,
          response: {
            200: answer('The pull requests in that state (default open).', Type.Array(PullSummary)),
            ...FORGE_FAILURES,
          },
        },
      },
      (request) => forge(request.params.name, (p, repo) => p.listPulls(repo, request.query.state ?? 'open')),
    );
    app.get(
      '/repos/:name/pulls/:number',
      {
        schema: {
          params: NameNumber,
          response: { 200: answer('The pull request.', PullView), ...FORGE_FAILURES },
        },
      },
      (request) => forge(request.params.name, (p, repo) => p.viewPull(repo, request.params.number)),
    );
    app.post(
      '/repos/:name/pulls/:number/comments',
      {
        schema: {
          params: NameNumber,
          body: CommentBody,
          response: { 201: answer('The comment posted.', ForgeComment), ...FORGE_FAILURES },
        },
      },
      async (request, reply) => {
        const posted = await forge(request.params.name, (p, repo) =>
          p.commentPull(repo, request.params.number, request.body.body),
        );
        request.log.info(
          {
            audit: 'forge.pull_comment',
            principal: principalName(request.principal),
            repo: request.params.name,
            number: request.params.number,
          },
          'pull request comment posted',
        );
        reply.code(201);
        return posted;
      },
    );
    app.post(
      '/repos/:name/pulls/:number/reviews',
      {
        schema: {
          params: NameNumber,
          body: ReviewBody,
          response: { 201: answer('The review posted.', ForgeReview), ...FORGE_FAILURES },
        },
      },
      async (request, reply) => {
        const posted = await forge(request.params.name, (p, repo) =>
          p.reviewPull(repo, request.params.number, request.body.event, request.body.body),
        );
        request.log.info(
          {
            audit: 'forge.pull_review',
            principal: principalName(request.principal),
            repo: request.params.name,
            number: request.params.number,
            event: request.body.event,
          },
          'pull request review posted',
        );
        reply.code(201);
        return posted;
      },
    );
    app.get(
      '/repos/:name/checks',
      {
        schema: {
          params: Name,
          querystring: CheckQuery,
          response: { 200: answer('The checks of that ref or pull request.', Type.Array(CheckRun)), ...CHECK_FAILURES },
        },
      },
      (request) => forge(request.params.name, (p, repo) => p.checks(repo, checkTarget(request.query))),
    );
    app.get(
      '/repos/:name/checks/logs',
      {
        schema: {
          params: Name,
          querystring: CheckQuery,
          response: {
            200: answer('The logs of the failed jobs of that ref or pull request.', Type.Array(FailedJobLog)),
            ...CHECK_FAILURES,
          },
        },
      },
      (request) => forge(request.params.name, (p, repo) => p.failedJobLogs(repo, checkTarget(request.query))),
    );
  };
}
