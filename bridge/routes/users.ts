// /users (docs/architecture.md §7): list and create users, remove one, change a role, a password or an email. Who may
// call which is the access policy's business; these handlers only do the work. Each declares its answers
// (server/route-responses.ts).
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
import { answer, failures } from '../../server/route-responses.js';
import { Type } from 'typebox';
import type { Accounts } from '../auth/accounts.js';

const NO_USER = 'user not found: <name>';
const INVALID = 'invalid request — <field>: <reason>';
const DONE = answer('Done: `{ok: true}`.', OkResponse);

export function userRoutes(accounts: Accounts) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const ok = { ok: true } as const;
    app.get('/users', { schema: { response: { 200: answer('Every user.', Type.Array(User)) } } }, async () =>
      accounts.list(),
    );
    app.post(
      '/users',
      {
        schema: {
          body: CreateUserRequest,
          response: {
            201: answer('The new user.', User),
            ...failures({ 400: INVALID, 409: 'user already exists: <name>, or email already in use: <email>' }),
          },
        },
      },
      async (request, reply) => {
        const user = await accounts.create(request.body);
        reply.code(201);
        return user;
      },
    );
    app.delete(
      '/users/:name',
      {
        schema: {
          params: UserParams,
          response: { 200: DONE, ...failures({ 404: NO_USER, 409: 'cannot remove the last admin: <name>' }) },
        },
      },
      async (request) => {
        await accounts.remove(request.params.name);
        return ok;
      },
    );
    app.post(
      '/users/:name/password',
      {
        schema: {
          params: UserParams,
          body: PasswordChangeRequest,
          response: { 200: DONE, ...failures({ 400: INVALID, 404: NO_USER }) },
        },
      },
      async (request) => {
        await accounts.setPassword(request.params.name, request.body.password);
        return ok;
      },
    );
    app.post(
      '/users/:name/email',
      {
        schema: {
          params: UserParams,
          body: EmailChangeRequest,
          response: {
            200: answer('The user, changed.', User),
            ...failures({ 400: INVALID, 404: NO_USER, 409: 'email already in use: <email>' }),
          },
        },
      },
      async (request) => accounts.setEmail(request.params.name, request.body.email),
    );
    app.post(
      '/users/:name/role',
      {
        schema: {
          params: UserParams,
          body: RoleChangeRequest,
          response: {
            200: answer('The user, changed.', User),
            ...failures({ 400: INVALID, 404: NO_USER, 409: 'cannot demote the last admin: <name>' }),
          },
        },
      },
      async (request) => accounts.setRole(request.params.name, request.body.role),
    );
  };
}
