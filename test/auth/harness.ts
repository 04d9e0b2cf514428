// An authenticating bridge for the auth suites: in-process, on PGlite, with an injected clock, a first
// admin, and helpers to log in and call with a bearer token.
import { join } from 'node:path';
import { pino } from 'pino';
import WebSocket from 'ws';
import { startBridge, type Bridge, type BridgeOptions } from '../../bridge/server.js';
import { call, type Reply } from '../helpers/ship.js';

export const ADMIN = { username: 'root', email: 'root@example.com', password: 'root-password-1' };

export interface AuthHarness {
  bridge: Bridge;
  clock: { now: number };
  login(username: string, password: string): Promise<string>;
  as(
    token: string | null,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Reply<any>>;
  addUser(
    adminToken: string,
    username: string,
    role?: 'member' | 'admin',
  ): Promise<{ username: string; password: string }>;
  /** Opens a WebSocket on `path`; the socket on 101, else the HTTP status it was refused with. */
  upgrade(path: string): Promise<{ socket: WebSocket } | { status: number }>;
  /** A WebSocket ticket minted with `token` (fails the call unless the bridge answers 200). */
  ticket(token: string): Promise<string>;
  /** Everything the bridge logged (at info and above). */
  logs(): string;
  /** Every password and session token this harness handled: none may ever appear in `logs()`. */
  secrets: Set<string>;
}

export async function startAuthBridge(root: string, options: Partial<BridgeOptions> = {}): Promise<AuthHarness> {
  const clock = { now: Date.now() };
  const lines: string[] = [];
  const secrets = new Set<string>([ADMIN.password]);
  const bridge = await startBridge({
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
    clock: () => clock.now,
    firstAdmin: async () => ({ ...ADMIN }),
    ...options,
  });
  const as = (
    token: string | null,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    call(bridge.url, method, path, body, token === null ? headers : { authorization: `Bearer ${token}`, ...headers });
  return {
    bridge,
    clock,
    as,
    secrets,
    upgrade(path) {
      return new Promise((resolve, reject) => {
        const socket = new WebSocket(bridge.url.replace(/^http/, 'ws') + path, { followRedirects: false });
        socket.once('open', () => resolve({ socket }));
        socket.once('unexpected-response', (_request, response) => {
          resolve({ status: response.statusCode ?? 0 });
          socket.terminate();
        });
        socket.once('error', (error) => reject(error));
      });
    },
    async ticket(token) {
      const reply = await as(token, 'POST', '/auth/ws-ticket');
      if (reply.status !== 200) throw new Error(`ws-ticket: ${reply.status} ${reply.text}`);
      return reply.body.ticket as string;
    },
    logs: () => lines.join(''),
    async login(username, password) {
      secrets.add(password);
      const reply = await call(bridge.url, 'POST', '/auth/login', { username, password });
      if (reply.status !== 200) throw new Error(`login ${username}: ${reply.status} ${reply.text}`);
      secrets.add(reply.body.token);
      return reply.body.token as string;
    },
    async addUser(adminToken, username, role = 'member') {
      const password = `${username}-password-1`;
      secrets.add(password);
      const reply = await as(adminToken, 'POST', '/users', {
        username,
        email: `${username}@example.com`,
        password,
        role,
      });
      if (reply.status !== 201) throw new Error(`add ${username}: ${reply.status} ${reply.text}`);
      return { username, password };
    },
  };
}
