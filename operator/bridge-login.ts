// How the operator authenticates to the bridge (docs/architecture.md §10): SVC_OPERATOR_USERNAME and
// SVC_OPERATOR_PASSWORD (a login with POST /auth/login), else SVC_OPERATOR_ADMIN_SECRET (the same login, its
// username and password read from that Secret at each login: the chart's first-admin Secret, which the operator
// itself creates, so its pod cannot take them as env), else SVC_TOKEN (a session the operator cannot renew), else
// none (an `--insecure-no-auth` bridge). A login session is renewed exactly once when a call draws a 401 (it
// expired or was revoked); one login serves concurrent calls. The session token and the password never reach a
// log line or an error message: a refused login says only the username and the bridge's `{error}`.
// Not here: the calls themselves (operator/bridge-client.ts) or the HTTP exchange (server/svc-client.ts).
import type { Logger } from 'pino';
import { Compile } from 'typebox/compile';
import { LoginResponse } from '../protocol/index.js';
import { RequestFailed } from '../server/request-failed.js';
import { ANONYMOUS, type Credential, type SvcClient } from '../server/svc-client.js';

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

const checkLogin = Compile(LoginResponse);

/** The operator's credential for the bridge: a fixed token, nothing, or a login session renewed once on a 401. */
export class OperatorLogin implements Credential {
  private session: string | null = null;
  private loggingIn: Promise<string> | null = null;

  constructor(
    private readonly credentials: BridgeCredentials,
    /** The client the logins go out through (its own credential unused: a login presents none). */
    private readonly client: SvcClient,
    private readonly options: {
      /** For `secret` credentials: the pair in that Secret, or undefined while it is absent or incomplete. */
      readLoginSecret?: (name: string) => Promise<LoginPair | undefined>;
      logger?: Logger;
    } = {},
  ) {}

  /** True when a 401 means the bridge refused a session this credential logged in for (and renewed). */
  get renews(): boolean {
    return this.credentials.kind === 'login' || this.credentials.kind === 'secret';
  }

  async token(): Promise<string | null> {
    const credentials = this.credentials;
    if (credentials.kind === 'none') return null;
    if (credentials.kind === 'token') return credentials.token;
    if (this.session) return this.session;
    // Single flight: concurrent calls share one login.
    if (!this.loggingIn) {
      this.loggingIn = this.loginPair(credentials)
        .then((pair) => this.login(pair))
        .finally(() => {
          this.loggingIn = null;
        });
    }
    return this.loggingIn;
  }

  /** The session expired or was revoked (password change, user deleted and recreated): one fresh login. */
  async renew(rejected: string | null): Promise<string | null | undefined> {
    if (!this.renews || rejected === null) return undefined;
    if (this.session === rejected) this.session = null;
    return this.token();
  }

  /** The pair to log in with: given, or read now from its Secret (so a changed password is picked up). */
  private async loginPair(credentials: LoginPair | { secret: string }): Promise<LoginPair> {
    if (!('secret' in credentials)) return credentials;
    const pair = this.options.readLoginSecret ? await this.options.readLoginSecret(credentials.secret) : undefined;
    // Absent at first start: the operator creates the chart's first-admin Secret itself, a moment later.
    if (!pair)
      throw new RequestFailed(
        `the operator's login Secret ${credentials.secret} is absent or lacks username and password`,
        { kind: 'unavailable' },
      );
    return pair;
  }

  private async login({ username, password }: LoginPair): Promise<string> {
    const answer = await this.client.request<unknown>({
      credential: ANONYMOUS,
      method: 'POST',
      path: '/auth/login',
      body: { username, password },
      describe: (failure) => {
        if (failure.kind === 'unauthorized')
          return `the bridge refused the operator's login as "${username}": ${failure.detail}`;
        if (failure.kind === 'refused') return `login as "${username}": ${failure.detail}`;
        if (failure.status === undefined) return `cannot reach the bridge at ${failure.url} (${failure.reason})`;
        return `the bridge answered ${failure.status} to POST /auth/login: ${failure.detail}`;
      },
    });
    if (!checkLogin.Check(answer))
      throw new RequestFailed('the bridge answered POST /auth/login with something that is not a session', {
        kind: 'unavailable',
      });
    this.session = answer.token;
    this.options.logger?.info({ bridge: this.client.url, username }, 'logged in to the bridge');
    return this.session;
  }
}
