// How a `npx svc bridge` process serves the GUI (bridge/http/gui.ts): /ui/ and GET / answer without a
// credential while API paths still answer 401; every GUI answer carries the CSP, nosniff and no-referrer
// headers; hashed assets are cached for good, index.html revalidated, client routes fall back to
// index.html, a missing asset is 404; and in Chromium the page runs under that CSP with no violation,
// its event WebSocket included.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './gui-fleet.js';
import { chromiumAvailable, launchChromium, watchPage } from '../helpers/browser.js';
import { FLEET_ADMIN } from '../helpers/npx-fleet.js';
import { bridgeUrlIn, startNpx, type NpxProcess } from '../helpers/npx.js';
import { call, makeTempRoot, rawCall, removeRoot } from '../helpers/ship.js';

const WEB = resolve(import.meta.dirname, '../../dist/web');
const CSP =
  "default-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
let root: string;
let bridge: NpxProcess;
let url: string;

beforeAll(async () => {
  root = await makeTempRoot();
  bridge = startNpx(['bridge', '--port', '0', '--data-directory', join(root, 'bridge')], {
    SVC_BRIDGE_ADMIN_USER: FLEET_ADMIN.username,
    SVC_BRIDGE_ADMIN_EMAIL: FLEET_ADMIN.email,
    SVC_BRIDGE_ADMIN_PASSWORD: FLEET_ADMIN.password,
  });
  url = bridgeUrlIn(await bridge.waitFor(/bridge listening on http:\/\/localhost:\d+/, 60_000));
}, 90_000);
afterAll(async () => {
  await bridge?.terminateThenKill();
  if (root) await removeRoot(root);
});

function expectGuiHeaders(headers: Headers): void {
  expect(headers.get('content-security-policy')).toBe(CSP);
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('x-frame-options')).toBe('DENY');
}

describe('the GUI on a bridge process', () => {
  it('redirects / and /ui to /ui/ without a credential', async () => {
    for (const path of ['/', '/ui']) {
      const reply = await rawCall(url, 'GET', path);
      expect(reply.status).toBe(302);
      expect(reply.headers.get('location')).toBe('/ui/');
      expectGuiHeaders(reply.headers);
    }
  });

  it('serves index.html at /ui/ and for client routes, revalidated, while the API still needs a credential', async () => {
    const index = readFileSync(join(WEB, 'index.html'), 'utf8');
    for (const path of ['/ui/', '/ui/workspaces/demo/x', '/ui/ships', '/ui/workspaces/%3Cimg%3E/%E2%80%AE']) {
      const reply = await call(url, 'GET', path);
      expect(reply.status, path).toBe(200);
      expect(reply.text).toBe(index);
      expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
      expect(reply.headers.get('cache-control')).toBe('no-cache');
      expectGuiHeaders(reply.headers);
    }
    expect(index).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(index).not.toMatch(/<style|style=/);
    for (const path of ['/workspaces', '/ships', '/users', '/events', '/ui-not-the-gui']) {
      expect(await call(url, 'GET', path), path).toMatchObject({
        status: 401,
        body: { error: 'authentication required' },
      });
    }
  });

  it('serves hashed assets cached for a year, and 404s an asset the build does not have', async () => {
    const assets = readdirSync(join(WEB, 'assets'));
    expect(assets.some((name) => /^index-[\w-]{8}\.js$/.test(name))).toBe(true);
    expect(assets.some((name) => /^index-[\w-]{8}\.css$/.test(name))).toBe(true);
    for (const name of assets) {
      const reply = await call(url, 'GET', `/ui/assets/${name}`);
      expect(reply.status, name).toBe(200);
      expect(reply.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(reply.headers.get('content-type')).toMatch(
        name.endsWith('.js') ? /^application\/javascript/ : name.endsWith('.css') ? /^text\/css/ : /./,
      );
      expect(reply.text).toBe(readFileSync(join(WEB, 'assets', name), 'utf8'));
      expectGuiHeaders(reply.headers);
    }
    const missing = await call(url, 'GET', '/ui/assets/index-00000000.js');
    expect(missing).toMatchObject({ status: 404, body: { error: 'not found: /ui/assets/index-00000000.js' } });
    expectGuiHeaders(missing.headers);
  });

  it('never serves a file outside the build, whatever the path says', async () => {
    const index = readFileSync(join(WEB, 'index.html'), 'utf8');
    for (const path of [
      '/ui/../package.json',
      '/ui/%2e%2e/%2e%2e/package.json',
      '/ui/..%2Fpackage.json',
      '/ui/assets/../../bridge-data/db',
    ]) {
      const reply = await rawCall(url, 'GET', path);
      if (reply.status === 200) expect(reply.text, path).toBe(index);
      else expect(reply.status, path).toBeGreaterThanOrEqual(400);
      expect(reply.text).not.toContain('"name": "svc-fleet"');
    }
  });

  it.skipIf(!chromiumAvailable('test/web/gui-static'))(
    'runs in Chromium under its CSP with no violation, the event socket included',
    async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const watch = await watchPage(page, url);
        const response = await page.goto(`${url}/`);
        expect(page.url()).toBe(`${url}/ui/`);
        expect(response?.headers()['content-security-policy']).toBe(CSP);
        await page.getByRole('form', { name: 'sign in' }).waitFor();
        await page.getByLabel('Username').fill(FLEET_ADMIN.username);
        await page.getByLabel('Password').fill(FLEET_ADMIN.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await eventually(() => page.getByTestId('live').textContent(), 10_000).toBe('live');
        expect(await watch.cspViolations()).toEqual([]);
        expect(watch.pageErrors).toEqual([]);
        expect(watch.foreignRequests).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
