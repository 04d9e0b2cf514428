// Hostile strings in the GUI (docs/security.md H14, H21), seeded through real processes: a workspace named
// `<img src=x onerror=alert(1)>`, one whose name carries a bidi override (U+202E), an agent description
// with `<script>` and an `<img onerror>`, and an ephemeral workspace whose pull request URL (from the
// forge, here the fake GitHub behind `npx svc bridge`) is `javascript:`. In Chromium: no dialog, no
// script or image element appears, no request for `x`, every string shows literally, the bidi override as
// a visible mark, and the `javascript:` URL as text, not a link. With the forge there, the create form's
// issue path (the issue picker + ephemeral) is tested here too.
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../fakes/github.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { cloneHome, startBackedForge } from '../helpers/github-clone.js';
import { call, path } from '../helpers/ship.js';
import { startGuiFleet, type GuiFleet, eventually } from './gui-fleet.js';

const found = chromiumAvailable('test/web/gui-hostile');
const TOKEN = 'ghp_gui_hostile_token_24680';
const GITHUB_URL = 'https://github.example/acme/widget.git';
const IMG_NAME = '<img src=x onerror=alert(1)>';
const BIDI_NAME = 'invoice\u202Egpj.exe';
const DESCRIPTION = '<script>alert(2)</script> and <img src=x onerror=alert(3)>';
const HOSTILE_PR = 'javascript:alert(document.domain)';
let gui: GuiFleet;
let fake: FakeGitHub | undefined;

beforeAll(async () => {
  if (!found) return;
  gui = await startGuiFleet('hostile-ship', async (root, remote) => {
    fake = await startBackedForge(remote.bare, TOKEN);
    return {
      bridge: { SVC_GITHUB_API_URL: fake.url, SVC_GITHUB_TOKEN: TOKEN },
      ship: { HOME: cloneHome(root, remote.bare, GITHUB_URL) },
    };
  });
  for (const name of [IMG_NAME, BIDI_NAME]) {
    expect(
      (await gui.api('POST', '/workspaces', { ship: 'hostile-ship', repoName: 'demo', name, branch: 'main' })).status,
    ).toBe(201);
  }
  // The agent reports through the workspace's own (open) ship.
  expect((await gui.api('POST', `${path('demo', IMG_NAME)}/activate`)).status).toBe(200);
  const ship = gui.fleet.shipUrl;
  expect(
    (await call(ship, 'POST', `${path('demo', IMG_NAME)}/agent/init`, { model: 'm', provider: 'p', harness: 'h' }))
      .status,
  ).toBe(200);
  expect(
    (
      await call(ship, 'POST', `${path('demo', IMG_NAME)}/agent/status`, {
        state: 'building',
        description: DESCRIPTION,
      })
    ).status,
  ).toBe(200);

  // An ephemeral workspace whose pull request the forge reports with a `javascript:` URL.
  expect((await gui.api('POST', '/repos', { name: 'widget', url: GITHUB_URL, provider: 'github' })).status).toBe(201);
  const issue = fake!.addIssue({ title: 'Hostile pull' });
  const created = await gui.api('POST', '/workspaces', {
    ship: 'hostile-ship',
    repoName: 'widget',
    name: 'eph',
    issueNumber: issue.number,
    ephemeral: true,
  });
  expect(created.status).toBe(201);
  fake!.addPull({ title: 'x', head: created.body.branch, htmlUrl: HOSTILE_PR });
  expect((await gui.api('POST', '/workspaces/sweep')).status).toBe(200);
  expect((await gui.api('GET', path('widget', 'eph'))).body.ephemeral.pullRequest).toMatchObject({
    state: 'open',
    url: HOSTILE_PR,
  });
}, 180_000);
afterAll(async () => {
  await gui?.stop();
  await fake?.stop();
});

/** Elements no hostile string may create, and the page's own script count. */
const injected = (page: Page) =>
  page.evaluate(() => ({
    scripts: document.scripts.length,
    images: document.querySelectorAll('main img, main script, main iframe').length,
    javascriptLinks: Array.from(document.querySelectorAll('a'))
      .filter((a) => !/^https?:/.test(a.href))
      .map((a) => a.href),
  }));

describe.skipIf(!found)('hostile strings in the GUI', () => {
  it('shows names, descriptions and a javascript: pull request literally, with no dialog, script or link', async () => {
    const { page, watch } = await gui.open('/ui/workspaces');
    const requests: string[] = [];
    page.on('request', (request: Request) => requests.push(new URL(request.url()).pathname));
    await gui.signIn(page);
    const rows = page.locator('table.workspaces tbody tr');
    await eventually(() => rows.count(), 10_000).toBe(3);

    const img = page.locator(`tr[data-key="${`demo/${IMG_NAME}`.replace(/"/g, '\\"')}"]`);
    expect(await img.locator('td.workspace-name').textContent()).toBe(`demo/${IMG_NAME}`);
    expect(await img.locator('.description').textContent()).toBe(DESCRIPTION);
    expect(await img.locator('.agent .badge').first().textContent()).toBe('building');

    // The bidi override is drawn as a mark, never as the reordering character itself.
    const bidi = page.locator('td.workspace-name', { hasText: 'invoice' });
    expect(await bidi.textContent()).toBe('demo/invoice<U+202E>gpj.exe');
    expect(await bidi.locator('.invisible-char').textContent()).toBe('<U+202E>');

    // The javascript: pull request is text.
    const eph = page.locator('tr[data-key="widget/eph"]');
    const pull = eph.locator('.pull-request');
    expect(await pull.textContent()).toMatch(
      new RegExp(`^PR #\\d+ \\(${HOSTILE_PR.replace(/[().]/g, '\\$&')}\\) \\(open\\)$`),
    );
    expect(await pull.locator('a').count()).toBe(0);

    // The detail views of the hostile names route and render too.
    await img.getByRole('link', { name: `demo/${IMG_NAME}`, exact: true }).click();
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`demo/${IMG_NAME}`);
    await eventually(() => page.getByTestId('agent-description').textContent()).toBe(DESCRIPTION);
    await page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces/widget/eph`);
    await eventually(() => page.locator('.pull-request').textContent()).toContain(HOSTILE_PR);
    expect(await page.locator('.pull-request a').count()).toBe(0);

    expect(await injected(page)).toEqual({ scripts: 1, images: 0, javascriptLinks: [] });
    expect(watch.dialogs).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    expect(watch.foreignRequests).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);
    expect(requests.filter((p) => p.endsWith('/x'))).toEqual([]);
  }, 120_000);

  // The forge is here anyway: the form's issue path (spec "POST /workspaces (bridge)" with issueNumber).
  it('creates an ephemeral workspace from an issue through the form', async () => {
    const issue = fake!.addIssue({ title: 'Add dark mode' });
    const { page } = await gui.open();
    await gui.signIn(page);
    await page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces/new`);
    const form = page.getByRole('form', { name: 'create workspace' });
    await form.getByLabel('Ship').selectOption('hostile-ship');
    await form.getByLabel('Repo').selectOption('widget');
    await form.getByLabel('Name').fill('dark');
    await form.getByRole('radio', { name: 'an issue' }).check();
    await form.getByRole('radio', { name: new RegExp(`^#${issue.number} Add dark mode`) }).check();
    await form.getByLabel(/ephemeral/).check();
    await form.getByRole('button', { name: 'Create' }).click();
    await eventually(() => page.getByTestId('branch').textContent(), 15_000).toBe(`${issue.number}-add-dark-mode`);
    expect(await page.locator('.ephemeral').textContent()).toBe(`issue #${issue.number}, watching`);
    expect((await gui.api('GET', path('widget', 'dark'))).body.ephemeral).toMatchObject({
      issueNumber: issue.number,
      cleanup: 'watching',
    });
  }, 60_000);
});
