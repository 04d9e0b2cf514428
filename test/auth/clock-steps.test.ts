// docs/security.md X10, the step backwards: a bridge whose wall clock is set back an hour gives no
// session and no WebSocket ticket any extra time. Its own bridge, because the clock here goes backwards
// (the other auth suites only move it forward).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_LIFETIME_MS, WS_TICKET_LIFETIME_MS } from '../../protocol/index.js';
import { makeTempRoot, removeRoot } from '../helpers/ship.js';
import { ADMIN, startAuthBridge, type AuthHarness } from './harness.js';

const HOUR_MS = 3_600_000;
let root: string;
let h: AuthHarness;

beforeAll(async () => {
  root = await makeTempRoot();
  h = await startAuthBridge(root);
}, 60_000);

afterAll(async () => {
  await h?.bridge.close();
  await removeRoot(root);
});

describe('a wall clock set back an hour', () => {
  it('extends no session: it still ends when its 30 days have passed at the clock pace', async () => {
    const token = await h.login(ADMIN.username, ADMIN.password);
    const issued = h.clock.now;
    h.clock.now = issued + SESSION_LIFETIME_MS - 1;
    expect((await h.as(token, 'GET', '/auth/me')).status).toBe(200);
    h.clock.now -= HOUR_MS;
    expect((await h.as(token, 'GET', '/auth/me')).status).toBe(200);
    // One more millisecond at the clock's pace: the session's 30 days are up, the hour notwithstanding.
    h.clock.now += 1;
    expect((await h.as(token, 'GET', '/auth/me')).status).toBe(401);
  });

  it('extends no ticket', async () => {
    const token = await h.login(ADMIN.username, ADMIN.password);
    const issued = h.clock.now;
    const ticket = await h.ticket(token);
    h.clock.now = issued + WS_TICKET_LIFETIME_MS - 1;
    // The bridge reads its clock on every request: this one sees the last millisecond of the ticket.
    expect((await h.as(token, 'GET', '/auth/me')).status).toBe(200);
    h.clock.now -= HOUR_MS;
    expect((await h.as(token, 'GET', '/auth/me')).status).toBe(200);
    h.clock.now += 1;
    expect(await h.upgrade(`/events?ticket=${ticket}`)).toEqual({ status: 401 });
  });
});
