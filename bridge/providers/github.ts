// The GitHub provider (docs/architecture.md §8) on @octokit/rest: every list through octokit.paginate (all pages, no
// 100-item cap); 5xx retried, primary and secondary rate limits waited out with the reset time GitHub sends
// but only while the wait is short and only once, and writes spaced (github-request-policy.ts); a longer or
// repeated limit is surfaced as the forge's own status with the reset time in the message.
// The token lives only in the Octokit instance: every message this module produces is scrubbed of it and
// of URL credentials. It owns the clone URL → owner/name mapping; it does not choose which repos it serves.
// Issue-linked branches go through GraphQL (`octokit.graphql`: same auth and request policy; its URL is
// `<baseUrl>/graphql`, or `…/api/graphql` for a GitHub Enterprise `…/api/v3` base). GraphQL answers its
// errors with HTTP 200, so they are mapped to a status here (graphqlFailure), not by call().
// Octokit is loaded by the first operation, not with the bridge: it is ~10 MiB of an idle bridge's memory
// (bench/RESULTS.md, session 18), and a bridge without GitHub repos never needs it.
import type { Octokit } from '@octokit/rest';
import { GitHubTransport } from './github-fetch.js';
import { GitHubReads } from './github-reads.js';
import { installRequestPolicy, requestPolicy, type RequestPolicy } from './github-request-policy.js';
import {
  redactUrlCredentials,
  type CheckRun,
  type FailedJobLog,
  type ForgeComment,
  type ForgeReview,
  type IssueSummary,
  type IssueView,
  type PullSummary,
  type PullView,
  type Repo,
  type RepoInfo,
} from '../../protocol/index.js';
import {
  ProviderError,
  type CheckTarget,
  type ForgeProvider,
  type IssueBrief,
  type IssueState,
  type PullRef,
  type ReviewEvent,
} from './forge-provider.js';

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';
const REPO_PATHS_KEPT = 1_000;
/** A failed job's log is cut to its last this many characters (the end is where the failure is). */
export const JOB_LOG_MAX_CHARS = 200_000;

export interface GitHubProviderOptions {
  /** SVC_GITHUB_TOKEN; without one, requests go unauthenticated (public repos, low rate limit). */
  token?: string;
  /** SVC_GITHUB_API_URL (GitHub Enterprise, tests); default the public API. */
  baseUrl?: string;
  /** The longest rate-limit wait honoured before giving up (seconds, default 60). */
  maxRateLimitWaitSeconds?: number;
  /** Milliseconds per "second" of a Retry-After or reset wait and of the 5xx backoff (default 1000; tests shrink it). */
  retryAfterBaseValueMs?: number;
  /** 5xx retries (default 2). */
  retries?: number;
  /** Where rate-limit waits are reported (never with the token). */
  log?: (message: string, fields: Record<string, unknown>) => void;
}

/** The Authorization header Octokit's token auth sends: `bearer` for a JWT (three dot-separated parts), else `token`. */
function authorizationOf(token: string): string {
  const bare = token.replace(/^(token|bearer) +/i, '');
  return bare.split('.').length === 3 ? `bearer ${bare}` : `token ${bare}`;
}

/** owner/name of a GitHub-style clone URL: https://host/owner/name(.git), ssh://git@host/owner/name(.git), git@host:owner/name(.git). */
export function githubRepoPath(url: string): { owner: string; name: string } | null {
  const segment = /^[A-Za-z0-9_.-]+$/;
  let path: string | undefined;
  const scp = /^[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:(?!\/)(.+)$/.exec(url);
  if (scp) path = scp[1];
  else {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    if (
      !['https:', 'http:', 'ssh:', 'git:'].includes(parsed.protocol) ||
      !parsed.hostname ||
      parsed.search ||
      parsed.hash
    )
      return null;
    path = parsed.pathname.replace(/^\//, '');
  }
  if (path === undefined) return null;
  const parts = path.replace(/\/$/, '').split('/');
  if (parts.length !== 2) return null;
  const owner = parts[0]!;
  const name = parts[1]!.replace(/\.git$/, '');
  if (!segment.test(owner) || !segment.test(name) || name === '.' || name === '..' || owner === '.' || owner === '..')
    return null;
  return { owner, name };
}

interface Client {
  octokit: Octokit;
  /** A branch's pull requests and an issue, read without Octokit's pipeline (github-reads.ts). */
  reads: GitHubReads;
}

export class GitHubProvider implements ForgeProvider {
  private readonly token: string | undefined;
  private readonly baseUrl: string;
  private readonly transport = new GitHubTransport();
  private readonly policy: RequestPolicy;
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  /** Clone URL → owner/name (or null: not GitHub's), parsed once: a sweep asks about each repo many times. */
  private readonly paths = new Map<string, { owner: string; name: string } | null>();

  constructor(options: GitHubProviderOptions = {}) {
    this.token = options.token || undefined;
    this.baseUrl = (options.baseUrl || DEFAULT_GITHUB_API_URL).replace(/\/+$/, '');
    this.policy = requestPolicy({
      retries: options.retries,
      maxRateLimitWaitSeconds: options.maxRateLimitWaitSeconds,
      secondMs: options.retryAfterBaseValueMs,
      log: options.log,
    });
  }

  /** Loads Octokit and makes the client, once; call() waits for it before any operation's work. */
  private connect(): Promise<void> {
    this.connecting ??= import('@octokit/rest').then(({ Octokit }) => {
      const octokit = new Octokit({
        auth: this.token,
        baseUrl: this.baseUrl,
        userAgent: 'svc-bridge',
        log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
        request: { redirect: 'follow', fetch: this.transport.fetch() },
      });
      installRequestPolicy(octokit, this.policy);
      // The sweep's reads send what Octokit sends: its accept and user-agent, its authorization.
      const { accept, 'user-agent': userAgent } = octokit.request.endpoint.DEFAULTS.headers;
      const headers: Record<string, string> = { accept: String(accept), 'user-agent': String(userAgent) };
      if (this.token) headers.authorization = authorizationOf(this.token);
      this.client = { octokit, reads: new GitHubReads(this.transport, this.policy, this.baseUrl, headers) };
    });
    return this.connecting;
  }

  /** The client, inside an operation's work (call() has connected). */
  private get octokit(): Octokit {
    if (!this.client) throw new Error('GitHubProvider: Octokit used outside call()');
    return this.client.octokit;
  }

  private get reads(): GitHubReads {
    if (!this.client) throw new Error('GitHubProvider: the reads used outside call()');
    return this.client.reads;
  }

  private target(repo: Repo): { owner: string; repo: string } {
    let path = this.paths.get(repo.url);
    if (path === undefined) {
      path = githubRepoPath(repo.url);
      // Repos are few; a bound all the same, for a bridge whose repos change all day.
      if (this.paths.size >= REPO_PATHS_KEPT) this.paths.clear();
      this.paths.set(repo.url, path);
    }
    if (!path)
      throw new ProviderError(400, `repo "${repo.name}" is not a GitHub repository: ${redactUrlCredentials(repo.url)}`);
    return { owner: path.owner, repo: path.name };
  }

  private scrub(text: string): string {
    const redacted = redactUrlCredentials(text);
    return this.token ? redacted.split(this.token).join('[redacted]') : redacted;
  }

  /** Runs one forge operation; every failure becomes a ProviderError with the forge's status. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      await this.connect();
      return await work();
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      const failure = error as {
        status?: number;
        message?: string;
        cause?: unknown;
        response?: { data?: unknown; headers?: Record<string, string | undefined> };
      };
      // No answer at all (Octokit reports a failed fetch as a 500 without a response).
      if (!failure.response) {
        const cause = failure.cause as { cause?: { message?: string }; message?: string } | undefined;
        throw new ProviderError(
          502,
          this.scrub(
            `GitHub request failed (no answer): ${cause?.cause?.message ?? cause?.message ?? failure.message ?? 'unknown error'}`,
          ),
        );
      }
      const status = typeof failure.status === 'number' && failure.status >= 400 ? failure.status : 502;
      const data = failure.response?.data as { message?: unknown } | undefined;
      let message = typeof data?.message === 'string' ? data.message : failure.message || 'no answer';
      const headers = failure.response?.headers ?? {};
      if (
        (status === 403 || status === 429) &&
        (headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined)
      ) {
        const reset = Number(headers['x-ratelimit-reset']);
        const retryAfter = Number(headers['retry-after']);
        if (Number.isFinite(reset) && reset > 0)
          message += ` (rate limit resets at ${new Date(reset * 1000).toISOString()})`;
        else if (Number.isFinite(retryAfter)) message += ` (retry after ${retryAfter} s)`;
      }
      throw new ProviderError(status, this.scrub(`GitHub request failed (${status}): ${message}`));
    }
  }

  repoInfo(repo: Repo): Promise<RepoInfo> {
    return this.call(async () => {
      const target = this.target(repo);
      const { data } = await this.octokit.rest.repos.get(target);
      return {
        name: data.name,
        fullName: data.full_name,
        description: data.description ?? null,
        url: data.html_url,
        defaultBranch: data.default_branch,
        private: data.private,
        stars: data.stargazers_count,
        openIssues: data.open_issues_count,
      };
    });
  }

  listIssues(repo: Repo, state: IssueState): Promise<IssueSummary[]> {
    return this.call(async () => {
      const target = this.target(repo);
      const issues = await this.octokit.paginate(this.octokit.rest.issues.listForRepo, {
        ...target,
        state,
        per_page: 100,
      });
      return issues.filter((issue) => !issue.pull_request).map(issueSummary);
    });
  }

  viewIssue(repo: Repo, number: number): Promise<IssueView> {
    return this.call(async () => {
      const target = this.target(repo);
      const { data } = await this.octokit.rest.issues.get({ ...target, issue_number: number });
      const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, {
        ...target,
        issue_number: number,
        per_page: 100,
      });
      return { ...issueSummary(data), body: data.body ?? null, comments: comments.map(commentOf) };
    });
  }

  commentIssue(repo: Repo, number: number, body: string): Promise<ForgeComment> {
    return this.call(async () =>
      commentOf(
        (await this.octokit.rest.issues.createComment({ ...this.target(repo), issue_number: number, body })).data,
      ),
    );
  }

  listPulls(repo: Repo, state: IssueState): Promise<PullSummary[]> {
    return this.call(async () => {
      const target = this.target(repo);
      const pulls = await this.octokit.paginate(this.octokit.rest.pulls.list, { ...target, state, per_page: 100 });
      return pulls.map(pullSummary);
    });
  }

  viewPull(repo: Repo, number: number): Promise<PullView> {
    return this.call(async () => {
      const target = this.target(repo);
      const { data } = await this.octokit.rest.pulls.get({ ...target, pull_number: number });
      return {
        ...pullSummary(data),
        body: data.body ?? null,
        merged: data.merged,
        mergeable: data.mergeable ?? null,
        additions: data.additions,
        deletions: data.deletions,
        changedFiles: data.changed_files,
        headSha: data.head.sha,
      };
    });
  }

  /** A pull request's conversation comment (GitHub keeps those on the issue of the same number). */
  commentPull(repo: Repo, number: number, body: string): Promise<ForgeComment> {
    return this.call(async () => {
      const target = this.target(repo);
      await this.octokit.rest.pulls.get({ ...target, pull_number: number }); // 404 for an issue that is not a PR
      return commentOf((await this.octokit.rest.issues.createComment({ ...target, issue_number: number, body })).data);
    });
  }

  reviewPull(repo: Repo, number: number, event: ReviewEvent, body?: string): Promise<ForgeReview> {
    return this.call(async () => {
      const target = this.target(repo);
      const { data } = await this.octokit.rest.pulls.createReview({
        ...target,
        pull_number: number,
        event,
        ...(body === undefined ? {} : { body }),
      });
      return {
        id: data.id,
        state: data.state,
        author: data.user?.login ?? null,
        body: data.body || null,
        url: data.html_url,
      };
    });
  }

  private async sha(target: { owner: string; repo: string }, check: CheckTarget): Promise<string> {
    if (check.ref !== undefined) return check.ref;
    return (await this.octokit.rest.pulls.get({ ...target, pull_number: check.pr })).data.head.sha;
  }

  checks(repo: Repo, check: CheckTarget): Promise<CheckRun[]> {
    return this.call(async () => {
      const target = this.target(repo);
      const ref = await this.sha(target, check);
      const runs = await this.octokit.paginate(this.octokit.rest.checks.listForRef, { ...target, ref, per_page: 100 });
      return runs.map((run) => ({
        name: run.name,
        status: run.status,
        conclusion: run.conclusion ?? null,
        detailsUrl: run.details_url ?? null,
        startedAt: run.started_at ?? null,
        completedAt: run.completed_at ?? null,
      }));
    });
  }

  failedJobLogs(repo: Repo, check: CheckTarget): Promise<FailedJobLog[]> {
    return this.call(async () => {
      const target = this.target(repo);
      let headSha = await this.sha(target, check);
      // A branch or tag: the Actions runs API filters by commit only.
      if (!/^[0-9a-f]{40}$/i.test(headSha))
        headSha = (await this.octokit.rest.repos.getCommit({ ...target, ref: headSha })).data.sha;
      const runs = await this.octokit.paginate(this.octokit.rest.actions.listWorkflowRunsForRepo, {
        ...target,
        head_sha: headSha,
        per_page: 100,
      });
      const failed: FailedJobLog[] = [];
      for (const run of runs) {
        const jobs = await this.octokit.paginate(this.octokit.rest.actions.listJobsForWorkflowRun, {
          ...target,
          run_id: run.id,
          filter: 'latest',
          per_page: 100,
        });
        for (const job of jobs) {
          if (job.conclusion !== 'failure' && job.conclusion !== 'timed_out') continue;
          const { data } = await this.octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...target, job_id: job.id });
          const text =
            typeof data === 'string'
              ? data
              : data instanceof ArrayBuffer
                ? new TextDecoder().decode(data)
                : String(data ?? '');
          failed.push({
            workflow: run.name ?? String(run.workflow_id),
            job: job.name,
            jobId: job.id,
            log: text.length > JOB_LOG_MAX_CHARS ? text.slice(-JOB_LOG_MAX_CHARS) : text,
          });
        }
      }
      return failed;
    });
  }

  // Issue-linked and ephemeral workspaces (spec "POST /workspaces (bridge)", docs/architecture.md §9).

  readIssue(repo: Repo, number: number): Promise<IssueBrief> {
    return this.call(async () => {
      const target = this.target(repo);
      type Issue = { number: number; title: string; state: string; pull_request?: unknown };
      const data: Issue =
        (await this.reads.get<Issue>(`/repos/${target.owner}/${target.repo}/issues/${number}`)) ??
        (await this.octokit.rest.issues.get({ ...target, issue_number: number })).data;
      // GitHub answers a pull request's number here too; a branch is never linked to one.
      if (data.pull_request)
        throw new ProviderError(404, `GitHub request failed (404): #${number} is a pull request, not an issue`);
      return { number: data.number, title: data.title, state: data.state };
    });
  }

  createLinkedBranch(repo: Repo, issueNumber: number, branch: string): Promise<string | null> {
    return this.call(async () => {
      const { owner, repo: name } = this.target(repo);
      const found = await this.graphql<IssueAndHead>(ISSUE_AND_HEAD, { owner, name, number: issueNumber });
      const repository = found.repository;
      if (!repository?.issue)
        throw new ProviderError(
          404,
          `GitHub request failed (404): issue #${issueNumber} not found in ${owner}/${name}`,
        );
      const oid = repository.defaultBranchRef?.target?.oid;
      if (!oid)
        throw new ProviderError(
          409,
          `GitHub request failed (409): ${owner}/${name} has no default branch (the repository is empty)`,
        );
      const input = { issueId: repository.issue.id, repositoryId: repository.id, oid, name: branch };
      let created: CreatedLinkedBranch;
      try {
        created = await this.graphql<CreatedLinkedBranch>(CREATE_LINKED_BRANCH, { input });
      } catch (error) {
        if (error instanceof ProviderError && refusedName(error)) return null;
        throw error;
      }
      // No linked branch and no error: the forge made nothing, so the caller looks for the name as on a refusal.
      const ref = created.createLinkedBranch?.linkedBranch?.ref?.name;
      return ref ? ref.replace(/^refs\/heads\//, '') : null;
    });
  }

  linkedBranches(repo: Repo, issueNumber: number): Promise<string[]> {
    return this.call(async () => {
      const { owner, repo: name } = this.target(repo);
      const names: string[] = [];
      let cursor: string | null = null;
      for (;;) {
        const page: LinkedBranchesPage = await this.graphql<LinkedBranchesPage>(LINKED_BRANCHES, {
          owner,
          name,
          number: issueNumber,
          cursor,
        });
        const connection = page.repository?.issue?.linkedBranches;
        if (!connection)
          throw new ProviderError(
            404,
            `GitHub request failed (404): issue #${issueNumber} not found in ${owner}/${name}`,
          );
        // A linked branch whose ref was deleted has `ref: null`: it is no branch to check out.
        for (const node of connection.nodes ?? [])
          if (node?.ref?.name) names.push(node.ref.name.replace(/^refs\/heads\//, ''));
        if (!connection.pageInfo.hasNextPage || !connection.pageInfo.endCursor) return names;
        cursor = connection.pageInfo.endCursor;
      }
    });
  }

  branchExists(repo: Repo, branch: string): Promise<boolean> {
    return this.call(async () => {
      try {
        await this.octokit.rest.git.getRef({ ...this.target(repo), ref: `heads/${branch}` });
        return true;
      } catch (error) {
        if ((error as { status?: unknown }).status === 404) return false;
        throw error;
      }
    });
  }

  pullsForBranch(repo: Repo, branch: string): Promise<PullRef[]> {
    return this.call(async () => {
      const target = this.target(repo);
      // `head` is `owner:branch`: a fork's branch of the same name is another branch.
      const query = { head: `${target.owner}:${branch}`, state: 'all' } as const;
      type Pull = { number: number; state: string; html_url: string };
      const pulls: Pull[] =
        (await this.reads.list<Pull>(`/repos/${target.owner}/${target.repo}/pulls`, { ...query, per_page: '100' })) ??
        (await this.octokit.paginate(this.octokit.rest.pulls.list, { ...target, ...query, per_page: 100 }));
      return pulls.map((pull) => ({ number: pull.number, state: pull.state, url: pull.html_url }));
    });
  }

  /** One GraphQL operation; errors GitHub answers inside a 200 become a ProviderError here, HTTP failures go on to call(). */
  private async graphql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    try {
      return await this.octokit.graphql<T>(query, variables);
    } catch (error) {
      const failure = error as {
        status?: unknown;
        errors?: unknown;
        data?: { errors?: unknown };
        headers?: Record<string, string | undefined>;
        response?: { headers?: Record<string, string | undefined> };
      };
      // GraphqlResponseError carries `errors` (a RATE_LIMITED the request policy gave up on included).
      const errors = Array.isArray(failure.errors)
        ? failure.errors
        : Array.isArray(failure.data?.errors)
          ? failure.data.errors
          : undefined;
      if (typeof failure.status === 'number' || !errors?.length) throw error;
      throw this.graphqlFailure(errors as GraphqlError[], failure.headers ?? failure.response?.headers ?? {});
    }
  }

  /**
   * GraphQL errors arrive with HTTP 200, so the status is chosen from the first error's `type`: FORBIDDEN and
   * INSUFFICIENT_SCOPES → 403 (a token without write scope, as REST answers it), NOT_FOUND → 404,
   * RATE_LIMITED → 403 with the reset time (REST's primary-limit status), UNPROCESSABLE → 422 (the forge
   * refused the input, as REST's 422). Anything else (no type, INTERNAL, a query GitHub cannot parse) is the
   * forge failing to answer usefully: 502.
   */
  private graphqlFailure(errors: GraphqlError[], headers: Record<string, string | undefined>): ProviderError {
    const type = errors[0]!.type;
    const status =
      type === 'FORBIDDEN' || type === 'INSUFFICIENT_SCOPES' || type === 'RATE_LIMITED'
        ? 403
        : type === 'NOT_FOUND'
          ? 404
          : type === 'UNPROCESSABLE'
            ? 422
            : 502;
    let message = errors.map((e) => (e.path?.length ? `${e.message} (${e.path.join('.')})` : e.message)).join('; ');
    const reset = Number(headers['x-ratelimit-reset']);
    if (type === 'RATE_LIMITED' && Number.isFinite(reset) && reset > 0)
      message += ` (rate limit resets at ${new Date(reset * 1000).toISOString()})`;
    return new ProviderError(status, this.scrub(`GitHub request failed (${status}): ${message}`));
  }
}

interface IssueLike {
  number: number;
  title: string;
  state: string;
  user?: { login: string } | null;
  html_url: string;
  created_at: string;
  updated_at: string;
}
const issueSummary = (issue: IssueLike): IssueSummary => ({
  number: issue.number,
  title: issue.title,
  state: issue.state,
  author: issue.user?.login ?? null,
  url: issue.html_url,
  createdAt: issue.created_at,
  updatedAt: issue.updated_at,
});
const pullSummary = (
  pull: IssueLike & { draft?: boolean; base: { ref: string }; head: { ref: string } },
): PullSummary => ({
  ...issueSummary(pull),
  draft: pull.draft ?? false,
  baseBranch: pull.base.ref,
  headBranch: pull.head.ref,
});
const commentOf = (comment: {
  id: number;
  user?: { login: string } | null;
  body?: string;
  html_url: string;
  created_at: string;
}): ForgeComment => ({
  id: comment.id,
  author: comment.user?.login ?? null,
  body: comment.body ?? '',
  url: comment.html_url,
  createdAt: comment.created_at,
});

interface GraphqlError {
  type?: string;
  message: string;
  path?: (string | number)[];
}
interface IssueAndHead {
  repository: {
    id: string;
    issue: { id: string } | null;
    defaultBranchRef: { target: { oid: string } | null } | null;
  } | null;
}
interface CreatedLinkedBranch {
  createLinkedBranch: { linkedBranch: { ref: { name: string } | null } | null } | null;
}
interface LinkedBranchesPage {
  repository: {
    issue: {
      linkedBranches: {
        nodes: ({ ref: { name: string } | null } | null)[] | null;
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      };
    } | null;
  } | null;
}

const ISSUE_AND_HEAD = `query IssueAndHead($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) { id issue(number: $number) { id } defaultBranchRef { target { oid } } }
}`;
const CREATE_LINKED_BRANCH = `mutation CreateLinkedBranch($input: CreateLinkedBranchInput!) {
  createLinkedBranch(input: $input) { linkedBranch { ref { name } } }
}`;
const LINKED_BRANCHES = `query LinkedBranches($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) { linkedBranches(first: 100, after: $cursor) { nodes { ref { name } } pageInfo { hasNextPage endCursor } } }
  }
}`;

/**
 * Whether the forge refused to create the branch: any UNPROCESSABLE (422), whatever its wording ("Name
 * already exists on this repository", "Branch name has already been taken", "Ref cannot be created", or text
 * GitHub has not used yet). The caller then goes on to the spec's lookup (linked branches, then a plain ref),
 * which decides between using the name and 409. Authentication, scope and not-found errors are no refusal:
 * they pass through as they are.
 */
function refusedName(error: ProviderError): boolean {
  return error.status === 422;
}
