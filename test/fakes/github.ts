// A fake GitHub REST API for the forge tests: a local HTTP server implementing exactly the calls the GitHub
// provider (bridge/providers/github.ts) makes, over state the tests set up (one repo's issues, pull
// requests, comments, reviews, check runs, Actions runs with jobs and logs, branches, issues' linked
// branches). Lists paginate as GitHub does (per_page capped at 100, `page`, Link headers with next/last),
// job logs answer with a 302 to the log as GitHub does, and the error modes are queued per request: 401
// without the token, 403 without a scope, 404 for anything unknown, injected 5xx, and primary and
// secondary rate limits with their headers. POST /graphql (linked branches) lives in github-graphql.ts.
// Branches live in `branches`, or, when `backingRepo` names a bare repository, in that repository, so a
// branch the fake creates can really be cloned.
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerGraphql, type GraphqlInjected } from './github-graphql.js';

export interface FakeUser {
  login: string;
}
export interface FakeIssue {
  number: number;
  title: string;
  state: 'open' | 'closed';
  body: string | null;
  user: string;
  createdAt: string;
  updatedAt: string;
}
export interface FakePull extends FakeIssue {
  /** What `html_url` says instead of the github.example page (hostile-link tests). */ htmlUrl?: string;
  draft: boolean;
  base: string;
  head: string /** The head branch's owner (a fork's login); default the repo's owner. */;
  headOwner?: string;
  headSha: string;
  merged: boolean;
  mergeable: boolean | null;
  additions: number;
  deletions: number;
  changedFiles: number;
}
export interface FakeComment {
  id: number;
  user: string;
  body: string;
  createdAt: string;
}
export interface FakeReview {
  id: number;
  user: string;
  body: string;
  state: string;
}
export interface FakeCheckRun {
  name: string;
  status: string;
  conclusion: string | null;
  startedAt: string | null;
  completedAt: string | null;
}
export interface FakeJob {
  id: number;
  name: string;
  conclusion: string | null;
  log: string;
}
export interface FakeRun {
  id: number;
  name: string;
  workflowId: number;
  headSha: string;
  jobs: FakeJob[];
}
export interface Injected {
  status: number;
  message: string;
  headers?: Record<string, string> /** Only requests whose path contains this. */;
  pathIncludes?: string;
}
export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown /** For POST /graphql: IssueAndHead, LinkedBranches or CreateLinkedBranch. */;
  operation?: string /** performance.now() when the request arrived. */;
  at: number;
}

/** The default branch's head when nothing else sets it (also the `base.sha` of every pull request). */
export const DEFAULT_HEAD_SHA = 'b'.repeat(40);

const REVIEW_STATES: Record<string, string> = {
  APPROVE: 'APPROVED',
  REQUEST_CHANGES: 'CHANGES_REQUESTED',
  COMMENT: 'COMMENTED',
};

export class FakeGitHub {
  owner = 'acme';
  repo = 'widget';
  description: string | null = 'A widget';
  private = false;
  defaultBranch = 'main';
  stars = 7;
  /** When set, requests must carry it (`token …` or `Bearer …`), else 401. */
  token: string | undefined;
  /** The token's scopes: writes need `repo` (else 403 as GitHub answers a fine-grained token without it). */
  scopes = new Set(['repo']);
  /** The login writes are attributed to. */
  login = 'svc-bot';
  issues: FakeIssue[] = [];
  pulls: FakePull[] = [];
  comments = new Map<number, FakeComment[]>();
  reviews = new Map<number, FakeReview[]>();
  checkRuns = new Map<string, FakeCheckRun[]>();
  /** Branch name → head sha (ignored when `backingRepo` is set). Without the default branch the repo is empty. */
  branches = new Map<string, string>([['main', DEFAULT_HEAD_SHA]]);
  /** Issue number → the names of its linked development branches, in link order. */
  linkedBranches = new Map<number, string[]>();
  /** A bare repository holding the branches instead of `branches` (default branch `defaultBranch`). */
  backingRepo: string | undefined;
  runs: FakeRun[] = [];
  /** Answers for the next requests, in order (each used once). */
  injected: Injected[] = [];
  /** GraphQL errors (HTTP 200) for the next GraphQL operations of their kind, in order (each used once). */
  graphqlInjected: GraphqlInjected[] = [];
  requests: SeenRequest[] = [];
  private nextId = 1000;
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  get fullName() {
    return `${this.owner}/${this.repo}`;
  }
  private html(path: string) {
    return `https://github.example/${this.fullName}${path}`;
  }

  addIssue(fields: Partial<FakeIssue> & { title: string }): FakeIssue {
    const issue: FakeIssue = {
      number: this.issues.length + this.pulls.length + 1,
      state: 'open',
      body: null,
      user: 'alice',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-02T00:00:00Z',
      ...fields,
    };
    this.issues.push(issue);
    return issue;
  }

  addPull(fields: Partial<FakePull> & { title: string; head: string }): FakePull {
    const pull: FakePull = {
      number: this.issues.length + this.pulls.length + 1,
      state: 'open',
      body: null,
      user: 'bob',
      createdAt: '2026-01-03T00:00:00Z',
      updatedAt: '2026-01-04T00:00:00Z',
      draft: false,
      base: 'main',
      headSha: 'a'.repeat(40),
      merged: false,
      mergeable: true,
      additions: 10,
      deletions: 2,
      changedFiles: 3,
      ...fields,
    };
    this.pulls.push(pull);
    return pull;
  }

  /** GraphQL node ids, opaque as GitHub's. */
  get repoNodeId() {
    return `R_kgDO${Buffer.from(this.fullName).toString('base64url')}`;
  }
  issueNodeId(number: number) {
    return `I_kwDO${Buffer.from(`${this.fullName}#${number}`).toString('base64url')}`;
  }

  private git(...args: string[]): string {
    return execFileSync('git', ['--git-dir', this.backingRepo!, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  }
  /** The head sha of branch `name`, or undefined. */
  resolveRef(name: string): string | undefined {
    if (this.backingRepo === undefined) return this.branches.get(name);
    try {
      return this.git('rev-parse', '--verify', '--quiet', `refs/heads/${name}^{commit}`);
    } catch {
      return undefined;
    }
  }
  hasCommit(sha: string): boolean {
    if (this.backingRepo === undefined)
      return [...this.branches.values(), ...this.pulls.map((p) => p.headSha)].includes(sha);
    try {
      this.git('cat-file', '-e', `${sha}^{commit}`);
      return true;
    } catch {
      return false;
    }
  }
  /** Creates branch `name` at `sha`; false when the name is taken or not a valid branch name. */
  createBranch(name: string, sha: string): boolean {
    if (this.resolveRef(name) !== undefined) return false;
    if (this.backingRepo === undefined) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: git refuses C0, space and DEL in ref names
      if (!/^(?!\/|.*(?:\.\.|\/\/|@\{|\.lock(?:\/|$)|\/$|\.$))[^\x00-\x20\x7f~^:?*[\\]+$/.test(name)) return false;
      this.branches.set(name, sha);
      return true;
    }
    try {
      this.git('update-ref', `refs/heads/${name}`, sha, ''); // empty old value: only if the ref does not exist yet
      return true;
    } catch {
      return false;
    }
  }

  /** Rate limits as GitHub sends them. */
  primaryRateLimit(resetInSeconds: number, pathIncludes?: string): Injected {
    const reset = Math.floor(Date.now() / 1000) + resetInSeconds;
    return {
      status: 403,
      message: 'API rate limit exceeded for user ID 1.',
      pathIncludes,
      headers: {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-used': '5000',
        'x-ratelimit-reset': String(reset),
      },
    };
  }
  secondaryRateLimit(retryAfterSeconds: number, pathIncludes?: string): Injected {
    return {
      status: 403,
      message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      pathIncludes,
      headers: { 'retry-after': String(retryAfterSeconds) },
    };
  }
  /** GraphQL's primary limit: HTTP 200, an error typed RATE_LIMITED, the rate-limit headers. */
  graphqlRateLimit(resetInSeconds: number, operation?: 'query' | 'mutation'): GraphqlInjected {
    const reset = Math.floor(Date.now() / 1000) + resetInSeconds;
    return {
      type: 'RATE_LIMITED',
      message: 'API rate limit already exceeded for user ID 1.',
      operation,
      headers: {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-used': '5000',
        'x-ratelimit-reset': String(reset),
        'x-ratelimit-resource': 'graphql',
      },
    };
  }

  private send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    response.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'x-github-media-type': 'github.v3',
      ...headers,
    });
    response.end(JSON.stringify(body));
  }
  private error(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
    this.send(
      response,
      status,
      { message, documentation_url: 'https://docs.github.com/rest', status: String(status) },
      headers,
    );
  }

  /** One page of `items` with GitHub's Link header. */
  private page<T>(response: ServerResponse, url: URL, items: T[], wrap?: (page: T[]) => unknown) {
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30) || 30));
    const pageNumber = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const slice = items.slice((pageNumber - 1) * perPage, pageNumber * perPage);
    const link = (n: number, rel: string) => {
      const target = new URL(url.pathname + url.search, this.url);
      target.searchParams.set('page', String(n));
      target.searchParams.set('per_page', String(perPage));
      return `<${target.href}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (pageNumber > 1) links.push(link(pageNumber - 1, 'prev'), link(1, 'first'));
    if (pageNumber < last) links.push(link(pageNumber + 1, 'next'), link(last, 'last'));
    this.send(response, 200, wrap ? wrap(slice) : slice, links.length ? { link: links.join(', ') } : {});
  }

  private issueJson(issue: FakeIssue, pull?: FakePull) {
    return {
      id: issue.number * 10,
      node_id: this.issueNodeId(issue.number),
      number: issue.number,
      title: issue.title,
      state: issue.state,
      body: issue.body,
      user: { login: issue.user },
      html_url: this.html(`/${pull ? 'pull' : 'issues'}/${issue.number}`),
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      ...(pull ? { pull_request: { url: `${this.url}/repos/${this.fullName}/pulls/${issue.number}` } } : {}),
    };
  }
  private pullJson(pull: FakePull, full: boolean) {
    return {
      ...this.issueJson(pull),
      html_url: pull.htmlUrl ?? this.html(`/pull/${pull.number}`),
      draft: pull.draft,
      base: { ref: pull.base, sha: 'b'.repeat(40) },
      head: { ref: pull.head, sha: pull.headSha },
      ...(full
        ? {
            merged: pull.merged,
            mergeable: pull.mergeable,
            additions: pull.additions,
            deletions: pull.deletions,
            changed_files: pull.changedFiles,
          }
        : {}),
    };
  }
  private commentJson(number: number, comment: FakeComment) {
    return {
      id: comment.id,
      user: { login: comment.user },
      body: comment.body,
      html_url: this.html(`/issues/${number}#issuecomment-${comment.id}`),
      created_at: comment.createdAt,
    };
  }

  private async handle(request: IncomingMessage, response: ServerResponse) {
    const at = performance.now();
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    const url = new URL(request.url ?? '/', this.url);
    const method = request.method ?? 'GET';
    const seen: SeenRequest = {
      method,
      path: url.pathname + url.search,
      authorization: request.headers.authorization,
      body,
      at,
    };
    this.requests.push(seen);

    // Log downloads: a pre-signed URL, no token needed (as GitHub's redirect target).
    const log = /^\/_logs\/(\d+)$/.exec(url.pathname);
    if (log) {
      const job = this.runs.flatMap((r) => r.jobs).find((j) => j.id === Number(log[1]));
      if (!job) return this.error(response, 404, 'Not Found');
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      return response.end(job.log);
    }

    const index = this.injected.findIndex((i) => i.pathIncludes === undefined || url.pathname.includes(i.pathIncludes));
    if (index >= 0) {
      const [injected] = this.injected.splice(index, 1);
      return this.error(response, injected!.status, injected!.message, injected!.headers);
    }
    // GraphQL has no anonymous access, whatever the REST side allows.
    if (url.pathname === '/graphql' && !request.headers.authorization)
      return this.error(response, 401, 'This endpoint requires you to be authenticated.');
    if (this.token !== undefined) {
      const auth = request.headers.authorization ?? '';
      if (auth !== `token ${this.token}` && auth !== `Bearer ${this.token}`)
        return this.error(response, 401, 'Bad credentials');
    }
    if (url.pathname === '/graphql' && method === 'POST') {
      const answer = answerGraphql(this, body);
      seen.operation = answer.operation;
      return this.send(response, answer.status, answer.body, answer.headers);
    }
    const prefix = `/repos/${this.owner}/${this.repo}`;
    if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`))
      return this.error(response, 404, 'Not Found');
    const rest = url.pathname.slice(prefix.length);
    if (method === 'POST' && !this.scopes.has('repo'))
      return this.error(response, 403, 'Resource not accessible by personal access token');
    let m: RegExpExecArray | null;

    if (method === 'GET' && rest === '') {
      return this.send(response, 200, {
        id: 1,
        name: this.repo,
        full_name: this.fullName,
        description: this.description,
        html_url: this.html(''),
        default_branch: this.defaultBranch,
        private: this.private,
        stargazers_count: this.stars,
        open_issues_count:
          this.issues.filter((i) => i.state === 'open').length + this.pulls.filter((p) => p.state === 'open').length,
      });
    }
    const stateFilter = <T extends { state: string }>(items: T[]) => {
      const state = url.searchParams.get('state') ?? 'open';
      return state === 'all' ? items : items.filter((i) => i.state === state);
    };
    if (method === 'GET' && rest === '/issues') {
      const all = [...this.issues.map((i) => this.issueJson(i)), ...this.pulls.map((p) => this.issueJson(p, p))].sort(
        (a, b) => b.number - a.number,
      );
      return this.page(response, url, stateFilter(all));
    }
    m = /^\/issues\/(\d+)$/.exec(rest);
    if (m && method === 'GET') {
      const n = Number(m[1]);
      const issue = this.issues.find((i) => i.number === n);
      const pull = this.pulls.find((p) => p.number === n);
      if (!issue && !pull) return this.error(response, 404, 'Not Found');
      return this.send(response, 200, issue ? this.issueJson(issue) : this.issueJson(pull!, pull));
    }
    m = /^\/issues\/(\d+)\/comments$/.exec(rest);
    if (m) {
      const n = Number(m[1]);
      if (!this.issues.some((i) => i.number === n) && !this.pulls.some((p) => p.number === n))
        return this.error(response, 404, 'Not Found');
      const list = this.comments.get(n) ?? [];
      if (method === 'GET')
        return this.page(
          response,
          url,
          list.map((c) => this.commentJson(n, c)),
        );
      if (method === 'POST') {
        if (typeof body?.body !== 'string' || body.body === '') return this.error(response, 422, 'Validation Failed');
        const comment: FakeComment = {
          id: this.nextId++,
          user: this.login,
          body: body.body,
          createdAt: '2026-02-01T00:00:00Z',
        };
        this.comments.set(n, [...list, comment]);
        return this.send(response, 201, this.commentJson(n, comment));
      }
    }
    if (method === 'GET' && rest === '/pulls') {
      let pulls = [...this.pulls].sort((a, b) => b.number - a.number);
      const head = url.searchParams.get('head');
      if (head !== null) {
        // `user:ref-name` (or `organization:ref-name`), as GitHub documents the filter.
        const colon = head.indexOf(':');
        if (colon < 1) return this.error(response, 422, 'Validation Failed: head must be user:ref-name');
        const [owner, branch] = [head.slice(0, colon), head.slice(colon + 1)];
        pulls = pulls.filter((p) => (p.headOwner ?? this.owner) === owner && p.head === branch);
      }
      return this.page(
        response,
        url,
        stateFilter(pulls).map((p) => this.pullJson(p, false)),
      );
    }
    m = /^\/git\/ref\/(.+)$/.exec(rest);
    if (m && method === 'GET') {
      const ref = decodeURIComponent(m[1]!);
      const sha = ref.startsWith('heads/') ? this.resolveRef(ref.slice('heads/'.length)) : undefined;
      if (!sha) return this.error(response, 404, 'Not Found');
      const api = `${this.url}${prefix}/git`;
      return this.send(response, 200, {
        ref: `refs/${ref}`,
        node_id: `REF_${Buffer.from(ref).toString('base64url')}`,
        url: `${api}/refs/${ref}`,
        object: { sha, type: 'commit', url: `${api}/commits/${sha}` },
      });
    }
    m = /^\/pulls\/(\d+)$/.exec(rest);
    if (m && method === 'GET') {
      const pull = this.pulls.find((p) => p.number === Number(m![1]));
      if (!pull) return this.error(response, 404, 'Not Found');
      return this.send(response, 200, this.pullJson(pull, true));
    }
    m = /^\/pulls\/(\d+)\/reviews$/.exec(rest);
    if (m && method === 'POST') {
      const n = Number(m[1]);
      if (!this.pulls.some((p) => p.number === n)) return this.error(response, 404, 'Not Found');
      const state = REVIEW_STATES[String(body?.event)];
      if (!state) return this.error(response, 422, 'Unprocessable Entity');
      if (body?.event !== 'APPROVE' && !body?.body)
        return this.error(response, 422, 'Unprocessable Entity: "Review Comment" body is required');
      const review: FakeReview = {
        id: this.nextId++,
        user: this.login,
        body: typeof body?.body === 'string' ? body.body : '',
        state,
      };
      this.reviews.set(n, [...(this.reviews.get(n) ?? []), review]);
      return this.send(response, 200, {
        id: review.id,
        user: { login: review.user },
        body: review.body,
        state,
        html_url: this.html(`/pull/${n}#pullrequestreview-${review.id}`),
      });
    }
    m = /^\/commits\/([^/]+)\/check-runs$/.exec(rest);
    if (m && method === 'GET') {
      const ref = decodeURIComponent(m[1]!);
      const runs = this.checkRuns.get(this.resolveRef(ref) ?? ref) ?? [];
      return this.page(
        response,
        url,
        runs.map((r, i) => ({
          id: i + 1,
          name: r.name,
          status: r.status,
          conclusion: r.conclusion,
          details_url: this.html(`/runs/${i + 1}`),
          started_at: r.startedAt,
          completed_at: r.completedAt,
        })),
        (page) => ({ total_count: runs.length, check_runs: page }),
      );
    }
    m = /^\/commits\/([^/]+)$/.exec(rest);
    if (m && method === 'GET') {
      const ref = decodeURIComponent(m[1]!);
      const sha = this.resolveRef(ref) ?? (/^[0-9a-f]{40}$/.test(ref) ? ref : undefined);
      if (!sha) return this.error(response, 422, `No commit found for SHA: ${ref}`);
      return this.send(response, 200, { sha });
    }
    if (method === 'GET' && rest === '/actions/runs') {
      const headSha = url.searchParams.get('head_sha');
      const runs = this.runs.filter((r) => headSha === null || r.headSha === headSha);
      return this.page(
        response,
        url,
        runs.map((r) => ({ id: r.id, name: r.name, workflow_id: r.workflowId, head_sha: r.headSha })),
        (page) => ({ total_count: runs.length, workflow_runs: page }),
      );
    }
    m = /^\/actions\/runs\/(\d+)\/jobs$/.exec(rest);
    if (m && method === 'GET') {
      const run = this.runs.find((r) => r.id === Number(m![1]));
      if (!run) return this.error(response, 404, 'Not Found');
      return this.page(
        response,
        url,
        run.jobs.map((j) => ({
          id: j.id,
          run_id: run.id,
          name: j.name,
          status: 'completed',
          conclusion: j.conclusion,
        })),
        (page) => ({ total_count: run.jobs.length, jobs: page }),
      );
    }
    m = /^\/actions\/jobs\/(\d+)\/logs$/.exec(rest);
    if (m && method === 'GET') {
      if (!this.runs.some((r) => r.jobs.some((j) => j.id === Number(m![1]))))
        return this.error(response, 404, 'Not Found');
      response.writeHead(302, { location: `${this.url}/_logs/${m[1]}` });
      return response.end();
    }
    return this.error(response, 404, 'Not Found');
  }
}
