// The two reads a sweep makes for each record (a branch's pull requests, an issue) sent straight on the
// provider's transport, without Octokit's request pipeline: its endpoint templates merged and parsed twice a
// page, its hook chain, a BigInt-aware JSON parse and a Response per answer cost more than half of such a
// call's CPU, and a sweep makes 450–800 of them a pass (bench sweep, issue #17).
// They behave as Octokit's: the same request policy wraps each request (retries, rate limits); the same URL
// and query (one encoding, one order); every page followed by its Link `rel="next"`, a 409 ending the list
// as octokit.paginate does; failures shaped as Octokit's RequestError where the provider and the policy read
// one (`status`, `response.headers`, `response.data`, the transport's error as `cause`), so the provider
// maps them exactly as it maps Octokit's. A redirect (a renamed repository) answers null, and the caller
// asks Octokit, which follows it.
import type { IncomingHttpHeaders } from 'node:http';
import type { Answer, GitHubTransport } from './github-fetch.js';
import type { RequestPolicy } from './github-request-policy.js';
import { messageOf } from '../../protocol/index.js';

/** A read that failed: the forge's answer (status ≥ 400), or none at all (status 500 and no response, as Octokit says it). */
export class ReadFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly response?: { headers: IncomingHttpHeaders; data: unknown },
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'HttpError';
  }
}

interface Page {
  status: number;
  headers: IncomingHttpHeaders;
  data: unknown;
}

export class GitHubReads {
  constructor(
    private readonly transport: GitHubTransport,
    private readonly policy: RequestPolicy,
    private readonly baseUrl: string,
    /** What Octokit sends with every request: accept, user-agent, authorization. */
    private readonly headers: Record<string, string>,
  ) {}

  /** One object, or null when the forge redirects. */
  async get<T>(path: string, query: Record<string, string> = {}): Promise<T | null> {
    const page = await this.page(this.url(path, query));
    return page ? (page.data as T) : null;
  }

  /** Every item of a paginated list, or null when the forge redirects. */
  async list<T>(path: string, query: Record<string, string>): Promise<T[] | null> {
    const items: T[] = [];
    for (let url: string | undefined = this.url(path, query); url; ) {
      let page: Page | null;
      try {
        page = await this.page(url);
      } catch (error) {
        // octokit.paginate reads a 409 (an empty repository) as the end of the list.
        if (error instanceof ReadFailure && error.status === 409) return items;
        throw error;
      }
      if (!page) return null;
      items.push(...(page.data as T[]));
      url = /<([^<>]+)>;\s*rel="next"/.exec(String(page.headers.link ?? ''))?.[1];
    }
    return items;
  }

  /** Octokit's URL for a GET: the base, the path, the query in the order given, each value URI-encoded. */
  private url(path: string, query: Record<string, string>): string {
    const search = Object.entries(query)
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
      .join('&');
    return `${this.baseUrl}${path}${search ? `?${search}` : ''}`;
  }

  private async page(url: string): Promise<Page | null> {
    const target = new URL(url);
    const page = await this.policy({ method: 'GET', url: target.pathname }, async () => {
      let answer: Answer;
      try {
        answer = await this.transport.read(target, 'GET', this.headers);
      } catch (error) {
        throw new ReadFailure(messageOf(error), 500, undefined, { cause: error });
      }
      const data = dataOf(answer.headers, answer.body);
      if (answer.status >= 400)
        throw new ReadFailure(errorMessage(data), answer.status, { headers: answer.headers, data });
      return { status: answer.status, headers: answer.headers, data };
    });
    return page.status >= 300 ? null : page;
  }
}

/** The body as Octokit reads it: JSON when the answer says so (the text if it does not parse), else the text. */
function dataOf(headers: IncomingHttpHeaders, body: Buffer): unknown {
  const text = body.toString('utf8');
  if (!/^application\/(scim\+)?json\s*(;|$)/i.test(headers['content-type']?.trim() ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A failed answer's message, as Octokit's RequestError words it. */
function errorMessage(data: unknown): string {
  if (typeof data === 'string') return data;
  if (typeof data === 'object' && data !== null && 'message' in data) {
    const {
      message,
      documentation_url: docs,
      errors,
    } = data as { message: unknown; documentation_url?: unknown; errors?: unknown };
    const suffix = docs !== undefined ? ` - ${String(docs)}` : '';
    return Array.isArray(errors)
      ? `${String(message)}: ${errors.map((e) => JSON.stringify(e)).join(', ')}${suffix}`
      : `${String(message)}${suffix}`;
  }
  return `Unknown error: ${JSON.stringify(data)}`;
}
