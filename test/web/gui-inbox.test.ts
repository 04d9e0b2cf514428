// The inbox, the GUI's home page (issue #28), in Chromium against `npx svc` bridge and ship processes, with
// agents reporting through the ship's MCP endpoint as a real agent does (the SDK client, the token its
// session got): a question appears with its text, the count in the navigation, the tab title and the
// favicon, and a browser notification; the composer's answer reaches the session (a `cat` appending to a
// file) and a refused one keeps its text; the entry leaves when the agent moves on; j/k/n; a finished turn
// dismissed stays dismissed; a shell that exits on its own shows as an ended session. Screenshots of the
// inbox at desktop and phone width go to test/artifacts/ (ignored by git).
import { appendFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../helpers/browser.js';
import { path } from '../helpers/ship.js';
import { tmuxSocketFor } from '../../ship/server.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { Tmux } from '../../ship/sessions/tmux.js';
import { accessibilityViolations } from './axe.js';
import { startGuiFleet, type GuiFleet, eventually } from './gui-fleet.js';

const found = chromiumAvailable('test/web/gui-inbox');
const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');
const QUESTION = 'Tests pass. Push to main, or open a pull request first?\nI would open a PR.';
let gui: GuiFleet;
const agents = new Map<string, Client>();

beforeAll(async () => {
  if (!found) return;
  gui = await startGuiFleet('inbox-ship');
  for (const name of ['asker', 'builder', 'shell']) {
    expect(
      (await gui.api('POST', '/workspaces', { ship: 'inbox-ship', repoName: 'demo', name, branch: 'main' })).status,
    ).toBe(201);
    expect((await gui.api('POST', `/workspaces/demo/${name}/activate`)).status).toBe(200);
  }
  const tmux = new Tmux(tmuxSocketFor(realpathSync(gui.fleet.fleetDirectory)));
  for (const name of ['asker', 'builder']) {
    const token = (await tmux.sessionVariables(sessionName('demo', name))).SVC_MCP_TOKEN!;
    const client = new Client({ name: 'agent', version: '0.0.1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gui.fleet.shipUrl + path('demo', name, '/mcp')), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    await client.callTool({
      name: 'agent_init',
      arguments: { model: 'opus-5', provider: 'anthropic', harness: 'claude-code' },
    });
    agents.set(name, client);
  }
  mkdirSync(ARTIFACTS, { recursive: true });
}, 180_000);
afterAll(async () => {
  for (const client of agents.values()) await client.close().catch(() => undefined);
  await gui?.stop();
});

const report = (name: string, state: string, description: string) =>
  agents.get(name)!.callTool({ name: 'agent_status', arguments: { state, description } });

/** Records every Notification the page constructs (installed before the page's scripts). */
async function recordNotifications(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const Original = window.Notification;
    const seen: { title: string; body?: string }[] = [];
    (window as unknown as { __notifications: typeof seen }).__notifications = seen;
    class Recorded extends Original {
      constructor(title: string, options?: NotificationOptions) {
        seen.push({ title, body: options?.body });
        super(title, options);
      }
    }
    Object.defineProperty(Recorded, 'permission', { get: () => Original.permission });
    Object.defineProperty(Recorded, 'requestPermission', { value: Original.requestPermission.bind(Original) });
    window.Notification = Recorded as typeof Notification;
  });
}
const notifications = (page: Page) =>
  page.evaluate(() => (window as unknown as { __notifications?: unknown[] }).__notifications ?? []);
const entry = (page: Page, key: string) => page.locator(`ol.inbox > li[data-key="${key}"]`);

describe.skipIf(!found)('the inbox', () => {
  it('shows a question as it is asked, signals it, takes the answer to the session, and lets it go when the agent moves on', async () => {
    const { page, context } = await gui.open('/ui/');
    await context.grantPermissions(['notifications'], { origin: gui.fleet.bridgeUrl });
    await recordNotifications(page);
    await page.reload();
    await gui.signIn(page);
    await eventually(() => page.getByTestId('live').textContent()).toBe('live');
    await page.getByText('No agent needs you.').waitFor();
    expect(await page.title()).toBe('svc');

    await report('asker', 'awaiting', QUESTION);
    const asker = entry(page, 'demo/asker');
    await asker.waitFor({ timeout: 15_000 });
    expect(await asker.locator('.question').textContent()).toBe(QUESTION);
    expect(await asker.locator('.badge.reason').textContent()).toBe('asks');
    const facts = await asker.locator('.attention-facts').textContent();
    expect(facts).toContain('ship inbox-ship');
    expect(facts).toContain('branch main');
    expect(facts).toContain('opus-5 · claude-code');
    await eventually(() => asker.getByTestId('diff-counts').textContent()).toBe('changes +0 −0');
    await eventually(() => page.title()).toBe('(1) svc');
    expect(await page.getByTestId('inbox-count').textContent()).toBe('1');
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/ui/favicon-attention.svg');
    await eventually(() => notifications(page)).toEqual([{ title: 'demo/asker is waiting for you', body: QUESTION }]);
    await page.screenshot({ path: join(ARTIFACTS, 'inbox-desktop.png'), fullPage: true });

    // The answer reaches the session as typed, then Enter: the shell runs `cat`, which appends each line.
    const answers = join(gui.root, 'answers.txt');
    expect((await gui.api('POST', '/workspaces/demo/asker/input', { text: `cat >> ${answers}` })).status).toBe(200);
    const box = asker.getByRole('textbox');
    await box.fill('Open a PR, please');
    await box.press('Enter');
    await asker.getByRole('status').filter({ hasText: 'Sent.' }).waitFor();
    expect(await box.inputValue()).toBe('');
    await eventually(() => readFileSync(answers, 'utf8'), 10_000).toBe('Open a PR, please\n');
    // Sending moved nothing: the agent still asks.
    expect(await asker.count()).toBe(1);

    // A refused answer (over the input cap) says why and keeps the text.
    const tooLong = 'x'.repeat(256 * 1024 + 1);
    await box.fill(tooLong);
    await asker.getByRole('button', { name: 'Send' }).click();
    await eventually(() => asker.getByRole('alert').textContent()).toMatch(/^body\/text /);
    expect((await box.inputValue()).length).toBe(tooLong.length);
    await box.fill('');

    // The agent moves on: the entry leaves, the signals clear.
    await report('asker', 'building', 'opening the PR');
    await eventually(() => asker.count(), 15_000).toBe(0);
    await eventually(() => page.title()).toBe('svc');
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/ui/favicon.svg');
    expect(await page.getByTestId('inbox-count').count()).toBe(0);

    // Muted (this user's choice, kept in the browser): a new question shows, no notification fires.
    await page.getByLabel('mute notifications').check();
    await report('builder', 'awaiting', 'Muted question?');
    await entry(page, 'demo/builder').waitFor({ timeout: 15_000 });
    await report('builder', 'building', 'back to work');
    await eventually(() => entry(page, 'demo/builder').count(), 15_000).toBe(0);
    expect(await notifications(page)).toHaveLength(1);
    await page.getByLabel('mute notifications').uncheck();
  }, 120_000);

  it('moves with j/k, jumps to the next question with n, dismisses a finished turn for good, and shows a session that ended on its own', async () => {
    const { page } = await gui.open('/ui/');
    await gui.signIn(page);
    await eventually(() => page.getByTestId('live').textContent()).toBe('live');
    await report('builder', 'building', 'compiling');
    await report('builder', 'idle', 'Done: the parser handles tabs now.');
    await report('asker', 'awaiting', 'Which base branch?');
    await eventually(() =>
      page.locator('ol.inbox > li').evaluateAll((items) => items.map((item) => item.getAttribute('data-key'))),
    ).toEqual(['demo/asker', 'demo/builder']);
    const selected = () => page.locator('ol.inbox > li[aria-current="true"]').getAttribute('data-key');
    expect(await selected()).toBe('demo/asker');
    await page.keyboard.press('j');
    await eventually(selected).toBe('demo/builder');
    expect(await entry(page, 'demo/builder').locator('.badge.reason').textContent()).toBe('finished');
    await page.keyboard.press('n');
    await eventually(selected).toBe('demo/asker');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await eventually(selected).toBe('demo/asker');

    await entry(page, 'demo/builder').getByRole('button', { name: 'Dismiss' }).click();
    await eventually(() => entry(page, 'demo/builder').count()).toBe(0);
    await page.reload();
    await entry(page, 'demo/asker').waitFor({ timeout: 15_000 });
    expect(await entry(page, 'demo/builder').count()).toBe(0);

    // The shell exits on its own: the ship says why the workspace went inactive.
    expect((await gui.api('POST', '/workspaces/demo/shell/input', { text: 'exit' })).status).toBe(200);
    const ended = entry(page, 'demo/shell');
    await ended.waitFor({ timeout: 15_000 });
    expect(await ended.locator('.badge.reason').textContent()).toBe('session ended');
    expect(await ended.locator('.waited').textContent()).toMatch(/^for \d+ s$/);
    // Since the reload: the bridge remembered when the question was asked (not "at least" since the page came).
    expect(await entry(page, 'demo/asker').locator('.waited').textContent()).toMatch(/^for \d+ s$/);
    await eventually(() => page.title()).toBe('(2) svc');
    await page.screenshot({ path: join(ARTIFACTS, 'inbox-desktop-several.png'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(ARTIFACTS, 'inbox-phone.png'), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  }, 120_000);

  it('reviews a change: files with their counts as the status changes, comments on two files sent as one message the user saw', async () => {
    const { page } = await gui.open('/ui/workspaces/demo/builder');
    await gui.signIn(page);
    await report('builder', 'building', 'editing two files');
    const panel = page.getByRole('region', { name: 'agent' });
    await eventually(() => panel.getByTestId('agent-description').textContent()).toBe('editing two files');
    expect(await panel.locator('.badge').first().textContent()).toBe('building');
    expect(await panel.textContent()).toContain('opus-5 · claude-code');
    await eventually(() => page.getByTestId('no-changes').textContent()).toBe('No changes.');

    // Changed on disk, then the agent reports: the file list follows without a reload (well before the poll).
    const directory = join(gui.fleet.fleetDirectory, 'demo', 'builder');
    appendFileSync(join(directory, 'README.md'), 'second line\n');
    writeFileSync(join(directory, 'src', 'app.txt'), 'one\nTWO\nthree\n');
    await report('builder', 'verifying', 'two files edited');
    const fileList = page.getByRole('navigation', { name: 'changed files' });
    await eventually(() => fileList.locator('li').allTextContents(), 8_000).toEqual([
      'README.md +1 −0',
      'src/app.txt +1 −1',
    ]);

    // A comment on a line of each file.
    const readme = page.getByRole('region', { name: 'diff of README.md' });
    await readme.locator('.diff-code-insert', { hasText: 'second line' }).click();
    await readme
      .getByRole('form', { name: 'comment on README.md' })
      .getByRole('textbox')
      .fill('Say which release this is.');
    await readme.getByRole('button', { name: 'Add comment' }).click();
    const app = page.getByRole('region', { name: 'diff of src/app.txt' });
    await app.locator('.diff-code-insert', { hasText: 'TWO' }).first().click();
    await app.getByRole('form', { name: 'comment on src/app.txt' }).getByRole('textbox').fill('Keep it lowercase.');
    await app.getByRole('button', { name: 'Add comment' }).click();
    expect(await page.getByTestId('review-comment').count()).toBe(2);
    // Syntax colours (Markdown's heading in the README) and both views.
    expect(await readme.locator('.diff-code .token.title').count()).toBeGreaterThan(0);
    expect(await page.locator('table.diff-split').count()).toBe(2);
    await page.getByRole('radio', { name: 'unified' }).check();
    await eventually(() => page.locator('table.diff-unified').count()).toBe(2);
    expect(await page.getByTestId('review-comment').count()).toBe(2);

    const expected = [
      'Review of demo/builder (2 comments). Please address each:',
      '',
      '1. README.md, line 2:',
      '   > second line',
      '   Say which release this is.',
      '',
      '2. src/app.txt, line 2:',
      '   > TWO',
      '   Keep it lowercase.',
    ].join('\n');
    expect(await page.getByTestId('review-message').textContent()).toBe(expected);
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.screenshot({ path: join(ARTIFACTS, 'review-desktop.png'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);

    // Sent as one message to the session (a `cat` appends what it receives).
    const received = join(gui.root, 'review.txt');
    expect((await gui.api('POST', '/workspaces/demo/builder/input', { text: `cat >> ${received}` })).status).toBe(200);
    await page.getByRole('button', { name: 'Send all 2 to the agent' }).click();
    await page.getByText('Sent 2 comments to the session.').waitFor();
    await eventually(() => readFileSync(received, 'utf8'), 10_000).toBe(`${expected}\n`);
    expect(await page.getByTestId('review-comment').count()).toBe(0);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(ARTIFACTS, 'review-phone.png'), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  }, 120_000);

  it('shows the fleet at a glance above the list: ships, sessions, agents per state, the repo × ship grid', async () => {
    const { page } = await gui.open('/ui/workspaces');
    await gui.signIn(page);
    const overview = page.getByRole('region', { name: 'fleet overview' });
    await eventually(() => overview.getByTestId('ships-online').textContent()).toBe('1 online');
    await eventually(() => overview.getByTestId('active-sessions').textContent()).toBe('2 active of 3');
    expect(await overview.getByTestId('agents-per-state').locator('.badge').allTextContents()).toEqual([
      'idle 0',
      'planning 0',
      'building 0',
      'verifying 1',
      'awaiting 1',
    ]);
    const grid = overview.getByRole('table', { name: 'workspaces per repo and ship' });
    expect(await grid.locator('thead th').allTextContents()).toEqual(['Repo', 'inbox-ship']);
    expect(await grid.locator('tbody tr').first().locator('th, td').allTextContents()).toEqual(['demo', '2/31 asks']);
    // The list's agent cells carry each state's colour.
    const asker = page.locator('table.workspaces tr[data-key="demo/asker"] .badge.agent-awaiting');
    expect(await asker.evaluate((badge) => getComputedStyle(badge).backgroundColor)).not.toBe('rgba(0, 0, 0, 0)');
    await page.screenshot({ path: join(ARTIFACTS, 'fleet-desktop.png'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
  }, 60_000);

  it('a page opened later still sees which turns finished and which sessions ended meanwhile, and since when (the bridge remembers)', async () => {
    await report('builder', 'building', 'one more change');
    await report('builder', 'idle', 'Done again.');
    const history = await gui.api('GET', '/workspaces/agent-history');
    expect(history.status).toBe(200);
    expect(history.body.workspaces).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          repoName: 'demo',
          name: 'builder',
          state: 'idle',
          seenChange: true,
          finishedWork: true,
          sessionEnded: false,
        }),
        expect.objectContaining({
          repoName: 'demo',
          name: 'shell',
          state: null,
          seenChange: true,
          finishedWork: false,
          sessionEnded: true,
        }),
      ]),
    );
    const { page } = await gui.open('/ui/');
    await gui.signIn(page);
    const finished = entry(page, 'demo/builder');
    await finished.waitFor({ timeout: 15_000 });
    expect(await finished.locator('.badge.reason').textContent()).toBe('finished');
    expect(await finished.locator('.description').textContent()).toBe('Done again.');
    await eventually(() => finished.locator('.waited').textContent()).toMatch(/^for \d+ s$/);
    const ended = entry(page, 'demo/shell');
    expect(await ended.locator('.badge.reason').textContent()).toBe('session ended');
    await eventually(() => ended.locator('.waited').textContent()).toMatch(/^for \d+ s$/);
  }, 60_000);

  it("fits every page in a phone's width (390 px): nothing scrolls sideways but the diff text in its own box", async () => {
    const { page } = await gui.open('/ui/');
    await gui.signIn(page);
    await page.setViewportSize({ width: 390, height: 844 });
    const wide: string[] = [];
    for (const path of [
      '/ui/',
      '/ui/workspaces',
      '/ui/workspaces/new',
      '/ui/workspaces/demo/builder',
      '/ui/workspaces/demo/asker/terminal',
      '/ui/ships',
      '/ui/repos',
      '/ui/resources',
      '/ui/armory',
      '/ui/users',
      '/ui/account',
    ]) {
      await page.goto(gui.fleet.bridgeUrl + path);
      await page.getByRole('navigation', { name: 'main' }).waitFor();
      await page.waitForLoadState('networkidle');
      const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      if (!fits) wide.push(`${path}: ${await page.evaluate(() => document.documentElement.scrollWidth)} px`);
      if (path === '/ui/workspaces')
        await page.screenshot({ path: join(ARTIFACTS, 'workspaces-phone.png'), fullPage: true });
    }
    expect(wide).toEqual([]);
  }, 120_000);
});
