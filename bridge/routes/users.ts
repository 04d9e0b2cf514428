// /users (docs/architecture.md §7): list and create users, remove one, change a role, a password or an email. Who may
// call which is the access policy's business; these handlers only do the work.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  CreateUserRequest,
  EmailChangeRequest,
  OkResponse,
  PasswordChangeRequest,
  RoleChangeRequest,
  User,
  UserParams,
} from '../../protocol/index.js';
import { Type } from 'typebox';
import type { Accounts } from '../auth/accounts.js';

export function userRoutes(accounts: Accounts) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const ok = { ok: true } as const;
    app.get('/users', { schema: { response: { 200: Type.Array(User) } } }, async () => accounts.list());
    app.post('/users', { schema: { body: CreateUserRequest, response: { 201: User } } }, async (request, reply) => {
      const user = await accounts.create(request.body);
      reply.code(201);
      return user;
    });
    app.delete('/users/:name', { schema: { params: UserParams, response: { 200: OkResponse } } }, async (request) => {
      await accounts.remove(request.params.name);
      return ok;
    });
    app.post(
      '/users/:name/password',
      { schema: { params: UserParams, body: PasswordChangeRequest, response: { 200: OkResponse } } },
      async (request) => {
        await accounts.setPassword(request.params.name, request.body.password);
        return ok;
      },
    );
    app.post(
      '/users/:name/email',
      { schema: { params: UserParams, body: EmailChangeRequest, response: { 200: User } } },
      async (request) => accounts.setEmail(request.params.name, request.body.email),
    );
    app.post(
      '/users/:name/role',
      { schema: { params: UserParams, body: RoleChangeRequest, response: { 200: User } } },
      async (request) => accounts.setRole(request.params.name, request.body.role),
    );
  };
}
