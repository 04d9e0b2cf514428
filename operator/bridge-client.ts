// The operator's calls to the bridge (docs/architecture.md §10): the ship and repo roster calls the reconcilers
// make and the drain report, each answer validated against the protocol's schemas, over the shared client
// (server/svc-client.ts) with the operator's login (operator/bridge-login.ts). Every failure is a RequestFailed,
// worded here for the Ship and Repo conditions and Events:
//   unavailable / timeout  nothing answered, the call timed out, a 3xx (never followed), a 5xx that is not the
//                          bridge's own verdict (a proxy's 502/503, the store down), a malformed 2xx (whatever
//                          answered is not a bridge we understand), or the login Secret absent: retry later;
//   unauthorized           401 after the one re-login, a refused login, or 403 (the operator's user is not an admin);
//   refused                the bridge judged the request (4xx with `{error}`, or POST /ships's 502 "ship at <url>
//                          did not respond": the bridge is fine, the ship is not).
// Messages carry only the bridge's `{error}` text, never the session token or the password.
// Not here: what a refusal means for a Ship or Repo (operator/reconcile/ decides that).
import type { Logger } from 'pino';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  type CreateRepoRequest,
  type DrainReport,
  type RegisterShipRequest,
  Repo,
  ShipInfo,
} from '../protocol/index.js';
import { SHIP_UNREACHABLE_STATUS } from '../protocol/ship-registration.js';
import { type FailedCall, isRefusal, RequestFailed } from '../server/request-failed.js';
import { type ObservedCall, type SvcCall, SvcClient } from '../server/svc-client.js';
import { type BridgeCredentials, type LoginPair, OperatorLogin } from './bridge-login.js';

export interface BridgeClientOptions {
  url: string;
  credentials: BridgeCredentials;
  /** Deadline of one call (default 10 s). */
  timeoutMs?: number;
  /** Deadline of POST /ships, which waits for the ship's first sync (bridge default 5 s) (default 20 s). */
  registerTimeoutMs?: number;
  logger?: Logger;
  /** Called after every exchange (metrics: bridge call latency); status 0 when nothing answered. */
  observe?: (call: ObservedCall) => void;
  /** For `secret` credentials: the pair in that Secret, or undefined while it is absent or incomplete. */
  readLoginSecret?: (name: string) => Promise<LoginPair | undefined>;
}

const checkShips = Compile(Type.Array(ShipInfo));
const checkShip = Compile(ShipInfo);
const checkRepos = Compile(Type.Array(Repo));
const checkRepo = Compile(Repo);

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_REGISTER_TIMEOUT_MS = 20_000;
const DRAIN_REPORT_TIMEOUT_MS = 5_000;
/** Condition and Event messages carry at most this much of the bridge's text. */
const DETAIL_LIMIT = 500;

/** How a failed call reads in a condition or an Event; `credentials` says what a 401 means. */
function operatorFailureMessage(failure: FailedCall, credentials: BridgeCredentials['kind']): string {
  const { status, detail, method, route } = failure;
  if (status === undefined) return `cannot reach the bridge at ${failure.url} (${failure.reason})`;
  if (status === 401) {
    if (credentials === 'none')
      return 'the bridge requires authentication: set SVC_OPERATOR_USERNAME and SVC_OPERATOR_PASSWORD, SVC_OPERATOR_ADMIN_SECRET or SVC_TOKEN';
    if (credentials === 'token')
      return `the bridge refused SVC_TOKEN (${detail}); the operator cannot renew a session it did not log in for`;
    return `the bridge refused the operator's session after a fresh login (${detail})`;
  }
  if (status === 403)
    return `the bridge refused ${method} ${route} to the operator's user (${detail}): it needs an admin`;
  if (status >= 300 && status < 400)
    return `the bridge answered ${status} (a redirect, not followed) to ${method} ${route}`;
  if (failure.kind === 'refused') return detail ?? `HTTP ${status}`;
  return `the bridge answered ${status} to ${method} ${route}: ${detail}`;
}

export class BridgeClient {
  readonly url: string;
  private readonly http: SvcClient;
  private readonly login: OperatorLogin;

  constructor(private readonly options: BridgeClientOptions) {
    const { credentials, logger } = options;
    this.http = new SvcClient({
      url: options.url,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      detailLimit: DETAIL_LIMIT,
      describe: (failure) => operatorFailureMessage(failure, credentials.kind),
      observe: (call) => {
        options.observe?.(call);
        logger?.debug({ ...call, durationMs: Math.round(call.durationMs) }, 'bridge call');
      },
    });
    this.url = this.http.url;
    this.login = new OperatorLogin(credentials, this.http, { readLoginSecret: options.readLoginSecret, logger });
  }

  async listShips(): Promise<ShipInfo[]> {
    return this.checked(checkShips, 'a ship list', { method: 'GET', path: '/ships' });
  }

  /** POST /ships: 201 → the ShipInfo; the bridge's 409 and 502 are refusals (kind `refused`). */
  async registerShip(request: RegisterShipRequest): Promise<ShipInfo> {
    return this.checked(checkShip, 'a ship', {
      method: 'POST',
      path: '/ships',
      body: request,
      timeoutMs: this.options.registerTimeoutMs ?? DEFAULT_REGISTER_TIMEOUT_MS,
      verdicts: [SHIP_UNREACHABLE_STATUS],
    });
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
    return this.checked(checkRepos, 'a repo list', { method: 'GET', path: '/repos' });
  }

  async registerRepo(request: CreateRepoRequest): Promise<Repo> {
    return this.checked(checkRepo, 'a repo', { method: 'POST', path: '/repos', body: request });
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
      if (isRefusal(error) && error.status === 404) return 'absent';
      throw error;
    }
  }

  /** A call whose answer must pass `check`; anything else did not come from a bridge we understand. */
  private async checked<T>(check: { Check(value: unknown): value is T }, what: string, call: SvcCall): Promise<T> {
    const answer = await this.call(call);
    if (!check.Check(answer))
      throw new RequestFailed(`the bridge answered ${call.method} ${call.path} with something that is not ${what}`, {
        kind: 'unavailable',
      });
    return answer;
  }

  private call(call: SvcCall): Promise<unknown> {
    return this.http.request<unknown>({ ...call, credential: this.login });
  }
}
