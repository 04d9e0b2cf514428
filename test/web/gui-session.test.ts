// The GUI's session against real `npx svc` processes in Chromium: the sign-in gate, logging in (the token
// lands in localStorage `svc.bridge.token`), the live workspace list following the API without a reload,
// a revoked session returning the page to the gate, and signing out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../helpers/browser.js';
import { FLEET_ADMIN } from '../helpers/npx-fleet.js';
import { startGuiFleet, type GuiFleet, eventually } from './gui-fleet.js';

const found = chromiumAvailable('test/web/gui-session');
let gui: GuiFleet;

beforeAll(async () => {
  if (found) gui = await startGuiFleet('session-ship');
}, 180_000);
afterAll(async () => {
  await gui?.stop();
});

const storedToken = (page: import('playwright-core').Page) =>
  page.evaluate(() => window.localStorage.getItem('svc.bridge.token'));

describe.skipIf(!found)('the GUI session', () => {
  it('gates, logs in, and shows a workspace created and then activated through the API, live', async () => {
    const { page, watch } = await gui.open('/ui/workspaces');
    expect((await gui.api('GET', '/auth/mode')).body).toEqual({ authRequired: true });
    await page.getByRole('form', { name: 'sign in' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'main' }).count()).toBe(0);

    // A wrong password is the bridge's own message, and no token is stored.
    const form = page.getByRole('form', { name: 'sign in' });
    await form.getByLabel('Username').fill(FLEET_ADMIN.username);
    await form.getByLabel('Password').fill('not-the-password');
    await form.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => form.getByRole('alert').textContent()).toBe('invalid username or password');
    expect(await storedToken(page)).toBeNull();

    const created = await gui.api('POST', '/workspaces', {
      ship: 'session-ship',
      repoName: 'demo',
      name: 'live-one',
      branch: 'feature',
    });
    expect(created.status).toBe(201);
    await gui.signIn(page);
    const token = await storedToken(page);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await page.getByTestId('whoami').textContent()).toBe(FLEET_ADMIN.username);

    const row = page.locator('tr[data-key="demo/live-one"]');
    await row.waitFor();
    expect(await row.locator('td').nth(1).textContent()).toBe('session-ship');
    expect(await row.locator('td').nth(2).textContent()).toBe('feature');
    expect(await row.locator('td.state').textContent()).toBe('inactive');
    await eventually(() => page.getByTestId('live').textContent()).toBe('live');

    // No reload from here on: a marker on window survives only in the same document.
    await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same document'));
    expect((await gui.api('POST', '/workspaces/demo/live-one/activate')).status).toBe(200);
    await eventually(() => row.locator('td.state').textContent(), 10_000).toBe('active');
    expect(await row.getByRole('link', { name: 'Terminal' }).count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same document');

    // Removed through the API: gone from the list, still without a reload.
    expect((await gui.api('DELETE', '/workspaces/demo/live-one')).status).toBe(200);
    await eventually(() => row.count(), 10_000).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same document');
    expect(watch.dialogs).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);
  }, 90_000);

  it('returns to the gate when its session is revoked through the API, and forgets the token', async () => {
    const { page } = await gui.open();
    await gui.signIn(page);
    await eventually(() => page.getByTestId('live').textContent()).toBe('live');
    const token = (await storedToken(page))!;
    expect((await gui.api('GET', '/auth/me', undefined, token)).status).toBe(200);
    await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same document'));

    // Revoking the session closes its sockets (docs/security.md H19); the list reconnects, its ticket is 401.
    expect((await gui.api('POST', '/auth/logout', undefined, token)).status).toBe(200);
    await page.getByRole('form', { name: 'sign in' }).waitFor({ timeout: 15_000 });
    expect(await page.getByText('Your session has ended. Sign in again.').count()).toBe(1);
    expect(await storedToken(page)).toBeNull();
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same document');
  }, 60_000);

  it('a 401 on a page load (a stale stored token) also shows the gate', async () => {
    const { page, context } = await gui.open();
    await gui.signIn(page);
    const token = (await storedToken(page))!;
    expect((await gui.api('POST', '/auth/logout', undefined, token)).status).toBe(200);
    const second = await context.newPage();
    await second.goto(`${gui.fleet.bridgeUrl}/ui/ships`);
    await second.getByRole('form', { name: 'sign in' }).waitFor({ timeout: 15_000 });
    expect(await second.evaluate(() => window.localStorage.getItem('svc.bridge.token'))).toBeNull();
  }, 60_000);

  it('signs out: the session is revoked on the bridge and the token removed', async () => {
    const { page } = await gui.open();
    await gui.signIn(page);
    const token = (await storedToken(page))!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('form', { name: 'sign in' }).waitFor();
    expect(await page.getByText('Signed out.').count()).toBe(1);
    expect(await storedToken(page)).toBeNull();
    const me = await gui.api('GET', '/auth/me', undefined, token);
    expect(me).toMatchObject({ status: 401, body: { error: 'authentication required' } });
  }, 60_000);
});
