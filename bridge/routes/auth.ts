// /auth: login, logout, the caller's own user, the auth mode, and WebSocket tickets (docs/architecture.md §7 bodies).
// Each declares its answers (server/route-responses.ts); the guard and the error handler declare theirs.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AuthMode, LoginRequest, LoginResponse, OkResponse, User, WsTicket } from '../../protocol/index.js';
import { answer, failures } from '../../server/route-responses.js';
import type { Accounts } from '../auth/accounts.js';
import { BridgeError } from '../errors.js';

export function authRoutes(accounts: Accounts, authRequired: boolean) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/auth/login',
      {
        schema: {
          body: LoginRequest,
          response: {
            200: answer('A session token and its user.', LoginResponse),
            ...failures({ 401: 'unknown user or wrong password (repeated failures are answered ever more slowly)' }),
          },
        },
      },
      async (request) => accounts.login(request.body.username, request.body.password, request.ip),
    );
    app.post(
      '/auth/logout',
      { schema: { response: { 200: answer('The presented session, if any, is revoked.', OkResponse) } } },
      async (request) => {
        await accounts.logout(request.principal);
        return { ok: true } as const;
      },
    );
    app.get(
      '/auth/me',
      {
        schema: {
          response: {
            200: answer("The caller's own user.", User),
            ...failures({ 403: 'only a user has an account (a ship or ship-agent credential)' }),
          },
        },
      },
      async (request) => {
        const principal = request.principal;
        if (principal?.kind !== 'user') throw new BridgeError(403, 'only a user has an account');
        return principal.user;
      },
    );
    app.get(
      '/auth/mode',
      { schema: { response: { 200: answer('Whether the bridge requires authentication.', AuthMode) } } },
      async () => ({ authRequired }),
    );
    app.post(
      '/auth/ws-ticket',
      {
        schema: {
          response: {
            200: answer('A single-use WebSocket ticket, valid 30 seconds.', WsTicket),
            ...failures({ 403: 'a WebSocket ticket is issued to users only' }),
          },
        },
      },
      async (request) => accounts.issueTicket(request.principal),
    );
  };
}
