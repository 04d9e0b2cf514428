// Credential lifecycles on a real bridge with an injected clock: login answers, session expiry at exactly
// 30 days, logout, password change and user removal revoking sessions, tickets (30 s, single-use, only on a
// genuine upgrade, void after logout), sockets closed with 1008 on revocation, and the /users rules.
import { pbkdf2 } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_LIFETIME_MS, WS_TICKET_LIFETIME_MS } from '../../protocol/index.js';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';
import { ADMIN, startAuthBridge, type AuthHarness } from './harness.js';

let root: string;
let h: AuthHarness;
let admin: string;

beforeAll(async () => {
  root = await makeTempRoot();
  h = await startAuthBridge(root);
  admin = await h.login(ADMIN.username, ADMIN.password);
}, 60_000);

afterAll(async () => {
  await h?.bridge.close();
  await removeRoot(root);
});

describe('login', () => {
  it('answers a token and the user, never a hash', async () => {
    const reply = await h.as(null, 'POST', '/auth/login', { username: 'ROOT', password: ADMIN.password });
    expect(reply.status).toBe(200);
    expect(reply.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(reply.body.user).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      username: 'root',
      email: ADMIN.email,
      role: 'admin',
      createdAt: expect.any(Number),
    });
    expect(reply.text).not.toMatch(/argon2|hash/i);
  });

  it('answers an unknown user and a wrong password alike, and about as slowly', async () => {
    const unknown = await h.as(null, 'POST', '/auth/login', { username: 'nobody', password: 'whatever-password' });
    const wrong = await h.as(null, 'POST', '/auth/login', { username: 'root', password: 'wrong-password' });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ error: 'invalid username or password' });
    expect(wrong.text).toBe(unknown.text);
    // Interleaved, so both see the same machine noise. Skipping the hash for an unknown user would make it
    // answer in about a millisecond against tens for a real check (ratio under 0.1); the bounds leave room
    // for a busy two-core machine.
    const known: number[] = [];
    const missing: number[] = [];
    const time = async (username: string, into: number[], i: number) => {
      const start = performance.now();
      await h.as(null, 'POST', '/auth/login', { username, password: `wrong-${i}` });
      into.push(performance.now() - start);
    };
    for (let i = 0; i < 4; i++) {
      await time('root', known, i);
      await time(`ghost-${i}`, missing, i);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    expect(median(missing) / median(known)).toBeGreaterThan(0.25);
    expect(median(missing) / median(known)).toBeLessThan(4);
  });

  it('is required, as GET /auth/mode says to anyone', async () => {
    expect((await h.as(null, 'GET', '/auth/mode')).body).toEqual({ authRequired: true });
  });

  it('is 422 without a field', async () => {
    expect((await h.as(null, 'POST', '/auth/login', { username: 'root' })).status).toBe(422);
  });

  it('backs off after repeated failures for one user', async () => {
    const victim = await h.addUser(admin, 'victim');
    for (let i = 0; i < 5; i++)
      await h.as(null, 'POST', '/auth/login', { username: 'victim', password: 'bad-password' });
    const start = performance.now();
    const after = await h.as(null, 'POST', '/auth/login', { username: 'victim', password: victim.password });
    expect(performance.now() - start).toBeGreaterThanOrEqual(950);
    expect(after.status).toBe(200);
    // The success cleared the count.
    const quick = performance.now();
    await h.as(null, 'POST', '/auth/login', { username: 'victim', password: victim.password });
    expect(performance.now() - quick).toBeLessThan(900);
    // Past the backoff's memory, so this address starts the next tests with a clean slate.
    h.clock.now += 16 * 60_000;
  });
});

describe('a login burst', () => {
  it('past 4 running + 8 waiting password checks answers 503 with Retry-After', async () => {
    const user = await h.addUser(admin, 'burst');
    // The bridge runs in this process: occupying every libuv pool thread (where argon2 runs) with a slow
    // key derivation holds the first 4 checks running, so the burst meets a full queue however fast this
    // machine hashes.
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const blockers = Array.from(
      { length: threads },
      () => new Promise((resolve) => pbkdf2('x', 'y', 3_000_000, 64, 'sha512', resolve)),
    );
    // (an address, not `localhost`: name lookups run on that pool too)
    const direct = h.bridge.url.replace('localhost', '127.0.0.1');
    const replies = await Promise.all(
      Array.from({ length: 40 }, () =>
        call(direct, 'POST', '/auth/login', { username: 'burst', password: user.password }),
      ),
    );
    await Promise.all(blockers);
    const busy = replies.filter((reply) => reply.status === 503);
    expect(busy).toHaveLength(28);
    for (const reply of busy) {
      expect(reply.headers.get('retry-after')).toBe('1');
      expect(reply.body).toEqual({ error: 'too many password checks in progress; retry shortly' });
    }
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(12);
    expect(replies.every((reply) => reply.status === 200 || reply.status === 503)).toBe(true);
  });
});

describe('sessions', () => {
  it('expire exactly 30 days after issue, used or not', async () => {
    const token = await h.login(ADMIN.username, ADMIN.password);
    const issued = h.clock.now;
    expect((await h.as(token, 'GET', '/auth/me')).status).toBe(200);
    h.clock.now = issued + SESSION_LIFETIME_MS - 1;
    expect((await h.as(token, 'GET', '/auth/me')).status).toBe(200);
    h.clock.now = issued + SESSION_LIFETIME_MS;
    expect((await h.as(token, 'GET', '/auth/me')).status).toBe(401);
    // The clock only moves forward in this suite; the admin needs a session of the new day.
    admin = await h.login(ADMIN.username, ADMIN.password);
  });

  it('end at logout; logout without a session still answers ok', async () => {
    const token = await h.login(ADMIN.username, ADMIN.password);
    expect(await h.as(token, 'POST', '/auth/logout')).toMatchObject({ status: 200, body: { ok: true } });
    expect((await h.as(token, 'GET', '/auth/me')).status).toBe(401);
    expect(await h.as(null, 'POST', '/auth/logout')).toMatchObject({ status: 200, body: { ok: true } });
    expect(await h.as('garbage', 'POST', '/auth/logout')).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('all end when the password changes, and the new password works', async () => {
    const user = await h.addUser(admin, 'changer');
    const first = await h.login(user.username, user.password);
    const second = await h.login(user.username, user.password);
    expect(await h.as(first, 'POST', '/users/changer/password', { password: 'brand-new-password' })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    expect((await h.as(first, 'GET', '/auth/me')).status).toBe(401);
    expect((await h.as(second, 'GET', '/auth/me')).status).toBe(401);
    expect((await h.as(null, 'POST', '/auth/login', { username: 'changer', password: user.password })).status).toBe(
      401,
    );
    expect((await h.login('changer', 'brand-new-password')).length).toBe(43);
  });

  it('end with their user', async () => {
    const user = await h.addUser(admin, 'leaver');
    const token = await h.login(user.username, user.password);
    expect(await h.as(admin, 'DELETE', '/users/leaver')).toMatchObject({ status: 200, body: { ok: true } });
    expect((await h.as(token, 'GET', '/auth/me')).status).toBe(401);
  });
});

describe('WebSocket tickets', () => {
  it('open /events once, and never again', async () => {
    const t = await h.ticket(admin);
    const first = await h.upgrade(`/events?ticket=${t}`);
    expect('socket' in first).toBe(true);
    if ('socket' in first) first.socket.close();
    expect(await h.upgrade(`/events?ticket=${t}`)).toEqual({ status: 401 });
  });

  it('expire 30 s after issue', async () => {
    const issued = h.clock.now;
    const early = await h.ticket(admin);
    const late = await h.ticket(admin);
    h.clock.now = issued + WS_TICKET_LIFETIME_MS - 1;
    const ok = await h.upgrade(`/events?ticket=${early}`);
    expect('socket' in ok).toBe(true);
    if ('socket' in ok) ok.socket.close();
    h.clock.now = issued + WS_TICKET_LIFETIME_MS;
    expect(await h.upgrade(`/events?ticket=${late}`)).toEqual({ status: 401 });
  });

  it('neither authenticate nor get spent on a plain GET', async () => {
    const t = await h.ticket(admin);
    expect((await h.as(null, 'GET', `/workspaces?ticket=${t}`)).status).toBe(401);
    expect((await h.as(null, 'GET', `/events?ticket=${t}`)).status).toBe(401);
    const opened = await h.upgrade(`/events?ticket=${t}`);
    expect('socket' in opened).toBe(true);
    if ('socket' in opened) opened.socket.close();
  });

  it('die when the session that minted them expires', async () => {
    const token = await h.login(ADMIN.username, ADMIN.password);
    h.clock.now += SESSION_LIFETIME_MS - 10_000;
    const t = await h.ticket(token);
    // 15 s later the ticket is within its own 30 s, its session is not.
    h.clock.now += 15_000;
    expect(await h.upgrade(`/events?ticket=${t}`)).toEqual({ status: 401 });
    admin = await h.login(ADMIN.username, ADMIN.password);
  });

  it('die with the session that minted them', async () => {
    const token = await h.login(ADMIN.username, ADMIN.password);
    const t = await h.ticket(token);
    await h.as(token, 'POST', '/auth/logout');
    expect(await h.upgrade(`/events?ticket=${t}`)).toEqual({ status: 401 });
  });

  it('let exactly one of 50 parallel upgrades through', async () => {
    const t = await h.ticket(admin);
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => h.upgrade(`/events?ticket=${t}`)));
    const opened = outcomes.filter((outcome) => 'socket' in outcome);
    expect(opened).toHaveLength(1);
    expect(outcomes.filter((outcome) => 'status' in outcome && outcome.status === 401)).toHaveLength(49);
    for (const outcome of opened) if ('socket' in outcome) outcome.socket.close();
  });
});

describe('revocation closes open sockets', () => {
  const openEvents = async (token: string) => {
    const opened = await h.upgrade(`/events?ticket=${await h.ticket(token)}`);
    if (!('socket' in opened)) throw new Error(`refused with ${opened.status}`);
    return {
      socket: opened.socket,
      closed: new Promise<number>((resolve) => opened.socket.once('close', (code) => resolve(code))),
    };
  };

  it('on logout, user removal and role change, with 1008', async () => {
    const user = await h.addUser(admin, 'watcher');
    let token = await h.login(user.username, user.password);
    let events = await openEvents(token);
    await h.as(token, 'POST', '/auth/logout');
    expect(await events.closed).toBe(1008);

    token = await h.login(user.username, user.password);
    events = await openEvents(token);
    await h.as(admin, 'POST', '/users/watcher/role', { role: 'admin' });
    expect(await events.closed).toBe(1008);
    // The session itself survives a role change, with the new role.
    expect((await h.as(token, 'GET', '/users')).status).toBe(200);

    events = await openEvents(token);
    await h.as(admin, 'DELETE', '/users/watcher');
    expect(await events.closed).toBe(1008);
  });
});

describe('/users', () => {
  it('creates users and lists them oldest first', async () => {
    h.clock.now += 1000;
    const created = await h.as(admin, 'POST', '/users', {
      username: 'zed',
      email: 'zed@example.com',
      password: 'zed-password',
    });
    expect(created).toMatchObject({ status: 201, body: { username: 'zed', email: 'zed@example.com', role: 'member' } });
    const listed = (await h.as(admin, 'GET', '/users')).body as Array<{ username: string; createdAt: number }>;
    expect(listed[0]!.username).toBe('root');
    expect(listed.at(-1)!.username).toBe('zed');
    expect(JSON.stringify(listed)).not.toMatch(/password|argon/);
  });

  it('refuses duplicates case-insensitively', async () => {
    expect(
      await h.as(admin, 'POST', '/users', { username: 'ZED', email: 'other@example.com', password: 'zed-password' }),
    ).toMatchObject({
      status: 409,
      body: { error: 'user already exists: ZED' },
    });
    expect(
      await h.as(admin, 'POST', '/users', { username: 'zed2', email: 'ZED@example.com', password: 'zed-password' }),
    ).toMatchObject({
      status: 409,
      body: { error: 'email already in use: ZED@example.com' },
    });
  });

  it('answers bad field values with 400 naming the field', async () => {
    const attempt = (body: Record<string, unknown>) =>
      h.as(admin, 'POST', '/users', {
        username: 'newbie',
        email: 'newbie@example.com',
        password: 'long-enough',
        ...body,
      });
    expect((await attempt({ username: 'a/b' })).body).toEqual({
      error: 'invalid request — username: must not contain path separators',
    });
    expect((await attempt({ email: 'not-an-email' })).body).toEqual({
      error: 'invalid request — email: must be an address like name@example.com',
    });
    expect((await attempt({ email: `${'x'.repeat(310)}@example.com` })).body).toEqual({
      error: 'invalid request — email: must be at most 320 characters',
    });
    expect((await attempt({ password: 'short' })).body).toEqual({
      error: 'invalid request — password: must be at least 8 characters',
    });
    expect((await attempt({ password: 'x'.repeat(1025) })).body).toEqual({
      error: 'invalid request — password: must be at most 1024 characters',
    });
    expect((await attempt({ role: 'owner' })).body).toEqual({
      error: 'invalid request — role: must be member or admin',
    });
    expect((await attempt({ role: 'owner' })).status).toBe(400);
    expect((await h.as(admin, 'GET', '/users')).body.some((u: { username: string }) => u.username === 'newbie')).toBe(
      false,
    );
  });

  it('never removes or demotes the last admin', async () => {
    expect(await h.as(admin, 'DELETE', '/users/root')).toMatchObject({
      status: 409,
      body: { error: 'cannot remove the last admin: root' },
    });
    expect(await h.as(admin, 'POST', '/users/root/role', { role: 'member' })).toMatchObject({
      status: 409,
      body: { error: 'cannot demote the last admin: root' },
    });
    expect(await h.as(admin, 'DELETE', '/users/nobody')).toMatchObject({
      status: 404,
      body: { error: 'user not found: nobody' },
    });
  });

  it("lets an admin change another user's email, and refuses one in use", async () => {
    expect(await h.as(admin, 'POST', '/users/zed/email', { email: 'zed-new@example.com' })).toMatchObject({
      status: 200,
      body: { email: 'zed-new@example.com' },
    });
    expect(await h.as(admin, 'POST', '/users/zed/email', { email: 'ROOT@example.com' })).toMatchObject({
      status: 409,
      body: { error: 'email already in use: ROOT@example.com' },
    });
  });
});

describe('logs', () => {
  it('never show a password or a token handled in this suite', () => {
    const logs = h.logs();
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of h.secrets) expect(logs).not.toContain(secret);
  });
});
