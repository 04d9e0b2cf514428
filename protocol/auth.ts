// Shapes of the bridge's authentication surface (spec "Authentication", bodies from docs/architecture.md §7): users,
// login, the WebSocket ticket, and the /users request bodies. Schemas only require types: a present field
// with a bad value is the route's 400 `invalid request — <field>: <reason>`, a missing one is 422.
import { Type, type Static } from 'typebox';

export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
export const WS_TICKET_LIFETIME_MS = 30_000;
export const TOKEN_BYTES = 32;
export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordProblem } from './password-rules.js';
export const EMAIL_MAX_LENGTH = 320;

export const Role = Type.Union([Type.Literal('member'), Type.Literal('admin')]);
export type Role = Static<typeof Role>;

export const User = Type.Object({
  id: Type.String(),
  username: Type.String(),
  email: Type.String(),
  role: Role,
  createdAt: Type.Integer(),
});
export type User = Static<typeof User>;

export const LoginRequest = Type.Object({ username: Type.String(), password: Type.String() });
export type LoginRequest = Static<typeof LoginRequest>;

export const LoginResponse = Type.Object({ token: Type.String(), user: User });
export type LoginResponse = Static<typeof LoginResponse>;

export const AuthMode = Type.Object({ authRequired: Type.Boolean() });
export type AuthMode = Static<typeof AuthMode>;

export const WsTicket = Type.Object({ ticket: Type.String(), expiresAt: Type.Integer() });
export type WsTicket = Static<typeof WsTicket>;

export const CreateUserRequest = Type.Object({
  username: Type.String(),
  email: Type.String(),
  password: Type.String(),
  role: Type.Optional(Type.String()),
});
export type CreateUserRequest = Static<typeof CreateUserRequest>;

export const PasswordChangeRequest = Type.Object({ password: Type.String() });
export type PasswordChangeRequest = Static<typeof PasswordChangeRequest>;

export const EmailChangeRequest = Type.Object({ email: Type.String() });
export type EmailChangeRequest = Static<typeof EmailChangeRequest>;

export const RoleChangeRequest = Type.Object({ role: Type.String() });
export type RoleChangeRequest = Static<typeof RoleChangeRequest>;

export const UserParams = Type.Object({ name: Type.String() });
export type UserParams = Static<typeof UserParams>;

/**
 * Why an email address is refused, or null: one `@` between a non-empty local part and a domain of
 * non-empty dot-separated labels, no whitespace or control characters, at most 320 characters. A domain
 * without a dot (`admin@localhost`) is accepted: small installations use one.
 */
export function emailProblem(email: string): string | null {
  if (email.length > EMAIL_MAX_LENGTH) return `must be at most ${EMAIL_MAX_LENGTH} characters`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: an email with C0 or DEL is refused
  if (/[\s\u0000-\u001f\u007f]/u.test(email)) return 'must not contain whitespace or control characters';
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1 || email.indexOf('@') !== at)
    return 'must be an address like name@example.com';
  const domain = email.slice(at + 1);
  if (domain.split('.').some((label) => label === '')) return 'must be an address like name@example.com';
  return null;
}

/** Why a role is refused, or null. */
export function roleProblem(role: string): string | null {
  return role === 'member' || role === 'admin' ? null : 'must be member or admin';
}
