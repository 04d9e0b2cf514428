// The auth tables against both engines: users unique case-insensitively (also under a concurrent add),
// the last admin guarded, sessions and agent tokens resolved by hash in one lookup, and cascades (a
// removed user takes their sessions, a removed ship its agent token).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeEngines, type TestDatabase } from '../../test/helpers/databases.js';
import { migrate } from './migrations.js';
import { UsersStore, type UserRecord } from './users-store.js';
import { SessionsStore } from './sessions-store.js';
import { AgentTokensStore } from './agent-tokens-store.js';
import { CredentialsStore } from './credentials-store.js';
import { ShipsStore } from './ships-store.js';

const user = (
  username: string,
  email: string,
  role: 'admin' | 'member' = 'member',
  createdAt = Date.now(),
): UserRecord => ({
  id: randomUUID(),
  username,
  email,
  role,
  createdAt,
  passwordHash: '$argon2id$placeholder',
});

describe.each(storeEngines())('auth store on $name', (engine) => {
  let test: TestDatabase;
  let users: UsersStore;
  beforeAll(async () => {
    test = await engine.open();
    await migrate(test.db);
    users = new UsersStore(test.db);
  }, 60_000);
  afterAll(async () => {
    await test?.dispose();
  });

  it('keeps usernames and emails unique regardless of case, even when two adds race', async () => {
    const alice = user('Alice', 'alice@example.com', 'admin', 1000);
    expect((await users.add(alice)).ok).toBe(true);
    expect(await users.add(user('alice', 'other@example.com'))).toEqual({ ok: false, conflict: 'username' });
    expect(await users.add(user('alice2', 'ALICE@example.com'))).toEqual({ ok: false, conflict: 'email' });
    const racing = await Promise.all([
      users.add(user('bob', 'bob1@example.com')),
      users.add(user('BOB', 'bob2@example.com')),
    ]);
    expect(racing.filter((outcome) => outcome.ok)).toHaveLength(1);
    expect(racing.find((outcome) => !outcome.ok)).toEqual({ ok: false, conflict: 'username' });
    expect((await users.byUsername('ALICE'))?.id).toBe(alice.id);
    expect((await users.list()).map((u) => u.username.toLowerCase())).toEqual(['alice', 'bob']);
  });

  it('never removes or demotes the last admin, and frees them once another admin exists', async () => {
    expect(await users.remove('alice')).toEqual({ ok: false, reason: 'last-admin' });
    expect(await users.setRole('alice', 'member')).toEqual({ ok: false, reason: 'last-admin' });
    expect(await users.remove('nobody')).toEqual({ ok: false, reason: 'not-found' });
    expect((await users.setRole('bob', 'admin')).ok).toBe(true);
    const demotions = await Promise.all([users.setRole('alice', 'member'), users.setRole('bob', 'member')]);
    expect(demotions.filter((outcome) => outcome.ok)).toHaveLength(1);
    expect((await users.list()).filter((u) => u.role === 'admin')).toHaveLength(1);
  });

  it('resolves sessions, ship tokens and agent tokens by hash, and cascades removals', async () => {
    const sessions = new SessionsStore(test.db);
    const credentials = new CredentialsStore(test.db);
    const carol = user('carol', 'carol@example.com', 'member', 5000);
    await users.add(carol);
    await sessions.add({ tokenHash: 'session-hash', userId: carol.id, issuedAt: 1, expiresAt: 2_000_000_000_000 });
    expect(await credentials.lookup('session-hash')).toEqual({
      kind: 'session',
      userId: carol.id,
      username: 'carol',
      email: 'carol@example.com',
      role: 'member',
      createdAt: 5000,
      expiresAt: 2_000_000_000_000,
    });
    const ships = new ShipsStore(test.db);
    await ships.add({ name: 'ship-a', url: 'http://a', shipTokenHash: 'ship-hash', bridgeToken: 'bt' });
    expect(await credentials.lookup('ship-hash')).toEqual({ kind: 'ship', ship: 'ship-a' });
    const agents = new AgentTokensStore(test.db);
    expect(await agents.replace('ship-a', 'agent-1', 1)).toBe(true);
    expect(await agents.replace('ship-a', 'agent-2', 2)).toBe(true);
    expect(await credentials.lookup('agent-1')).toBeNull();
    expect(await credentials.lookup('agent-2')).toEqual({ kind: 'ship-agent', ship: 'ship-a' });
    expect(await agents.replace('no-such-ship', 'agent-3', 3)).toBe(false);
    expect(await credentials.lookup('unknown')).toBeNull();

    await ships.remove('ship-a');
    expect(await credentials.lookup('agent-2')).toBeNull();
    expect((await users.remove('carol')).ok).toBe(true);
    expect(await credentials.lookup('session-hash')).toBeNull();
  });

  it('drops every session of a user whose password changes', async () => {
    const sessions = new SessionsStore(test.db);
    const credentials = new CredentialsStore(test.db);
    const dave = user('dave', 'dave@example.com');
    await users.add(dave);
    await sessions.add({ tokenHash: 'd1', userId: dave.id, issuedAt: 1, expiresAt: 10 });
    await sessions.add({ tokenHash: 'd2', userId: dave.id, issuedAt: 1, expiresAt: 10 });
    expect(await users.setPassword(dave.id, '$argon2id$new')).toBe(true);
    expect(await credentials.lookup('d1')).toBeNull();
    expect(await credentials.lookup('d2')).toBeNull();
    expect((await users.byId(dave.id))?.passwordHash).toBe('$argon2id$new');
  });
});
