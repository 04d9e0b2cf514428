// How the GitHub provider's requests behave under failure and load, as one function every request goes
// through (Octokit's `request` hook, and the sweep's own reads, github-reads.ts): a 5xx or a request that
// got no answer is retried (twice by default, 1 s then 4 s apart); a primary or secondary rate limit (REST
// 403/429, or GraphQL's RATE_LIMITED inside a 200) is waited out once when its reset is near, else the
// forge's answer is left to the caller; writes (any non-GET, GraphQL mutations) go one at a time at least a
// second apart, three for content that notifies people (comments, reviews), as GitHub asks.
// It replaces @octokit/plugin-retry and plugin-throttling, whose Bottleneck limiters cost CPU and latency on
// every request and paced by the wall clock (docs/DECISIONS.md, issue #17; the figures in bench/RESULTS.md).
// Every wait is a monotonic setTimeout, so a wall clock stepped back delays nothing.
import type { Octokit } from '@octokit/rest';

export interface RequestPolicyOptions {
  /** Retries of a 5xx or unanswered request (default 2). */
  retries?: number;
  /** The longest rate-limit wait honoured, in seconds (default 60). */
  maxRateLimitWaitSeconds?: number;
  /** Milliseconds per "second" of every wait: backoff, rate limits, write spacing (default 1000; tests shrink it). */
  secondMs?: number;
  /** Where rate-limit waits are reported (method and URL only). */
  log?: (message: string, fields: Record<string, unknown>) => void;
}

interface Failure {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
}

/** Paths whose writes notify people: GitHub asks for more room between them (templates or expanded). */
const NOTIFYING = /\/(issues|pulls)\/[^/]+\/(comments|reviews)$|\/(issues|pulls)$/;
/** Seconds waited for a secondary limit that names no Retry-After (GitHub's advice: at least a minute). */
const SECONDARY_FALLBACK_SECONDS = 60;

/** Seconds until a rate limit lifts, or null when the answer is no rate limit. */
export function rateLimitWait(
  status: number | undefined,
  headers: Record<string, string | undefined>,
  message: string,
  nowMs = Date.now(),
): { kind: 'primary' | 'secondary'; seconds: number } | null {
  if (status !== 403 && status !== 429) return null;
  const retryAfter = Number(headers['retry-after']);
  if (
    /secondary rate limit/i.test(message) ||
    (headers['retry-after'] !== undefined && headers['x-ratelimit-remaining'] !== '0')
  ) {
    return {
      kind: 'secondary',
      seconds: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : SECONDARY_FALLBACK_SECONDS,
    };
  }
  if (headers['x-ratelimit-remaining'] === '0') {
    const reset = Number(headers['x-ratelimit-reset']) * 1000;
    return {
      kind: 'primary',
      seconds: Number.isFinite(reset) ? Math.max(Math.ceil((reset - nowMs) / 1000) + 1, 0) : SECONDARY_FALLBACK_SECONDS,
    };
  }
  return null;
}

/** A wait on the global timer (monotonic; what a test's fake timers drive). */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const pathOf = (request: PolicyRequest) => new URL(String(request.url ?? '/'), 'http://github.invalid').pathname;

/** What the policy reads of a request: its method, its URL (a template or a path) and a GraphQL query. */
export interface PolicyRequest {
  method?: string;
  url?: string;
  query?: unknown;
}

/** An answer as the policy reads it (GraphQL's rate limit comes inside a 200). */
interface PolicyAnswer {
  data?: unknown;
  headers: object;
}

/** Sends `request` (by `send`) under the policy: retried, waited for, spaced. */
export type RequestPolicy = <T extends PolicyAnswer>(request: PolicyRequest, send: () => Promise<T>) => Promise<T>;

export function requestPolicy(options: RequestPolicyOptions = {}): RequestPolicy {
  const retries = options.retries ?? 2;
  const maxWait = options.maxRateLimitWaitSeconds ?? 60;
  const second = options.secondMs ?? 1000;
  const log = options.log ?? (() => {});
  // Writes, one after the other: each may start once the previous one's spacing has passed (monotonic).
  let writes: Promise<unknown> = Promise.resolve();
  let nextWriteAt = 0;
  const paced = <T>(spacingMs: number, send: () => Promise<T>): Promise<T> => {
    const turn = writes.then(async () => {
      const wait = nextWriteAt - performance.now();
      if (wait > 0) await sleep(wait);
      nextWriteAt = performance.now() + spacingMs;
    });
    writes = turn.catch(() => undefined);
    return turn.then(send);
  };

  return async <T extends PolicyAnswer>(request: PolicyRequest, send: () => Promise<T>): Promise<T> => {
    const method = (request.method ?? 'GET').toUpperCase();
    const path = pathOf(request);
    const graphql = path.endsWith('/graphql');
    const write = graphql ? /^\s*mutation\b/.test(String(request.query ?? '')) : method !== 'GET' && method !== 'HEAD';
    const once = (): Promise<T> => (write ? paced(NOTIFYING.test(path) ? 3 * second : second, send) : send());
    let waitedForLimit = false;
    for (let attempt = 0; ; attempt++) {
      let response: T;
      try {
        response = await once();
      } catch (error) {
        const failure = error as Failure;
        const headers = failure.response?.headers ?? {};
        const body = failure.response?.data as { message?: unknown } | undefined;
        const limit = rateLimitWait(
          failure.status,
          headers,
          typeof body?.message === 'string' ? body.message : (failure.message ?? ''),
        );
        if (limit) {
          const wait = !waitedForLimit && limit.seconds <= maxWait;
          log(`GitHub ${limit.kind} rate limit${wait ? `, retrying after ${limit.seconds} s` : ', giving up'}`, {
            method,
            url: request.url,
            retryAfter: limit.seconds,
          });
          if (!wait) throw error;
          waitedForLimit = true;
          await sleep(limit.seconds * second);
          continue;
        }
        const unanswered = failure.status === undefined || failure.response === undefined;
        if ((unanswered || (failure.status ?? 0) >= 500) && attempt < retries) {
          await sleep((attempt + 1) ** 2 * second);
          continue;
        }
        throw error;
      }
      // GraphQL answers its rate limit inside a 200.
      const errors = graphql ? (response.data as { errors?: Array<{ type?: string }> } | undefined)?.errors : undefined;
      if (errors?.some((e) => e.type === 'RATE_LIMITED')) {
        const headers = response.headers as Record<string, string | undefined>;
        const reset = Number(headers['x-ratelimit-reset']) * 1000;
        const seconds = Number.isFinite(reset)
          ? Math.max(Math.ceil((reset - Date.now()) / 1000) + 1, 0)
          : SECONDARY_FALLBACK_SECONDS;
        const wait = !waitedForLimit && seconds <= maxWait;
        log(`GitHub primary rate limit${wait ? `, retrying after ${seconds} s` : ', giving up'}`, {
          method,
          url: request.url,
          retryAfter: seconds,
        });
        if (wait) {
          waitedForLimit = true;
          await sleep(seconds * second);
          continue;
        }
      }
      return response;
    }
  };
}

/** Every Octokit request of `octokit` under `policy`. */
export function installRequestPolicy(octokit: Octokit, policy: RequestPolicy): void {
  octokit.hook.wrap('request', (request, requestOptions) =>
    policy(requestOptions as PolicyRequest, async () => request(requestOptions)),
  );
}
