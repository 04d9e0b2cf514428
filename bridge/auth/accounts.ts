// User accounts and sessions: login and logout, tickets, and the /users operations with the rules of
// docs/architecture.md §7. Every change that revokes something revokes all of it in one place: the stored sessions, the
// authenticator's cache, unused tickets and the open sockets of that session or user (docs/security.md H19).
import { randomUUID } from 'node:crypto';
import {
  emailProblem,
  identifierProblem,
  passwordProblem,
  roleProblem,
  SESSION_LIFETIME_MS,
  type CreateUserRequest,
  type LoginResponse,
  type Role,
  type User,
  type WsTicket,
} from '../../protocol/index.js';
import { BridgeError } from '../errors.js';
import type { Store } from '../store/store.js';
import { publicUser, type UserRecord } from '../store/users-store.js';
import type { Authenticator } from './authenticator.js';
import type { Clock } from '../../protocol/clock.js';
import { LoginBackoff } from './login-backoff.js';
import { PasswordHasher } from './passwords.js';
import type { Principal } from './principal.js';
import type { TicketBook } from './tickets.js';
import { newToken, tokenHash } from '../../server/tokens.js';
import type { UserSockets } from './user-sockets.js';

export const INVALID_LOGIN = 'invalid username or password';
const invalidField = (field: string, reason: string) => new BridgeError(400, `invalid request — ${field}: ${reason}`);
const userNotFound = (name: string) => new BridgeError(404, `user not found: ${name}`);

export interface AccountsDeps {
  store: Pick<Store, 'users' | 'sessions'>;
  authenticator: Authenticator;
  tickets: TicketBook;
  sockets: UserSockets;
  clock: Clock;
  /** Time for what lives only in memory (login backoff); default `clock`. */
  memoryClock?: Clock;
  /** Waits `ms` (login backoff); injected so tests of the policy need not sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Told of each refused login (the bridge's metrics); never of who tried. */
  onLoginFailed?: () => void;
}

export interface NewUser {
  username: string;
  email: string;
  password: string;
  role?: string;
}

export class Accounts {
  private readonly hasher = new PasswordHasher();
  private readonly backoff: LoginBackoff;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: AccountsDeps) {
    this.backoff = new LoginBackoff(deps.memoryClock ?? deps.clock);
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Unknown user and wrong password answer alike, after the same argon2 work. */
  async login(username: string, password: string, address: string): Promise<LoginResponse> {
    const delay = this.backoff.delayMs(username, address);
    if (delay > 0) await this.sleep(delay);
    // No stored name holds a NUL (identifiers refuse control characters), and the database refuses one.
    const user = username.includes('\u0000') ? null : await this.deps.store.users.byUsername(username);
    const valid = user
      ? await this.hasher.verify(user.passwordHash, password)
      : await this.hasher.verifyDummy(password);
    if (!user || !valid) {
      this.backoff.failed(username, address);
      this.deps.onLoginFailed?.();
      throw new BridgeError(401, INVALID_LOGIN);
    }
    this.backoff.succeeded(username);
    const token = newToken();
    const now = this.deps.clock();
    await this.deps.store.sessions.pruneExpired(user.id, now);
    await this.deps.store.sessions.add({
      tokenHash: tokenHash(token),
      userId: user.id,
      issuedAt: now,
      expiresAt: now + SESSION_LIFETIME_MS,
    });
    return { token, user: publicUser(user) };
  }

  /** Revokes the presented session, if it is one; never fails. */
  async logout(principal: Principal | null): Promise<void> {
    if (principal?.kind !== 'user' || !principal.sessionHash) return;
    const hash = principal.sessionHash;
    await this.deps.store.sessions.remove(hash);
    this.deps.authenticator.forgetSession(hash);
    this.deps.tickets.revokeSession(hash);
    this.deps.sockets.closeSession(hash, 'session ended');
  }

  issueTicket(principal: Principal | null): WsTicket {
    if (principal?.kind !== 'user') throw new BridgeError(403, 'a WebSocket ticket is issued to users only');
    return this.deps.tickets.issue(principal);
  }

  async list(): Promise<User[]> {
    return (await this.deps.store.users.list()).map(publicUser);
  }

  async create(input: CreateUserRequest | NewUser): Promise<User> {
    const role = this.checkNewUser(input);
    const record: UserRecord = {
      id: randomUUID(),
      username: input.username,
      email: input.email,
      role,
      createdAt: this.deps.clock(),
      passwordHash: await this.hasher.hash(input.password),
    };
    const outcome = await this.deps.store.users.add(record);
    if (!outcome.ok) {
      throw outcome.conflict === 'username'
        ? new BridgeError(409, `user already exists: ${input.username}`)
        : new BridgeError(409, `email already in use: ${input.email}`);
    }
    return publicUser(outcome.user);
  }

  /** The fields of a new user, validated as the routes answer them; the role to give. */
  private checkNewUser(input: NewUser): Role {
    const usernameProblem = identifierProblem(input.username);
    if (usernameProblem) throw invalidField('username', usernameProblem);
    const mailProblem = emailProblem(input.email);
    if (mailProblem) throw invalidField('email', mailProblem);
    const secretProblem = passwordProblem(input.password);
    if (secretProblem) throw invalidField('password', secretProblem);
    const role = input.role ?? 'member';
    const badRole = roleProblem(role);
    if (badRole) throw invalidField('role', badRole);
    return role as Role;
  }

  async remove(username: string): Promise<void> {
    const outcome = await this.deps.store.users.remove(username);
    if (!outcome.ok) {
      throw outcome.reason === 'not-found'
        ? userNotFound(username)
        : new BridgeError(409, `cannot remove the last admin: ${username}`);
    }
    this.revokeUser(outcome.value.id, 'user removed');
  }

  async setRole(username: string, role: string): Promise<User> {
    const badRole = roleProblem(role);
    if (badRole) throw invalidField('role', badRole);
    const outcome = await this.deps.store.users.setRole(username, role as Role);
    if (!outcome.ok) {
      throw outcome.reason === 'not-found'
        ? userNotFound(username)
        : new BridgeError(409, `cannot demote the last admin: ${username}`);
    }
    // Sessions stay valid under the new role; what was opened under the old one is closed.
    this.deps.authenticator.forgetUser(outcome.value.id);
    this.deps.tickets.revokeUser(outcome.value);
    this.deps.sockets.closeUser(outcome.value.id, 'role changed');
    return publicUser(outcome.value);
  }

  /** Sets the password and ends every session of that user (the caller's own included). */
  async setPassword(username: string, password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw invalidField('password', problem);
    const user = await this.deps.store.users.byUsername(username);
    if (!user) throw userNotFound(username);
    await this.deps.store.users.setPassword(user.id, await this.hasher.hash(password));
    this.revokeUser(user.id, 'password changed');
  }

  async setEmail(username: string, email: string): Promise<User> {
    const problem = emailProblem(email);
    if (problem) throw invalidField('email', problem);
    const user = await this.deps.store.users.byUsername(username);
    if (!user) throw userNotFound(username);
    const updated = await this.deps.store.users.setEmail(user.id, email);
    if (updated === 'email') throw new BridgeError(409, `email already in use: ${email}`);
    if (!updated) throw userNotFound(username);
    this.deps.authenticator.forgetUser(user.id);
    return publicUser(updated);
  }

  private revokeUser(userId: string, reason: string): void {
    this.deps.authenticator.forgetUser(userId);
    this.deps.tickets.revokeUser({ id: userId });
    this.deps.sockets.closeUser(userId, reason);
  }
}
