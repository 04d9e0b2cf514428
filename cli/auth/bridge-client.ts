// The CLI's HTTP client for one bridge, and the session it calls with (spec "Clients"): SVC_TOKEN overrides
// everything; else the session stored for this bridge URL; else, at a terminal, a login on the spot; with
// no terminal, an error saying how to log in. A 401 on a stored session discards it and retries exactly
// once with fresh credentials. A bridge that reports `authRequired: false` is called without any.
import { normalizeUrl } from '../url.js';
import { ask, askSecret, interactive } from '../prompt.js';
import { readSession, removeSession, writeSession } from './session-files.js';
import type { LoginResponse } from '../../protocol/index.js';
import { ApiError, httpCall, type ApiClient } from '../api/http.js';
import { svcCommand } from '../invocation.js';

interface Credential {
  token: string | null;
  source: 'env' | 'stored' | 'fresh' | 'none';
}

export class BridgeClient implements ApiClient {
  readonly url: string;
  readonly viaBridge = true;
  private credential: Credential | null = null;
  private readonly hint: string;

  constructor(
    bridgeUrl: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.url = normalizeUrl(bridgeUrl);
    this.hint = `is the bridge running? start one with \`${svcCommand()} launch\` (or \`${svcCommand()} bridge\`)`;
  }

  /** One unauthenticated call (login, mode), with the bridge's `{error}` as the thrown message. */
  async anonymous<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.send<T>(method, path, body, null);
  }

  /** One call with exactly this token and no retry (logout presents the stored session as it is). */
  async anonymousWith<T>(method: string, path: string, token: string): Promise<T> {
    return this.send<T>(method, path, undefined, token);
  }

  /** Logs in with `username`/`password`, stores the session, and returns it. */
  async login(username: string, password: string): Promise<LoginResponse> {
    const answer = await this.anonymous<LoginResponse>('POST', '/auth/login', { username, password });
    writeSession({ bridgeUrl: this.url, token: answer.token, username: answer.user.username }, this.env);
    this.credential = { token: answer.token, source: 'fresh' };
    return answer;
  }

  /** A call with the current credential, re-logging in once if a stored session turns out stale. */
  call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.withSession((token) => this.send<T>(method, path, body, token));
  }

  /** As `call`, for routes that answer raw text (a diff). */
  text(method: string, path: string): Promise<string> {
    return this.withSession((token) =>
      httpCall<string>(this.url, method, path, { token, raw: true, startHint: this.hint }),
    );
  }

  private async withSession<T>(attempt: (token: string | null) => Promise<T>): Promise<T> {
    const credential = await this.resolveCredential();
    try {
      return await attempt(credential.token);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401 || credential.source !== 'stored') throw error;
      removeSession(this.url, this.env);
      this.credential = null;
      const fresh = await this.resolveCredential();
      return attempt(fresh.token);
    }
  }

  /** The token calls go out with (null on a bridge without authentication). */
  async token(): Promise<string | null> {
    return (await this.resolveCredential()).token;
  }

  private async resolveCredential(): Promise<Credential> {
    if (this.credential) return this.credential;
    if (this.env.SVC_TOKEN) return (this.credential = { token: this.env.SVC_TOKEN, source: 'env' });
    const stored = readSession(this.url, this.env);
    if (stored) return (this.credential = { token: stored.token, source: 'stored' });
    const mode = await this.anonymous<{ authRequired: boolean }>('GET', '/auth/mode');
    if (!mode.authRequired) return (this.credential = { token: null, source: 'none' });
    if (!interactive())
      throw new Error(
        `not logged in to ${this.url}: run \`${svcCommand()} login --bridge-url ${this.url}\` or set SVC_TOKEN`,
      );
    process.stderr.write(`Log in to ${this.url}\n`);
    const username = await ask('Username: ');
    const password = await askSecret('Password: ');
    await this.login(username, password);
    return this.credential!;
  }

  private send<T>(method: string, path: string, body: unknown, token: string | null): Promise<T> {
    return httpCall<T>(this.url, method, path, { body, token, startHint: this.hint });
  }
}
