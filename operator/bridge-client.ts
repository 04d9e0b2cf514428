// The operator's HTTP client for the bridge (docs/architecture.md §10): the ship and repo roster calls the reconcilers
// make, each answer validated against the protocol's schemas, every failure one of four typed errors:
//   BridgeUnavailable   nothing answered, the call timed out, or a 5xx that is not the bridge's own verdict
//                       (a proxy's 502/503, the store down): retry later, the bridge is the problem;
//   BridgeUnauthorized  401 after the one re-login, or 403 (the operator's user is not an admin);
//   BridgeRefused       the bridge judged the request (4xx with `{error}`, or POST /ships's 502 "ship at <url>
//                       did not respond": the bridge is fine, the ship is not);
//   and a malformed 2xx body is BridgeUnavailable too (whatever answered is not a bridge we understand).
// Credentials: SVC_OPERATOR_USERNAME/SVC_OPERATOR_PASSWORD (logs in with POST /auth/login, and logs in again
// exactly once when a call answers 401: the session expired or was revoked), else SVC_OPERATOR_ADMIN_SECRET
// (the same login, its username and password read from that Secret at each login: the chart's first-admin
// Secret, which the operator itself creates, so its pod cannot take them as env), else SVC_TOKEN (a session
// the operator cannot renew), else none (an `--insecure-no-auth` bridge). The session token and the password
// never reach a log line, an error message or an event: messages carry only the bridge's `{error}` text.
// Not here: what a refusal means for a Ship or Repo (operator/reconcile/ decides that).
import { Compile } from 'typebox/compile';
import { Type } from 'typebox';
import type { Logger } from 'pino';
import {
  LoginResponse,
  Repo,
  ShipInfo,
  type CreateRepoRequest,
  type DrainReport,
  type RegisterShipRequest,
} from '../protocol/index.js';
import { SHIP_UNREACHABLE_STATUS } from '../protocol/ship-registration.js';

export interface LoginPair {
  username: string;
  password: string;
}

export type BridgeCredentials =
  | ({ kind: 'login' } & LoginPair)
  /** A login whose pair is read from the named Secret (keys `username`, `password`) at each login. */
  | { kind: 'secret'; secret: string }
  | { kind: 'token'; token: string }
  | { kind: 'none' };

/**
 * docs/architecture.md §10: a username/password pair first, else the Secret holding one (SVC_OPERATOR_ADMIN_SECRET), else a
 * session token, else nothing (an insecure bridge).
 */
export function bridgeCredentialsFromEnv(env: NodeJS.ProcessEnv = process.env): BridgeCredentials {
  const username = env.SVC_OPERATOR_USERNAME;
  const password = env.SVC_OPERATOR_PASSWORD;
  if (username && password) return { kind: 'login', username, password };
  if (username || password) throw new Error('set both SVC_OPERATOR_USERNAME and SVC_OPERATOR_PASSWORD, or neither');
  if (env.SVC_OPERATOR_ADMIN_SECRET) return { kind: 'secret', secret: env.SVC_OPERATOR_ADMIN_SECRET };
  if (env.SVC_TOKEN) return { kind: 'token', token: env.SVC_TOKEN };
  return { kind: 'none' };
}

/** The bridge could not be asked: connection refused or reset, a timeout, a 5xx, or an answer that is not the bridge's. */
export class BridgeUnavailable extends Error {
  override readonly name = 'BridgeUnavailable';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The bridge refused the operator's credential (401 after one re-login) or its role (403). */
export class BridgeUnauthorized extends Error {
  override readonly name = 'BridgeUnauthorized';
  constructor(
    message: string,
    readonly status: 401 | 403,
  ) {
    super(message);
  }
}

/** The bridge answered and said no: `status` and the bridge's own `{error}` message. */
export class BridgeRefused extends Error {
  override readonly name = 'BridgeRefused';
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export type BridgeError = BridgeUnavailable | BridgeUnauthorized | BridgeRefused;

export interface BridgeCall {
  method: string;
  /** The route pattern (`/ships/:name`), never a name: a bounded label for metrics. */
  route: string;
  /** HTTP status, or 0 when nothing answered. */
  status: number;
  durationMs: number;
}

export interface BridgeClientOptions {
  url: string;
  credentials: BridgeCredentials;
  /** Deadline of one call (default 10 s). */
  timeoutMs?: number;
  /** Deadline of POST /ships, which waits for the ship's first sync (bridge default 5 s) (default 20 s). */
  registerTimeoutMs?: number;
  fetch?: typeof fetch;
  logger?: Logger;
  /** Called after every call (metrics: bridge call latency). */
  observe?: (call: BridgeCall) => void;
  /** For `secret` credentials: the pair in that Secret, or undefined while it is absent or incomplete. */
  readLoginSecret?: (name: string) => Promise<LoginPair | undefined>;
}

const checkShips = Compile(Type.Array(ShipInfo));
const checkShip = Compile(ShipInfo);
const checkRepos = Compile(Type.Array(Repo));
const checkRepo = Compile(Repo);
const checkLogin = Compile(LoginResponse);

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_REGISTER_TIMEOUT_MS = 20_000;
const DRAIN_REPORT_TIMEOUT_MS = 5_000;

interface Answer {
  status: number;
  body: unknown;
}

interface CallSpec {
  method: string;
  path: string;
  route: string;
  body?: unknown;
  timeoutMs?: number;
  /** Statuses above 499 that are the bridge's own verdict on the request (POST /ships's 502). */
  verdicts?: number[];
}

/** The short reason a fetch failed: the system's code (ECONNREFUSED…) when there is one. */
function transportReason(error: unknown): string {
  const failure = error as {
    name?: string;
    code?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (failure.name === 'TimeoutError') return 'timed out';
  return failure.cause?.code ?? failure.code ?? failure.cause?.message ?? failure.message ?? String(error);
}

function errorText(body: unknown, status: number): string {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === 'string') return error.slice(0, 500);
  const message = (body as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message.slice(0, 500);
  return `HTTP ${status}`;
}

export class BridgeClient {
  readonly url: string;
  private session: string | null = null;
  private loggingIn: Promise<string> | null = null;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: BridgeClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.fetch = options.fetch ?? fetch;
  }

  async listShips(): Promise<ShipInfo[]> {
    const answer = await this.call({ method: 'GET', path: '/ships', route: '/ships' });
    if (!checkShips.Check(answer.body))
      throw new BridgeUnavailable('the bridge answered GET /ships with something that is not a ship list');
    return answer.body;
  }

  /** POST /ships: 201 → the ShipInfo; the bridge's 409 and 502 come back as BridgeRefused. */
  async registerShip(request: RegisterShipRequest): Promise<ShipInfo> {
    const answer = await this.call({
      method: 'POST',
      path: '/ships',
      route: '/ships',
      body: request,
      timeoutMs: this.options.registerTimeoutMs ?? DEFAULT_REGISTER_TIMEOUT_MS,
      verdicts: [SHIP_UNREACHABLE_STATUS],
    });
    if (!checkShip.Check(answer.body))
      throw new BridgeUnavailable('the bridge answered POST /ships with something that is not a ship');
    return answer.body;
  }

  /** DELETE /ships/:name: `absent` when the bridge answers 404 (already gone counts as done). */
  async deregisterShip(name: string): Promise<'removed' | 'absent'> {
    return this.remove('/ships', name);
  }

  /** POST /ships/:name/drain-report: the bridge logs a draining node's unpushed work (a short deadline: a drain waits). */
  async drainReport(name: string, report: DrainReport): Promise<void> {
    await this.call({
      method: 'POST',
      path: `/ships/${encodeURIComponent(name)}/drain-report`,
      route: '/ships/:name/drain-report',
      body: report,
      timeoutMs: DRAIN_REPORT_TIMEOUT_MS,
    });
  }

  async listRepos(): Promise<Repo[]> {
    const answer = await this.call({ method: 'GET', path: '/repos', route: '/repos' });
    if (!checkRepos.Check(answer.body))
      throw new BridgeUnavailable('the bridge answered GET /repos with something that is not a repo list');
    return answer.body;
  }

  async registerRepo(request: CreateRepoRequest): Promise<Repo> {
    const answer = await this.call({ method: 'POST', path: '/repos', route: '/repos', body: request });
    if (!checkRepo.Check(answer.body))
      throw new BridgeUnavailable('the bridge answered POST /repos with something that is not a repo');
    return answer.body;
  }

  async deregisterRepo(name: string): Promise<'removed' | 'absent'> {
    return this.remove('/repos', name);
  }

  private async remove(collection: '/ships' | '/repos', name: string): Promise<'removed' | 'absent'> {
    try {
      await this.call({
        method: 'DELETE',
        path: `${collection}/${encodeURIComponent(name)}`,
        route: `${collection}/:name`,
      });
      return 'removed';
    } catch (error) {
      if (error instanceof BridgeRefused && error.status === 404) return 'absent';
      throw error;
    }
  }

  /** One call with the current credential; a 401 on a login session logs in again and retries once. */
  private async call(spec: CallSpec): Promise<Answer> {
    const credentials = this.options.credentials;
    const token = await this.credential();
    const answer = await this.send(spec, token);
    if (answer.status === 401 && (credentials.kind === 'login' || credentials.kind === 'secret') && token !== null) {
      // The session expired or was revoked (password change, user deleted and recreated): one fresh login.
      if (this.session === token) this.session = null;
      const fresh = await this.credential();
      return this.judge(spec, await this.send(spec, fresh));
    }
    return this.judge(spec, answer);
  }

  private judge(spec: CallSpec, answer: Answer): Answer {
    const { status, body } = answer;
    if (status >= 200 && status < 300) return answer;
    const text = errorText(body, status);
    if (status === 401) {
      const kind = this.options.credentials.kind;
      const why =
        kind === 'none'
          ? 'the bridge requires authentication: set SVC_OPERATOR_USERNAME and SVC_OPERATOR_PASSWORD, SVC_OPERATOR_ADMIN_SECRET or SVC_TOKEN'
          : kind === 'token'
            ? `the bridge refused SVC_TOKEN (${text}); the operator cannot renew a session it did not log in for`
            : `the bridge refused the operator's session after a fresh login (${text})`;
      throw new BridgeUnauthorized(why, 401);
    }
    if (status === 403)
      throw new BridgeUnauthorized(
        `the bridge refused ${spec.method} ${spec.route} to the operator's user (${text}): it needs an admin`,
        403,
      );
    if (status >= 500 && !(spec.verdicts ?? []).includes(status))
      throw new BridgeUnavailable(`the bridge answered ${status} to ${spec.method} ${spec.route}: ${text}`, status);
    if (status >= 300 && status < 400)
      throw new BridgeUnavailable(
        `the bridge answered ${status} (a redirect, not followed) to ${spec.method} ${spec.route}`,
        status,
      );
    // A verdict 5xx without the bridge's `{error}` body came from something in front of it (a proxy).
    if (status >= 500 && typeof (body as { error?: unknown } | null)?.error !== 'string')
      throw new BridgeUnavailable(`the bridge answered ${status} to ${spec.method} ${spec.route}: ${text}`, status);
    throw new BridgeRefused(status, text);
  }

  /** The token to present: null for an insecure bridge; a login is single-flight across concurrent calls. */
  private async credential(): Promise<string | null> {
    const credentials = this.options.credentials;
    if (credentials.kind === 'none') return null;
    if (credentials.kind === 'token') return credentials.token;
    if (this.session) return this.session;
    if (!this.loggingIn) {
      this.loggingIn = this.loginPair(credentials)
        .then(({ username, password }) => this.login(username, password))
        .finally(() => {
          this.loggingIn = null;
        });
    }
    return this.loggingIn;
  }

  /** The pair to log in with: given, or read now from its Secret (so a changed password is picked up). */
  private async loginPair(credentials: LoginPair | { secret: string }): Promise<LoginPair> {
    if (!('secret' in credentials)) return credentials;
    const read = this.options.readLoginSecret;
    const pair = read ? await read(credentials.secret) : undefined;
    // Absent at first start: the operator creates the chart's first-admin Secret itself, a moment later.
    if (!pair)
      throw new BridgeUnavailable(
        `the operator's login Secret ${credentials.secret} is absent or lacks username and password`,
      );
    return pair;
  }

  private async login(username: string, password: string): Promise<string> {
    const answer = await this.send(
      { method: 'POST', path: '/auth/login', route: '/auth/login', body: { username, password } },
      null,
    );
    if (answer.status === 401 || answer.status === 403) {
      throw new BridgeUnauthorized(
        `the bridge refused the operator's login as "${username}": ${errorText(answer.body, answer.status)}`,
        answer.status,
      );
    }
    if (answer.status >= 300 || !checkLogin.Check(answer.body)) {
      if (answer.status >= 400 && answer.status < 500)
        throw new BridgeRefused(answer.status, `login as "${username}": ${errorText(answer.body, answer.status)}`);
      throw new BridgeUnavailable(
        `the bridge answered ${answer.status} to POST /auth/login: ${errorText(answer.body, answer.status)}`,
        answer.status,
      );
    }
    this.session = answer.body.token;
    this.options.logger?.info({ bridge: this.url, username }, 'logged in to the bridge');
    return this.session;
  }

  private async send(spec: CallSpec, token: string | null): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    let status = 0;
    try {
      const response = await this.fetch(this.url + spec.path, {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        // docs/security.md H8: no redirect is ever followed (a 3xx is a failure, judged above).
        redirect: 'manual',
        signal: AbortSignal.timeout(spec.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
      status = response.status;
      const text = await response.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = { message: text.trim().slice(0, 200) };
      }
      return { status, body };
    } catch (error) {
      throw new BridgeUnavailable(`cannot reach the bridge at ${this.url} (${transportReason(error)})`);
    } finally {
      const durationMs = performance.now() - started;
      this.options.observe?.({ method: spec.method, route: spec.route, status, durationMs });
      this.options.logger?.debug(
        { method: spec.method, route: spec.route, status, durationMs: Math.round(durationMs) },
        'bridge call',
      );
    }
  }
}
