// The GUI on `npx svc bridge --insecure-no-auth`: no sign-in gate (GET /auth/mode says authRequired false),
// every page usable at once, the insecure mode named in the navigation, and the live list working with
// the tickets such a bridge ignores.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './gui-fleet.js';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchChromium, watchPage } from '../helpers/browser.js';
import { bridgeUrlIn, startNpx, type NpxProcess } from '../helpers/npx.js';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';

const found = chromiumAvailable('test/web/gui-insecure');
let root: string;
let bridge: NpxProcess;
let browser: Browser;
let url: string;

beforeAll(async () => {
  if (!found) return;
  root = await makeTempRoot();
  bridge = startNpx(['bridge', '--port', '0', '--data-directory', join(root, 'bridge'), '--insecure-no-auth']);
  url = bridgeUrlIn(await bridge.waitFor(/bridge listening on http:\/\/localhost:\d+/, 60_000));
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await bridge?.terminateThenKill();
  if (root) await removeRoot(root);
});

describe.skipIf(!found)('the GUI without authentication', () => {
  it('has no gate: the pages load at once and say authentication is off', async () => {
    expect((await call(url, 'GET', '/auth/mode')).body).toEqual({ authRequired: false });
    const page = await browser.newPage();
    const watch = await watchPage(page, url);
    await page.goto(`${url}/ui/`);
    const nav = page.getByRole('navigation', { name: 'main' });
    await nav.waitFor();
    expect(await page.getByRole('form', { name: 'sign in' }).count()).toBe(0);
    expect(await nav.getByText('no authentication').count()).toBe(1);
    expect(await nav.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(await page.getByTestId('whoami').textContent()).toBe('admin');
    await eventually(() => page.getByTestId('live').textContent(), 10_000).toBe('live');
    expect(await page.evaluate(() => window.localStorage.getItem('svc.bridge.token'))).toBeNull();
    await nav.getByRole('link', { name: 'Users' }).click();
    await eventually(() => page.getByRole('region', { name: 'users' }).textContent()).toContain('Add user');
    expect(await watch.cspViolations()).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
  }, 60_000);
});
