// An authenticating bridge without a socket for the route suites (test/helpers/bridge-app.ts): the real store
// and parts, an injected clock, a first admin, the log kept for the suites that check it, and helpers to log
// in and call with a bearer token through `app.inject`. The listening bridge (harness.ts) stays for upgrades.
import { pino } from 'pino';
import { buildTestBridge, type TestBridgeApp, type TestBridgeOptions } from '../helpers/bridge-app.js';
import type { InjectedReply } from '../helpers/inject.js';
import { ADMIN } from './harness.js';

export interface AuthApp {
  bridge: TestBridgeApp;
  clock: { now: number };
  as(
    token: string | null,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string | string[]>,
  ): Promise<InjectedReply>;
  login(username: string, password: string): Promise<string>;
  addUser(adminToken: string, username: string): Promise<{ username: string; password: string }>;
  /** Everything the bridge logged (at info and above). */
  logs(): string;
}

export async function buildAuthApp(root: string, options: TestBridgeOptions = {}): Promise<AuthApp> {
  const clock = { now: Date.now() };
  const lines: string[] = [];
  const bridge = await buildTestBridge(root, {
    logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
    clock: () => clock.now,
    firstAdmin: async () => ({ ...ADMIN }),
    ...options,
  });
  const as: AuthApp['as'] = (token, method, path, body, headers = {}) =>
    bridge.inject(method, path, body, token === null ? headers : { authorization: `Bearer ${token}`, ...headers });
  return {
    bridge,
    clock,
    as,
    logs: () => lines.join(''),
    async login(username, password) {
      const reply = await as(null, 'POST', '/auth/login', { username, password });
      if (reply.status !== 200) throw new Error(`login ${username}: ${reply.status} ${reply.text}`);
      return reply.body.token as string;
    },
    async addUser(adminToken, username) {
      const password = `${username}-password-1`;
      const reply = await as(adminToken, 'POST', '/users', {
        username,
        email: `${username}@example.com`,
        password,
        role: 'member',
      });
      if (reply.status !== 201) throw new Error(`add ${username}: ${reply.status} ${reply.text}`);
      return { username, password };
    },
  };
}
