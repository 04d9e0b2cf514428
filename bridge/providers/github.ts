// The GitHub provider (DESIGN §8) on @octokit/rest: every list through octokit.paginate (all pages, no
// 100-item cap), 5xx retried by plugin-retry, primary and secondary rate limits waited out by
// plugin-throttling with the reset time GitHub sends, but only while the wait is short and only once; a
// longer or repeated limit is surfaced as the forge's own status with the reset time in the message.
// The token lives only in the Octokit instance: every message this module produces is scrubbed of it and
// of URL credentials. It owns the clone URL → owner/name mapping; it does not choose which repos it serves.
import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { redactUrlCredentials, type Repo } from '../../protocol/index.js';
import {
  ProviderError,
  type CheckRun,
  type CheckTarget,
  type FailedJobLog,
  type ForgeComment,
  type ForgeProvider,
  type ForgeReview,
  type IssueState,
  type IssueSummary,
  type IssueView,
  type PullSummary,
  type PullView,
  type RepoInfo,
  type ReviewEvent,
} from './forge-provider.js';

const GitHubOctokit = Octokit.plugin(retry, throttling);
type Client = InstanceType<typeof GitHubOctokit>;

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';
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
    if (!['https:', 'http:', 'ssh:', 'git:'].includes(parsed.protocol) || !parsed.hostname || parsed.search || parsed.hash) return null;
    path = parsed.pathname.replace(/^\//, '');
  }
  if (path === undefined) return null;
  const parts = path.replace(/\/$/, '').split('/');
  if (parts.length !== 2) return null;
  const owner = parts[0]!;
  const name = parts[1]!.replace(/\.git$/, '');
  if (!segment.test(owner) || !segment.test(name) || name === '.' || name === '..' || owner === '.' || owner === '..') return null;
  return { owner, name };
}

export class GitHubProvider implements ForgeProvider {
  private readonly octokit: Client;
  private readonly token: string | undefined;

  constructor(options: GitHubProviderOptions = {}) {
    this.token = options.token || undefined;
    const maxWait = options.maxRateLimitWaitSeconds ?? 60;
    const base = options.retryAfterBaseValueMs ?? 1000;
    const log = options.log ?? (() => {});
    // Wait once for a limit whose reset is near; past that the caller gets the forge's answer.
    const onLimit = (kind: string) => (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
      const wait = retryCount < 1 && retryAfter <= maxWait;
      log(`GitHub ${kind} rate limit${wait ? `, retrying after ${retryAfter} s` : ', giving up'}`, { method: request.method, url: request.url, retryAfter });
      return wait;
    };
    this.octokit = new GitHubOctokit({
      auth: this.token,
      baseUrl: (options.baseUrl || DEFAULT_GITHUB_API_URL).replace(/\/+$/, ''),
      userAgent: 'svc-bridge',
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      retry: { retries: options.retries ?? 2, retryAfterBaseValue: base },
      throttle: { onRateLimit: onLimit('primary'), onSecondaryRateLimit: onLimit('secondary'), retryAfterBaseValue: base },
      request: { redirect: 'follow' },
    });
  }

  private target(repo: Repo): { owner: string; repo: string } {
    const path = githubRepoPath(repo.url);
    if (!path) throw new ProviderError(400, `repo "${repo.name}" is not a GitHub repository: ${redactUrlCredentials(repo.url)}`);
    return { owner: path.owner, repo: path.name };
  }

  private scrub(text: string): string {
    const redacted = redactUrlCredentials(text);
    return this.token ? redacted.split(this.token).join('[redacted]') : redacted;
  }

  /** Runs one forge operation; every failure becomes a ProviderError with the forge's status. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      const failure = error as { status?: number; message?: string; cause?: unknown; response?: { data?: unknown; headers?: Record<string, string | undefined> } };
      // No answer at all (Octokit reports a failed fetch as a 500 without a response).
      if (!failure.response) {
        const cause = failure.cause as { cause?: { message?: string }; message?: string } | undefined;
        throw new ProviderError(502, this.scrub(`GitHub request failed (no answer): ${cause?.cause?.message ?? cause?.message ?? failure.message ?? 'unknown error'}`));
      }
      const status = typeof failure.status === 'number' && failure.status >= 400 ? failure.status : 502;
      const data = failure.response?.data as { message?: unknown } | undefined;
      let message = typeof data?.message === 'string' ? data.message : failure.message || 'no answer';
      const headers = failure.response?.headers ?? {};
      if ((status === 403 || status === 429) && (headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined)) {
        const reset = Number(headers['x-ratelimit-reset']);
        const retryAfter = Number(headers['retry-after']);
        if (Number.isFinite(reset) && reset > 0) message += ` (rate limit resets at ${new Date(reset * 1000).toISOString()})`;
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
      const issues = await this.octokit.paginate(this.octokit.rest.issues.listForRepo, { ...target, state, per_page: 100 });
      return issues.filter((issue) => !issue.pull_request).map(issueSummary);
    });
  }

  viewIssue(repo: Repo, number: number): Promise<IssueView> {
    return this.call(async () => {
      const target = this.target(repo);
      const { data } = await this.octokit.rest.issues.get({ ...target, issue_number: number });
      const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, { ...target, issue_number: number, per_page: 100 });
      return { ...issueSummary(data), body: data.body ?? null, comments: comments.map(commentOf) };
    });
  }

  commentIssue(repo: Repo, number: number, body: string): Promise<ForgeComment> {
    return this.call(async () => commentOf((await this.octokit.rest.issues.createComment({ ...this.target(repo), issue_number: number, body })).data));
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
      const { data } = await this.octokit.rest.pulls.createReview({ ...target, pull_number: number, event, ...(body === undefined ? {} : { body }) });
      return { id: data.id, state: data.state, author: data.user?.login ?? null, body: data.body || null, url: data.html_url };
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
      if (!/^[0-9a-f]{40}$/i.test(headSha)) headSha = (await this.octokit.rest.repos.getCommit({ ...target, ref: headSha })).data.sha;
      const runs = await this.octokit.paginate(this.octokit.rest.actions.listWorkflowRunsForRepo, { ...target, head_sha: headSha, per_page: 100 });
      const failed: FailedJobLog[] = [];
      for (const run of runs) {
        const jobs = await this.octokit.paginate(this.octokit.rest.actions.listJobsForWorkflowRun, { ...target, run_id: run.id, filter: 'latest', per_page: 100 });
        for (const job of jobs) {
          if (job.conclusion !== 'failure' && job.conclusion !== 'timed_out') continue;
          const { data } = await this.octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...target, job_id: job.id });
          const text = typeof data === 'string' ? data : data instanceof ArrayBuffer ? new TextDecoder().decode(data) : String(data ?? '');
          failed.push({ workflow: run.name ?? String(run.workflow_id), job: job.name, jobId: job.id, log: text.length > JOB_LOG_MAX_CHARS ? text.slice(-JOB_LOG_MAX_CHARS) : text });
        }
      }
      return failed;
    });
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
const pullSummary = (pull: IssueLike & { draft?: boolean; base: { ref: string }; head: { ref: string } }): PullSummary => ({
  ...issueSummary(pull),
  draft: pull.draft ?? false,
  baseBranch: pull.base.ref,
  headBranch: pull.head.ref,
});
const commentOf = (comment: { id: number; user?: { login: string } | null; body?: string; html_url: string; created_at: string }): ForgeComment => ({
  id: comment.id,
  author: comment.user?.login ?? null,
  body: comment.body ?? '',
  url: comment.html_url,
  createdAt: comment.created_at,
});
