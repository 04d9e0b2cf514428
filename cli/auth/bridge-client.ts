// The CLI's HTTP client for one bridge, and the session it calls with (spec "Clients"): SVC_TOKEN overrides
// everything; else the session stored for this bridge URL; else, at a terminal, a login on the spot; with
// no terminal, an error saying how to log in. A 401 on a stored session discards it and retries exactly
// once with fresh credentials. A bridge that reports `authRequired: false` is called without any.
import { normalizeUrl } from '../url.js';
import { ask, askSecret, interactive } from '../prompt.js';
import { readSession, removeSession, writeSession } from './session-files.js';
import type { LoginResponse } from '../../protocol/index.js';

export class BridgeCallError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

interface Credential {
  token: string | null;
  source: 'env' | 'stored' | 'fresh' | 'none';
}

export class BridgeClient {
  readonly url: string;
  private credential: Credential | null = null;

  constructor(bridgeUrl: string, private readonly env: NodeJS.ProcessEnv = process.env) {
    this.url = normalizeUrl(bridgeUrl);
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
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const credential = await this.resolveCredential();
    try {
      return await this.send<T>(method, path, body, credential.token);
    } catch (error) {
      if (!(error instanceof BridgeCallError) || error.status !== 401 || credential.source !== 'stored') throw error;
      removeSession(this.url, this.env);
      this.credential = null;
      const fresh = await this.resolveCredential();
      return this.send<T>(method, path, body, fresh.token);
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
    if (!interactive()) throw new Error(`not logged in to ${this.url}: run \`svc login --bridge-url ${this.url}\` or set SVC_TOKEN`);
    process.stderr.write(`Log in to ${this.url}\n`);
    const username = await ask('Username: ');
    const password = await askSecret('Password: ');
    await this.login(username, password);
    return this.credential!;
  }

  private async send<T>(method: string, path: string, body: unknown, token: string | null): Promise<T> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(this.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'error' });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`cannot reach the bridge at ${this.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    if (!response.ok) {
      const message = (parsed as { error?: unknown; message?: unknown } | null);
      const detail = typeof message?.error === 'string' ? message.error : typeof message?.message === 'string' ? message.message : `HTTP ${response.status}`;
      throw new BridgeCallError(response.status, detail);
    }
    return parsed as T;
  }
}
