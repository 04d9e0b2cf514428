// The one HTTP client of svc's own servers (the bridge, or one ship), shared by the CLI and the operator: JSON in,
// JSON or text out; the bearer token a `Credential` gives, renewed at most once when it draws a 401; a deadline
// per call; no redirect ever followed (docs/security.md H8); each exchange reported to `observe` (metrics); and
// every failure one `RequestFailed` (server/request-failed.ts), classified here by kind, worded by the caller's
// `describe` (default: the CLI's `request failed (<status>): <detail>` and `cannot reach <url> (<reason>)`).
// Not here: what a caller's routes answer (schemas), how a session is obtained (the caller's Credential), or what
// a failure means to the caller.
//
// Transport: node:http(s), one connection per call (`agent: false`), not `fetch`, and the modules come from
// `process.getBuiltinModule` at the call, not an `import` (docs/DECISIONS.md, "How does the CLI make HTTP
// calls?": `fetch` costs the CLI's start-up, and an ESM import of node:http loads undici anyway).
import type { IncomingMessage } from 'node:http';
import { type FailedCall, RequestFailed, type RequestFailureKind } from './request-failed.js';

/** Where a call's bearer token comes from. */
export interface Credential {
  /** The token to present (null: none, as against a server without authentication). */
  token(): Promise<string | null>;
  /**
   * Called at most once per call, when `rejected` drew a 401: a fresh token to send the call again with, or
   * undefined when this credential cannot be renewed (the 401 then fails the call).
   */
  renew?(rejected: string | null): Promise<string | null | undefined>;
}

/** No credential (an insecure bridge, the login and mode calls). */
export const ANONYMOUS: Credential = { token: async () => null };

/** Exactly this token, never renewed. */
export const fixedToken = (token: string | null): Credential => ({ token: async () => token });

export interface SvcCall {
  method: string;
  /** Appended to the client's URL (query included). */
  path: string;
  /** The route pattern (`/ships/:name`), never a name: the bounded label `observe` and `describe` see. */
  route?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** The answer as text (a diff), not parsed JSON. */
  text?: boolean;
  /** Overrides the client's credential for this call. */
  credential?: Credential;
  /** Overrides the client's deadline for this call (ms, the whole exchange up to the last byte of the answer). */
  timeoutMs?: number;
  /** 5xx statuses that are the route's own verdict when the body carries `{error}` (POST /ships's 502). */
  verdicts?: readonly number[];
  /** Overrides the client's wording of a failure of this call. */
  describe?: (failure: FailedCall) => string;
}

/** One exchange, for metrics: status 0 when nothing answered. */
export interface ObservedCall {
  method: string;
  route: string;
  status: number;
  durationMs: number;
}

export interface SvcClientOptions {
  /** The server's base URL (a trailing slash is dropped). */
  url: string;
  /** Default: ANONYMOUS. */
  credential?: Credential;
  /** Deadline of one call (default: none; a CLI call waits as long as the server takes). */
  timeoutMs?: number;
  /** Said after `cannot reach <url> (<reason>)` by the default wording (how to start the server). */
  unreachableHint?: string;
  /** The wording of a failure (default: defaultFailureMessage). */
  describe?: (failure: FailedCall) => string;
  /** Longest `detail` kept from an answer (default: all of it). */
  detailLimit?: number;
  observe?: (call: ObservedCall) => void;
}

interface Answer {
  status: number;
  location?: string;
  text: string;
}

type Exchange = { answered: true; answer: Answer } | { answered: false; error: unknown; timedOut: boolean };

/** `request failed (<status>): <detail>`, or `cannot reach <url> (<reason>)` and the hint, when nothing answered. */
function defaultFailureMessage(failure: FailedCall, unreachableHint?: string): string {
  if (failure.status === undefined)
    return `cannot reach ${failure.url} (${failure.reason})${unreachableHint ? `: ${unreachableHint}` : ''}`;
  return `request failed (${failure.status}): ${failure.detail}`;
}

export class SvcClient {
  readonly url: string;

  constructor(private readonly options: SvcClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
  }

  /** The call's answer (parsed JSON, null for an empty body; or text), or a RequestFailed. */
  async request<T>(call: SvcCall): Promise<T> {
    const credential = call.credential ?? this.options.credential ?? ANONYMOUS;
    const token = await credential.token();
    let answer = await this.send(call, token);
    if (answer.status === 401 && credential.renew) {
      const fresh = await credential.renew(token);
      if (fresh !== undefined) answer = await this.send(call, fresh);
    }
    return this.judge<T>(call, answer);
  }

  /** The answer of a 2xx, else the RequestFailed its status and body call for. */
  private judge<T>(call: SvcCall, answer: Answer): T {
    const { status, text } = answer;
    if (status >= 200 && status < 300) {
      if (call.text) return text as T;
      try {
        return (text ? JSON.parse(text) : null) as T;
      } catch (error) {
        throw this.failure(call, { kind: 'unavailable', status, detail: 'the answer is not JSON' }, error);
      }
    }
    if (status >= 300 && status < 400) {
      const detail = `redirected to ${answer.location ?? 'another URL'}, which svc does not follow`;
      throw this.failure(call, { kind: 'unavailable', status, detail });
    }
    const { detail, serverError } = this.detailOf(status, text);
    throw this.failure(call, { kind: kindOf(status, serverError, call.verdicts), status, detail });
  }

  /** The server's `{error}`, else `{message}`, else its text, else `HTTP <status>`; and whether it was `{error}`. */
  private detailOf(status: number, text: string): { detail: string; serverError: boolean } {
    let detail = `HTTP ${status}`;
    let serverError = false;
    try {
      const parsed = JSON.parse(text) as { error?: unknown; message?: unknown } | null;
      if (typeof parsed?.error === 'string') {
        detail = parsed.error;
        serverError = true;
      } else if (typeof parsed?.message === 'string') detail = parsed.message;
    } catch {
      if (text.trim()) detail = text.trim().slice(0, 200);
    }
    const limit = this.options.detailLimit;
    return { detail: limit === undefined ? detail : detail.slice(0, limit), serverError };
  }

  private failure(
    call: SvcCall,
    facts: { kind: RequestFailureKind; status?: number; detail?: string; reason?: string },
    cause?: unknown,
  ): RequestFailed {
    const failure: FailedCall = { ...facts, method: call.method, route: call.route ?? call.path, url: this.url };
    const describe =
      call.describe ??
      this.options.describe ??
      ((failed: FailedCall) => defaultFailureMessage(failed, this.options.unreachableHint));
    return new RequestFailed(describe(failure), failure, cause === undefined ? undefined : { cause });
  }

  /** One exchange; a failure to get a whole answer becomes a RequestFailed (unavailable or timeout) here. */
  private async send(call: SvcCall, token: string | null): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (!call.text) headers.accept = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const started = performance.now();
    const exchange = await exchangeOnce(
      new URL(this.url + call.path),
      call.method,
      headers,
      body,
      call.timeoutMs ?? this.options.timeoutMs,
    );
    this.options.observe?.({
      method: call.method,
      route: call.route ?? call.path,
      status: exchange.answered ? exchange.answer.status : 0,
      durationMs: performance.now() - started,
    });
    if (exchange.answered) return exchange.answer;
    const kind = exchange.timedOut ? 'timeout' : 'unavailable';
    const reason = exchange.timedOut ? 'timed out' : transportReason(exchange.error);
    throw this.failure(call, { kind, reason }, exchange.error);
  }
}

/** 401 and 403 are the credential's; a 5xx is the server's trouble unless the route declares it its verdict. */
function kindOf(status: number, serverError: boolean, verdicts: readonly number[] = []): RequestFailureKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status >= 500) return serverError && verdicts.includes(status) ? 'refused' : 'unavailable';
  if (status < 200) return 'unavailable';
  return 'refused';
}

/** The short reason a connection failed: the system's code (ECONNREFUSED, ENOTFOUND…) when there is one. */
function transportReason(error: unknown): string {
  const failure = error as { code?: string; message?: string; errors?: { code?: string }[] };
  return failure.code ?? failure.errors?.[0]?.code ?? failure.message ?? String(error);
}

/** One request on a connection of its own, read to the end or abandoned at the deadline. */
function exchangeOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number | undefined,
): Promise<Exchange> {
  const transport = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http');
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const settle = (exchange: Exchange) => {
      clearTimeout(timer);
      resolve(exchange);
    };
    const fail = (error: unknown) => settle({ answered: false, error, timedOut: false });
    const request = transport.request(url, { method, headers, agent: false }, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', fail);
      response.on('end', () =>
        settle({
          answered: true,
          answer: {
            status: response.statusCode ?? 0,
            location: response.headers.location,
            text: Buffer.concat(chunks).toString('utf8'),
          },
        }),
      );
    });
    request.on('error', fail);
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        const error = new Error(`no answer within ${timeoutMs} ms`);
        settle({ answered: false, error, timedOut: true });
        request.destroy(error);
      }, timeoutMs);
    }
    request.end(body);
  });
}
