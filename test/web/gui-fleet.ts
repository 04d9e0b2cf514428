// A fleet for the GUI tests, started the way a user starts one: `npx svc bridge` (authentication on, the
// first admin from the environment) and `npx svc ship`, with a real bare git repo registered, plus Chromium.
// Helpers sign the browser in through the real sign-in gate and call the API as the admin.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { FLEET_ADMIN, startNpxFleet, type NpxFleet, type NpxFleetEnv } from '../helpers/npx-fleet.js';
import { call, makeTempRoot, removeRoot, type Reply } from '../helpers/ship.js';
import { launchChromium, watchPage, type PageWatch } from '../helpers/browser.js';

export interface GuiFleet {
  root: string;
  fleet: NpxFleet;
  remote: RemoteFixture;
  browser: Browser;
  /** The admin's API call (its own session, not the browser's). */
  api<T = any>(method: string, path: string, body?: unknown, token?: string): Promise<Reply<T>>;
  /** A fresh browser context (empty local storage) on /ui/, watched. */
  open(path?: string): Promise<{ context: BrowserContext; page: Page; watch: PageWatch }>;
  /** Signs the page in through the gate as `username`. */
  signIn(page: Page, username?: string, password?: string): Promise<void>;
  stop(): Promise<void>;
}

/** `prepare` runs in the temp root before the processes start and may give them extra environment. */
export async function startGuiFleet(
  ship: string,
  prepare?: (root: string, remote: RemoteFixture) => Promise<NpxFleetEnv>,
): Promise<GuiFleet> {
  const root = await makeTempRoot();
  const remote = makeRemote(root);
  let fleet: NpxFleet | undefined;
  let browser: Browser | undefined;
  try {
    const env = prepare ? await prepare(root, remote) : {};
    fleet = await startNpxFleet(root, ship, { demo: remote.url }, env);
    browser = await launchChromium();
  } catch (error) {
    await browser?.close();
    await fleet?.stop();
    await removeRoot(root);
    throw error;
  }
  const started = fleet;
  const chromium = browser;
  const contexts: BrowserContext[] = [];
  return {
    root,
    fleet: started,
    remote,
    browser: chromium,
    api: (method, path, body, token = started.token) =>
      call(started.bridgeUrl, method, path, body, { authorization: `Bearer ${token}` }),
    async open(path = '/ui/') {
      const context = await chromium.newContext({ viewport: { width: 1280, height: 800 } });
      contexts.push(context);
      const page = await context.newPage();
      const watch = await watchPage(page, started.bridgeUrl);
      await page.goto(started.bridgeUrl + path);
      return { context, page, watch };
    },
    async signIn(page, username = FLEET_ADMIN.username, password = FLEET_ADMIN.password) {
      const form = page.getByRole('form', { name: 'sign in' });
      await form.getByLabel('Username').fill(username);
      await form.getByLabel('Password').fill(password);
      await form.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'main' }).waitFor();
    },
    async stop() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await chromium.close().catch(() => undefined);
      await started.stop();
      await removeRoot(root);
    },
  };
}

/**
 * `expect.poll` with room for a loaded 2-core CI machine (vitest's default gives up after 1 s): the browser,
 * the bridge and the ship share the cores with the rest of the suite.
 */
export function eventually<T>(read: () => T | Promise<T>, timeoutMs = 15_000) {
  return expect.poll(read, { timeout: timeoutMs, interval: 100 });
}

/** A terminal page's xterm.js rows in view, as the user sees them: one string per row, trailing blanks trimmed. */
export const screenRows = (page: Page) =>
  page
    .locator('.xterm-rows > div')
    .evaluateAll((rows) => rows.map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()));
