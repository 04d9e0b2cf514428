// /auth: login, logout, the caller's own user, the auth mode, and WebSocket tickets (docs/architecture.md §7 bodies).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AuthMode, LoginRequest, LoginResponse, OkResponse, User, WsTicket } from '../../protocol/index.js';
import type { Accounts } from '../auth/accounts.js';
import { BridgeError } from '../errors.js';

export function authRoutes(accounts: Accounts, authRequired: boolean) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/auth/login', { schema: { body: LoginRequest, response: { 200: LoginResponse } } }, async (request) =>
      accounts.login(request.body.username, request.body.password, request.ip),
    );
    app.post('/auth/logout', { schema: { response: { 200: OkResponse } } }, async (request) => {
      await accounts.logout(request.principal);
      return { ok: true } as const;
    });
    app.get('/auth/me', { schema: { response: { 200: User } } }, async (request) => {
      const principal = request.principal;
      if (principal?.kind !== 'user') throw new BridgeError(403, 'only a user has an account');
      return principal.user;
    });
    app.get('/auth/mode', { schema: { response: { 200: AuthMode } } }, async () => ({ authRequired }));
    app.post('/auth/ws-ticket', { schema: { response: { 200: WsTicket } } }, async (request) =>
      accounts.issueTicket(request.principal),
    );
  };
}
