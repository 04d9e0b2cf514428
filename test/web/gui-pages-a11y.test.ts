// Every GUI page is accessible by role and name (issue #31), in Chromium against `npx svc` processes with
// the fake GitHub forge behind the bridge, an armory, a workspace whose agent asks a question, and a member
// beside the admin. Signed out (the gate) and signed in as admin and as member, in light and dark colour
// schemes: axe-core finds no serious or critical violation (WCAG 2.1 A/AA, contrast included), every page
// has exactly one <h1>, and no two controls in one region (the navigation, the page, an open dialog) share
// an accessible name, and the page is drawn in the scheme asked for (its background dark in dark, light in
// light). The command palette and the shortcuts overlay are checked as pages of their own.
// With SVC_GUI_SCREENSHOTS=<dir>, each page is also saved there as <who>-<scheme>-<page>.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../fakes/github.js';
import { putArmoryFile } from '../helpers/armory.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { cloneHome, startBackedForge } from '../helpers/github-clone.js';
import { call, path } from '../helpers/ship.js';
import { until } from '../helpers/poll.js';
import { accessibilityViolations, duplicateNames, headingOnes } from './axe.js';
import { startGuiFleet, type GuiFleet, eventually } from './gui-fleet.js';

const found = chromiumAvailable('test/web/gui-pages-a11y');
const TOKEN = 'ghp_gui_a11y_token_13579';
const GITHUB_URL = 'https://github.example/acme/widget.git';
const MEMBER = { username: 'mia', password: 'mia-password-1' };
const SHOTS = process.env.SVC_GUI_SCREENSHOTS;
let gui: GuiFleet;
let fake: FakeGitHub | undefined;

beforeAll(async () => {
  if (!found) return;
  gui = await startGuiFleet('a11y-ship', async (root, remote) => {
    fake = await startBackedForge(remote.bare, TOKEN);
    fake.addIssue({ title: 'Add dark mode' });
    fake.addIssue({ title: 'Crash on empty config' });
    const armory = join(root, 'bridge-data', 'armory');
    putArmoryFile(armory, 'skills/review/SKILL.md', '# Review\nRead the diff twice.\n');
    putArmoryFile(armory, 'plugins/lint/bin/run', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0xff, 0xfe, 0x00]), 0o755);
    putArmoryFile(armory, 'dotfiles/gitconfig', '[user]\n\tname = agent\n');
    putArmoryFile(armory, 'dotfile-map.json', JSON.stringify({ gitconfig: '~/.gitconfig' }));
    return {
      bridge: { SVC_GITHUB_API_URL: fake.url, SVC_GITHUB_TOKEN: TOKEN },
      ship: { HOME: cloneHome(root, remote.bare, GITHUB_URL) },
    };
  });
  expect((await gui.api('POST', '/repos', { name: 'widget', url: GITHUB_URL, provider: 'github' })).status).toBe(201);
  expect(
    (
      await gui.api('POST', '/users', {
        username: MEMBER.username,
        email: 'mia@example.com',
        password: MEMBER.password,
        role: 'member',
      })
    ).status,
  ).toBe(201);
  expect(
    (await gui.api('POST', '/workspaces', { ship: 'a11y-ship', repoName: 'demo', name: 'asking', branch: 'main' }))
      .status,
  ).toBe(201);
  expect(
    (await gui.api('POST', '/workspaces', { ship: 'a11y-ship', repoName: 'demo', name: 'resting', branch: 'feature' }))
      .status,
  ).toBe(201);
  expect((await gui.api('POST', `${path('demo', 'asking')}/activate`)).status).toBe(200);
  const ship = gui.fleet.shipUrl;
  expect(
    (await call(ship, 'POST', `${path('demo', 'asking')}/agent/init`, { model: 'm', provider: 'p', harness: 'h' }))
      .status,
  ).toBe(200);
  expect(
    (
      await call(ship, 'POST', `${path('demo', 'asking')}/agent/status`, {
        state: 'awaiting',
        description: 'Which database?',
      })
    ).status,
  ).toBe(200);
  // The ship has no ship token, so its pull is refused: the armory page shows that error in full.
  await until(
    async () =>
      ((await gui.api('GET', '/armory/ships')).body as Array<{ state: { lastError: string | null } | null }>)[0]?.state
        ?.lastError ?? null,
    'the ship tried the armory',
    20_000,
  );
}, 180_000);
afterAll(async () => {
  await gui?.stop();
  await fake?.stop();
});

interface Check {
  name: string;
  path: string;
  /** Waits for the page's content (and opens what should be checked open). */
  ready(page: Page): Promise<void>;
  adminOnly?: boolean;
}

const heading = (page: Page) => page.locator('main h1').waitFor();
const CHECKS: Check[] = [
  { name: 'inbox', path: '/ui/', ready: async (page) => void (await page.locator('ol.inbox li').first().waitFor()) },
  {
    name: 'workspaces',
    path: '/ui/workspaces',
    ready: async (page) => void (await page.locator('tr[data-key="demo/resting"]').waitFor()),
  },
  {
    name: 'new-workspace',
    path: '/ui/workspaces/new',
    ready: async (page) => {
      const form = page.getByRole('form', { name: 'create workspace' });
      await form.getByLabel('Repo').selectOption('widget');
      await form.getByRole('radio', { name: 'an issue' }).check();
      await form.locator('label.issue').first().waitFor();
      await form.locator('label.issue').first().click();
      await form.getByLabel('Name').fill('a/b');
    },
  },
  {
    name: 'new-workspace-branch',
    path: '/ui/workspaces/new',
    ready: async (page) => {
      const form = page.getByRole('form', { name: 'create workspace' });
      await form.getByLabel('Repo').selectOption('demo');
      await form.getByRole('combobox', { name: 'Branch' }).click();
      await eventually(() =>
        form.getByRole('listbox', { name: 'Branch suggestions' }).getByRole('option').count(),
      ).toBe(3);
    },
  },
  {
    name: 'workspace',
    path: '/ui/workspaces/demo/asking',
    ready: async (page) => void (await page.getByTestId('agent-description').waitFor()),
  },
  {
    name: 'terminal',
    path: '/ui/workspaces/demo/asking/terminal',
    ready: async (page) =>
      void (await eventually(() => page.getByTestId('terminal-status').textContent()).toBe('Connected.')),
  },
  {
    name: 'ships',
    path: '/ui/ships',
    ready: async (page) => void (await page.locator('tr[data-ship="a11y-ship"] meter').first().waitFor()),
  },
  {
    name: 'repos',
    path: '/ui/repos',
    ready: async (page) => void (await page.locator('tr[data-repo="widget"]').waitFor()),
  },
  {
    name: 'resources',
    path: '/ui/resources',
    ready: async (page) => void (await page.locator('tr[data-ship="a11y-ship"] meter').first().waitFor()),
  },
  {
    name: 'armory',
    path: '/ui/armory',
    ready: async (page) => {
      await eventually(() => page.locator('tr[data-ship="a11y-ship"]').getByTestId('sync').textContent()).toBe('error');
      await page.getByRole('button', { name: 'review/SKILL.md' }).click();
      await page.getByTestId('file-contents').waitFor();
    },
  },
  { name: 'users', path: '/ui/users', ready: heading, adminOnly: true },
  {
    name: 'users-refused',
    path: '/ui/users',
    ready: async (page) => void (await page.getByRole('alert').first().waitFor()),
  },
  {
    name: 'account',
    path: '/ui/account',
    ready: async (page) => void (await page.getByRole('form', { name: 'change email' }).waitFor()),
  },
  { name: 'not-found', path: '/ui/nowhere', ready: heading },
];

/** Issue #31: light and dark follow the system preference on every page. The page's own background, 0–255. */
const backgroundLightness = (page: Page) =>
  page.evaluate(() => {
    const [r, g, b] = (getComputedStyle(document.body).backgroundColor.match(/\d+/g) ?? []).map(Number);
    return ((r ?? 0) + (g ?? 0) + (b ?? 0)) / 3;
  });

async function checkPage(page: Page, label: string, scheme: 'light' | 'dark'): Promise<string[]> {
  const problems: string[] = [];
  const lightness = await backgroundLightness(page);
  if ((scheme === 'dark') !== lightness < 128)
    problems.push(`${label}: a ${scheme} scheme drawn on a background of lightness ${lightness}`);
  const ones = await headingOnes(page);
  if (ones.length !== 1) problems.push(`${label}: ${ones.length} <h1> (${ones.join(' | ')})`);
  for (const duplicate of await duplicateNames(page)) problems.push(`${label}: duplicate name ${duplicate}`);
  for (const violation of await accessibilityViolations(page)) problems.push(`${label}: axe ${violation}`);
  if (SHOTS) {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${label.replace(/[ /]/g, '-')}.png`), fullPage: true });
  }
  return problems;
}

async function checkAll(who: 'admin' | 'member', scheme: 'light' | 'dark'): Promise<string[]> {
  const { page, watch } = await gui.open();
  await page.emulateMedia({ colorScheme: scheme });
  if (who === 'admin') await gui.signIn(page);
  else await gui.signIn(page, MEMBER.username, MEMBER.password);
  const problems: string[] = [];
  for (const check of CHECKS) {
    if (check.name === 'users' && who !== 'admin') continue;
    if (check.name === 'users-refused' && who === 'admin') continue;
    await page.goto(gui.fleet.bridgeUrl + check.path);
    await check.ready(page);
    problems.push(...(await checkPage(page, `${who} ${scheme} ${check.name}`, scheme)));
  }
  // The palette and the overlay, from the inbox.
  await page.goto(`${gui.fleet.bridgeUrl}/ui/`);
  await page.locator('main h1').waitFor();
  await page.keyboard.press('Control+K');
  await page.getByRole('dialog', { name: 'Command palette' }).waitFor();
  await page.keyboard.type('asking');
  problems.push(...(await checkPage(page, `${who} ${scheme} palette`, scheme)));
  await page.keyboard.press('Escape');
  await eventually(() => page.getByRole('dialog').count()).toBe(0);
  await page.keyboard.press('?');
  await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
  problems.push(...(await checkPage(page, `${who} ${scheme} shortcuts`, scheme)));
  expect(watch.pageErrors).toEqual([]);
  return problems;
}

describe.skipIf(!found)('accessibility of every page', () => {
  it('the sign-in gate, light and dark', async () => {
    const problems: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      const { page } = await gui.open();
      await page.emulateMedia({ colorScheme: scheme });
      await page.getByRole('form', { name: 'sign in' }).waitFor();
      problems.push(...(await checkPage(page, `signed-out ${scheme} sign-in`, scheme)));
    }
    expect(problems).toEqual([]);
  }, 60_000);

  for (const who of ['admin', 'member'] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`every page as ${who === 'admin' ? 'an admin' : 'a member'}, ${scheme}`, async () => {
        expect(await checkAll(who, scheme)).toEqual([]);
      }, 180_000);
    }
  }
});
