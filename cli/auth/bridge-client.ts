// The CLI's client for one bridge, and the session it calls with (spec "Clients"): SVC_TOKEN overrides
// everything; else the session stored for this bridge URL; else, at a terminal, a login on the spot; with
// no terminal, an error saying how to log in. A 401 on a stored session discards it and retries exactly
// once with fresh credentials (the renewal server/svc-client.ts makes). A bridge that reports
// `authRequired: false` is called without any.
import type { LoginResponse } from '../../protocol/index.js';
import { ANONYMOUS, type Credential, fixedToken, SvcClient } from '../../server/svc-client.js';
import type { ApiClient } from '../api/api-client.js';
import { svcCommand } from '../invocation.js';
import { ask, askSecret, interactive } from '../prompt.js';
import { normalizeUrl } from '../url.js';
import { readSession, removeSession, writeSession } from './session-files.js';

interface Session {
  token: string | null;
  source: 'env' | 'stored' | 'fresh' | 'none';
}

export class BridgeClient implements ApiClient {
  readonly url: string;
  readonly viaBridge = true;
  private session: Session | null = null;
  private readonly http: SvcClient;
  /** The session as a Credential: a stale stored session is renewed once (discarded, then resolved again). */
  private readonly credential: Credential = {
    token: async () => (await this.resolveSession()).token,
    renew: async (rejected) => {
      // Another call renewed it meanwhile: send again with that session.
      if (this.session && this.session.token !== rejected) return this.session.token;
      if (this.session?.source !== 'stored') return undefined;
      removeSession(this.url, this.env);
      this.session = null;
      return (await this.resolveSession()).token;
    },
  };

  constructor(
    bridgeUrl: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.url = normalizeUrl(bridgeUrl);
    this.http = new SvcClient({
      url: this.url,
      credential: this.credential,
      unreachableHint: `is the bridge running? start one with \`${svcCommand()} launch\` (or \`${svcCommand()} bridge\`)`,
    });
  }

  /** One call with exactly this token and no retry (logout presents the stored session as it is). */
  async anonymousWith<T>(method: string, path: string, token: string): Promise<T> {
    return this.http.request<T>({ method, path, credential: fixedToken(token) });
  }

  /** Logs in with `username`/`password`, stores the session, and returns it. */
  async login(username: string, password: string): Promise<LoginResponse> {
    const answer = await this.http.request<LoginResponse>({
      method: 'POST',
      path: '/auth/login',
      body: { username, password },
      credential: ANONYMOUS,
    });
    writeSession({ bridgeUrl: this.url, token: answer.token, username: answer.user.username }, this.env);
    this.remember({ token: answer.token, source: 'fresh' });
    return answer;
  }

  /** A call with the current session, logging in again once if a stored session turns out stale. */
  call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.http.request<T>({ method, path, body });
  }

  /** As `call`, for routes that answer raw text (a diff). */
  text(method: string, path: string): Promise<string> {
    return this.http.request<string>({ method, path, text: true });
  }

  /** The token calls go out with (null on a bridge without authentication). */
  async token(): Promise<string | null> {
    return (await this.resolveSession()).token;
  }

  private async resolveSession(): Promise<Session> {
    if (this.session) return this.session;
    if (this.env.SVC_TOKEN) return this.remember({ token: this.env.SVC_TOKEN, source: 'env' });
    const stored = readSession(this.url, this.env);
    if (stored) return this.remember({ token: stored.token, source: 'stored' });
    const mode = await this.http.request<{ authRequired: boolean }>({
      method: 'GET',
      path: '/auth/mode',
      credential: ANONYMOUS,
    });
    if (!mode.authRequired) return this.remember({ token: null, source: 'none' });
    if (!interactive())
      throw new Error(
        `not logged in to ${this.url}: run \`${svcCommand()} login --bridge-url ${this.url}\` or set SVC_TOKEN`,
      );
    process.stderr.write(`Log in to ${this.url}\n`);
    const username = await ask('Username: ');
    const password = await askSecret('Password: ');
    await this.login(username, password);
    return this.session!;
  }

  private remember(session: Session): Session {
    this.session = session;
    return session;
  }
}
