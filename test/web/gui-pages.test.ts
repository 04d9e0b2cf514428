// The pages of issue #31 in Chromium against `npx svc` processes, with the fake GitHub forge behind the
// bridge and a second ship (started with a token pair, so it pulls the armory) beside the first:
// - New workspace: the issue picker lists the forge's open issues (not the closed one), searches them, and
//   previews the bridge's branch; the workspace created from it is on that branch. Names are checked as
//   typed with the spec's messages; an offline ship cannot be chosen; the branch combobox suggests the
//   remote's branches, says when a name is new, and creates it; Switch branch uses the same combobox.
// - Ships: CPU, memory and load bars re-read while the page is visible (not while hidden, on the page's
//   faked clock); a ship that stops shows offline.
// - Armory: in sync / error per ship, the install's conflicts and warnings and lastError as the API has
//   them, the file viewer (text as text, binary as size and hash) and the dotfile map.
// - Account: a member changes their own email.
// - Keyboard: the command palette reaches a page and runs workspace actions (activate, switch branch with
//   its field focused, delete behind a question), and in the terminal only on Ctrl+Shift+K (Ctrl+K is the
//   shell's); `?` lists the shortcuts; focus after a confirmation.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueBranchName } from '../../protocol/issue-branch.js';
import type { FakeGitHub } from '../fakes/github.js';
import { putArmoryFile } from '../helpers/armory.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { killFleetTmux } from '../helpers/cli.js';
import { cloneHome, startBackedForge } from '../helpers/github-clone.js';
import { startNpx, type NpxProcess } from '../helpers/npx.js';
import { until } from '../helpers/poll.js';
import { startGuiFleet, type GuiFleet, eventually } from './gui-fleet.js';

const found = chromiumAvailable('test/web/gui-pages');
const TOKEN = 'ghp_gui_pages_token_97531';
const GITHUB_URL = 'https://github.example/acme/widget.git';
const BINARY = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0xff, 0xfe, 0x00, 0x01]);
let gui: GuiFleet;
let fake: FakeGitHub | undefined;
let armed: NpxProcess | undefined;
let armedFleet = '';

interface ArmoryShip {
  ship: string;
  state: {
    revision: string | null;
    lastError: string | null;
    install: { conflicts: string[]; warnings: string[] } | null;
  } | null;
}

beforeAll(async () => {
  if (!found) return;
  gui = await startGuiFleet('main-ship', async (root, remote) => {
    fake = await startBackedForge(remote.bare, TOKEN);
    const armory = join(root, 'bridge-data', 'armory');
    putArmoryFile(armory, 'skills/review/SKILL.md', '# Review\nRead the diff twice.\n');
    putArmoryFile(armory, 'plugins/lint/bin/run', BINARY, 0o755);
    putArmoryFile(armory, 'dotfiles/gitconfig', '[user]\n\tname = agent\n');
    // ~/.gitconfig exists on the ship (its clone redirects): a conflict; `missing` is not there: a warning.
    putArmoryFile(armory, 'dotfile-map.json', JSON.stringify({ gitconfig: '~/.gitconfig', missing: '~/.missing' }));
    return {
      bridge: { SVC_GITHUB_API_URL: fake.url, SVC_GITHUB_TOKEN: TOKEN },
      ship: { HOME: cloneHome(root, remote.bare, GITHUB_URL) },
    };
  });
  expect((await gui.api('POST', '/repos', { name: 'widget', url: GITHUB_URL, provider: 'github' })).status).toBe(201);

  // A second ship with a token pair: the bridge pushes it the armory and it pulls with its ship token.
  const shipToken = randomBytes(32).toString('base64url');
  const bridgeToken = randomBytes(32).toString('base64url');
  armedFleet = join(gui.root, 'fleet-armed');
  armed = startNpx(['ship', '--port', '0', '--name', 'armed', '--fleet-directory', armedFleet], {
    SVC_BRIDGE_TOKEN: bridgeToken,
    SVC_SHIP_TOKEN: shipToken,
    HOME: cloneHome(gui.root, gui.remote.bare, GITHUB_URL, 'armed-home'),
  });
  await armed.waitFor('ship listening', 60_000);
  const { port } = JSON.parse(readFileSync(join(armedFleet, 'atlas.json'), 'utf8')) as { port: number };
  expect((await gui.api('POST', '/ships', { url: `http://localhost:${port}`, shipToken, bridgeToken })).status).toBe(
    201,
  );
  await until(
    async () => {
      const ships = (await gui.api('GET', '/armory/ships')).body as ArmoryShip[];
      return ships.find((entry) => entry.ship === 'armed')?.state?.install ? true : null;
    },
    'the armed ship installed the armory',
    20_000,
  );
}, 180_000);
afterAll(async () => {
  await armed?.terminateThenKill();
  if (armedFleet) await killFleetTmux(armedFleet).catch(() => undefined);
  await gui?.stop();
  await fake?.stop();
});

const activeName = (page: Page) =>
  page.evaluate(
    () => (document.activeElement as HTMLInputElement | null)?.name ?? document.activeElement?.tagName ?? null,
  );
const focusedText = (page: Page) =>
  page.evaluate(
    () => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? null,
  );

describe.skipIf(!found)('the pages of issue #31', () => {
  it('creates a workspace from an open issue on the branch it previewed, checking the name as typed', async () => {
    fake!.addIssue({ title: 'Add dark mode' });
    fake!.addIssue({ title: 'Old bug', state: 'closed' });
    const wanted = fake!.addIssue({ title: 'Crash on empty config: "null" key!', user: 'carol' });
    const { page, watch } = await gui.open();
    await gui.signIn(page);
    await page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces/new`);
    const form = page.getByRole('form', { name: 'create workspace' });
    await form.getByLabel('Ship').selectOption('main-ship');
    await form.getByLabel('Repo').selectOption('widget');

    // The spec's messages, as the name is typed.
    const name = form.getByLabel('Name');
    const problem = page.getByTestId('name-problem');
    await name.fill('a/b');
    await eventually(() => problem.textContent()).toBe('Name: must not contain path separators');
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    await name.fill('..');
    await eventually(() => problem.textContent()).toBe('Name: must not be . or ..');
    await name.fill('');
    await eventually(() => problem.textContent()).toBe('Name: minimum length');
    await name.fill('x'.repeat(129));
    await eventually(() => problem.textContent()).toBe('Name: must be at most 128 UTF-8 bytes');
    await name.fill('from issue');
    await eventually(() => name.getAttribute('aria-invalid')).toBe('false');

    await form.getByRole('radio', { name: 'an issue' }).check();
    const issues = form.locator('label.issue');
    await eventually(() =>
      issues.evaluateAll((labels) => labels.map((label) => label.getAttribute('data-issue'))),
    ).toEqual(['3', '1']);
    expect(await issues.first().textContent()).toBe('#3 Crash on empty config: "null" key! by carol');
    await form.getByLabel('Search issues').fill('dark');
    await eventually(() => issues.allTextContents()).toEqual(['#1 Add dark mode by alice']);
    await form.getByLabel('Search issues').fill('#3');
    await eventually(() => issues.count()).toBe(1);
    await form.getByRole('radio', { name: /#3 Crash/ }).check();
    const preview = issueBranchName(wanted.number, wanted.title);
    expect(preview).toBe('3-crash-on-empty-config-null-key');
    await eventually(() => page.getByTestId('branch-preview').textContent()).toBe(preview);

    await form.getByRole('button', { name: 'Create' }).click();
    await eventually(() => page.getByTestId('branch').textContent(), 20_000).toBe(preview);
    expect(new URL(page.url()).pathname).toBe('/ui/workspaces/widget/from%20issue');
    expect((await gui.api('GET', '/workspaces/widget/from%20issue')).body).toMatchObject({
      branch: preview,
      ship: 'main-ship',
    });
    expect(watch.pageErrors).toEqual([]);
  }, 90_000);

  it('suggests the remote branches, says when a branch is new, creates it, and switches with the same combobox', async () => {
    const { page } = await gui.open();
    await gui.signIn(page);
    await page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces/new`);
    const form = page.getByRole('form', { name: 'create workspace' });
    await form.getByLabel('Ship').selectOption('main-ship');
    await form.getByLabel('Repo').selectOption('demo');
    await form.getByLabel('Name').fill('combo');
    const branch = form.getByRole('combobox', { name: 'Branch' });
    const options = form.getByRole('listbox', { name: 'Branch suggestions' }).getByRole('option');
    await branch.click();
    // The remote's branches (the first test's issue branch among them: the fake forge made it there).
    await eventually(() => options.allTextContents()).toEqual(expect.arrayContaining(['feature', 'main', 'other']));
    await branch.fill('fea');
    await eventually(() => options.allTextContents()).toEqual(['feature']);
    await branch.press('ArrowDown');
    expect(await branch.getAttribute('aria-activedescendant')).toBe(await options.first().getAttribute('id'));
    await branch.press('Enter');
    expect(await branch.inputValue()).toBe('feature');
    await eventually(() => page.getByTestId('branch-note').textContent()).toBe('An existing branch on the remote.');
    await branch.fill('brand-new');
    await eventually(() => page.getByTestId('branch-note').textContent()).toBe(
      "New branch brand-new: not on the remote, it will be created from the remote's default branch (and not pushed).",
    );
    await form.getByRole('button', { name: 'Create' }).click();
    await eventually(() => page.getByTestId('branch').textContent(), 20_000).toBe('brand-new');
    expect((await gui.api('GET', '/workspaces/demo/combo')).body).toMatchObject({ branch: 'brand-new' });

    const switching = page.getByRole('form', { name: 'switch branch' });
    const field = switching.getByRole('combobox', { name: 'Switch branch' });
    await field.fill('oth');
    await field.press('ArrowDown');
    await field.press('Enter');
    expect(await field.inputValue()).toBe('other');
    await switching.getByRole('button', { name: 'Switch' }).click();
    await eventually(() => page.getByTestId('branch').textContent(), 10_000).toBe('other');
    expect((await gui.api('GET', '/workspaces/demo/combo')).body).toMatchObject({ branch: 'other' });
  }, 90_000);

  it('shows the armory per ship (in sync with conflicts and warnings; the refused ship as an error in full), the file viewer and the dotfile map', async () => {
    const { page } = await gui.open();
    await gui.signIn(page);
    const ships = (await gui.api('GET', '/armory/ships')).body as ArmoryShip[];
    const armedState = ships.find((entry) => entry.ship === 'armed')!.state!;
    const mainState = ships.find((entry) => entry.ship === 'main-ship')!.state!;
    expect(armedState.install!.conflicts.length).toBeGreaterThan(0);
    expect(armedState.install!.warnings.length).toBeGreaterThan(0);
    expect(mainState.lastError).toBeTruthy();
    const manifest = (await gui.api('GET', '/armory')).body as {
      revision: string;
      entries: Array<{ path: string; sha256: string }>;
    };

    await page.goto(`${gui.fleet.bridgeUrl}/ui/armory`);
    const armedRow = page.locator('tr[data-ship="armed"]');
    await eventually(() => armedRow.getByTestId('sync').textContent()).toBe('in sync');
    expect(await armedRow.locator('.problems.conflicts li').allTextContents()).toEqual(armedState.install!.conflicts);
    expect(await armedRow.locator('.problems.warnings li').allTextContents()).toEqual(armedState.install!.warnings);
    const mainRow = page.locator('tr[data-ship="main-ship"]');
    expect(await mainRow.getByTestId('sync').textContent()).toBe('error');
    expect(await mainRow.getByTestId('last-error').textContent()).toBe(mainState.lastError);

    const files = page.getByRole('navigation', { name: 'armory files' });
    await files.getByRole('button', { name: 'review/SKILL.md' }).click();
    await eventually(() => page.getByTestId('file-contents').textContent()).toBe('# Review\nRead the diff twice.\n');
    await files.getByRole('button', { name: 'lint/bin/run' }).click();
    const sha = createHash('sha256').update(BINARY).digest('hex');
    expect(manifest.entries.find((entry) => entry.path === 'plugins/lint/bin/run')!.sha256).toBe(sha);
    await eventually(() => page.getByTestId('file-binary').textContent()).toBe(
      `Binary file: ${BINARY.length} bytes, sha256 ${sha}`,
    );
    await page.getByLabel('Filter files').fill('git');
    await eventually(() => files.getByRole('button').allTextContents()).toEqual(['gitconfig']);
    const map = page.getByRole('region', { name: 'dotfile map' });
    expect(
      await map
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll('td')).map((td) => td.textContent))),
    ).toEqual([
      ['gitconfig', '~/.gitconfig'],
      ['missing', '~/.missing'],
    ]);
  }, 60_000);

  it('draws CPU, memory and load as bars, re-read while the page is open, and a stopped ship as offline; an offline ship cannot be chosen', async () => {
    const { page } = await gui.open();
    await gui.signIn(page);
    const samples: number[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/system-resources') samples.push(Date.now());
    });
    await page.goto(`${gui.fleet.bridgeUrl}/ui/ships`);
    const row = page.locator('tr[data-ship="armed"]');
    const cpu = row.getByRole('meter', { name: 'CPU of armed' });
    await cpu.waitFor();
    const value = Number(await cpu.getAttribute('value'));
    expect(value).toBeGreaterThanOrEqual(0);
    expect(value).toBeLessThanOrEqual(1);
    expect(await row.getByRole('meter', { name: 'Memory of armed' }).count()).toBe(1);
    expect(await row.getByRole('meter', { name: 'Load of armed per core' }).count()).toBe(1);
    expect(await row.locator('td.cpu').textContent()).toMatch(/^\d+% of \d+ cores$/);
    // Re-read every few seconds with no reload.
    await eventually(() => samples.length, 15_000).toBeGreaterThanOrEqual(3);

    await armed!.terminateThenKill();
    armed = undefined;
    await eventually(() => row.locator('td.status').textContent(), 20_000).toBe('offline');
    expect(await row.locator('td.no-resources').textContent()).toBe('offline: no data');
    expect(await row.getByRole('meter').count()).toBe(0);

    await page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces/new`);
    const ship = page.getByRole('form', { name: 'create workspace' }).getByLabel('Ship');
    await eventually(() => ship.locator('option[value="armed"]').textContent()).toBe(
      'armed (offline: cannot be chosen)',
    );
    expect(await ship.locator('option[value="armed"]').isDisabled()).toBe(true);
    expect(await ship.locator('option[value="main-ship"]').isDisabled()).toBe(false);
  }, 90_000);

  it('re-reads resources every few seconds while the page is visible, and not while it is hidden', async () => {
    // The page's clock is faked from its first script on, so the test moves time itself.
    const context = await gui.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.clock.install();
    await page.goto(`${gui.fleet.bridgeUrl}/ui/`);
    await gui.signIn(page);
    const seen: string[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path === '/system-resources' || path === '/healthz') seen.push(path);
    });
    const polls = () => seen.filter((path) => path === '/system-resources').length;
    await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'Ships' }).click();
    await page.getByRole('meter', { name: 'CPU of main-ship' }).waitFor();
    const first = polls();
    await page.clock.runFor(3_100);
    await eventually(polls).toBeGreaterThan(first);

    // Hidden (another tab): ten seconds bring no request. A request the test sends afterwards marks the
    // end of that window in the page's request order.
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    const hidden = polls();
    await page.clock.runFor(10_000);
    await page.evaluate(() => fetch('/healthz').then(() => undefined));
    await eventually(() => seen.includes('/healthz')).toBe(true);
    expect(polls()).toBe(hidden);

    // Visible again: read at once, then every few seconds.
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await eventually(polls).toBeGreaterThan(hidden);
    await context.close();
  }, 60_000);

  it('lets a member change their own email', async () => {
    expect(
      (
        await gui.api('POST', '/users', {
          username: 'mia',
          email: 'mia@example.com',
          password: 'mia-password-1',
          role: 'member',
        })
      ).status,
    ).toBe(201);
    const { page } = await gui.open();
    await gui.signIn(page, 'mia', 'mia-password-1');
    await page.goto(`${gui.fleet.bridgeUrl}/ui/account`);
    const form = page.getByRole('form', { name: 'change email' });
    await form.getByLabel('New email').fill('not-an-email@');
    await form
      .getByLabel('New email')
      .evaluate((input: HTMLInputElement) => input.form?.setAttribute('novalidate', ''));
    await form.getByRole('button', { name: 'Change email' }).click();
    await eventually(() => form.getByRole('alert').textContent()).toMatch(/email/);
    await form.getByLabel('New email').fill('mia@new.example.com');
    await form.getByRole('button', { name: 'Change email' }).click();
    await eventually(() => form.getByRole('status').textContent()).toBe('Email changed.');
    expect(await page.getByTestId('email').textContent()).toBe('mia@new.example.com');
    const users = (await gui.api('GET', '/users')).body as Array<{ username: string; email: string }>;
    expect(users.find((user) => user.username === 'mia')?.email).toBe('mia@new.example.com');
  }, 60_000);

  it('reaches pages and workspace actions from the command palette, lists the shortcuts on ?, and puts focus back after a confirmation', async () => {
    expect(
      (await gui.api('POST', '/workspaces', { ship: 'main-ship', repoName: 'demo', name: 'palette', branch: 'main' }))
        .status,
    ).toBe(201);
    const { page } = await gui.open();
    await gui.signIn(page);
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    const command = palette.getByRole('combobox', { name: 'Command' });

    // A page.
    await page.keyboard.press('Control+K');
    await command.fill('go ships');
    await command.press('Enter');
    await eventually(() => new URL(page.url()).pathname).toBe('/ui/ships');
    await eventually(() => focusedText(page)).toBe('Ships');
    expect(await palette.count()).toBe(0);

    // Activate runs from the palette.
    await page.keyboard.press('Control+K');
    await command.fill('activate demo/palette');
    await eventually(() => palette.getByRole('option').allTextContents()).toEqual(['Activate demo/palette Workspace']);
    await command.press('Enter');
    await until(
      async () => (await gui.api('GET', '/workspaces/demo/palette')).body.state === 'active',
      'activated from the palette',
      15_000,
    );
    await eventually(() => palette.count()).toBe(0);

    // Switch branch: the workspace page opens with its branch field focused.
    await page.keyboard.press('Control+K');
    await command.fill('switch palette');
    await command.press('Enter');
    await eventually(() => new URL(page.url()).pathname).toBe('/ui/workspaces/demo/palette');
    await eventually(() => activeName(page)).toBe('branch');

    // Delete asks first, naming the workspace.
    await page.keyboard.press('Control+K');
    await command.fill('delete demo/palette');
    await command.press('Enter');
    const question = page.getByRole('dialog', { name: 'Delete a workspace' });
    expect(await question.textContent()).toContain('Delete demo/palette and its directory?');
    expect(await focusedText(page)).toBe('Cancel');
    await question.getByRole('button', { name: 'Yes, delete demo/palette' }).click();
    await eventually(() => new URL(page.url()).pathname, 15_000).toBe('/ui/workspaces');
    expect((await gui.api('GET', '/workspaces/demo/palette')).status).toBe(404);

    // In the terminal Ctrl+K belongs to the shell; Ctrl+Shift+K opens the palette there.
    expect(
      (await gui.api('POST', '/workspaces', { ship: 'main-ship', repoName: 'demo', name: 'term', branch: 'main' }))
        .status,
    ).toBe(201);
    expect((await gui.api('POST', '/workspaces/demo/term/activate')).status).toBe(200);
    await page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces/demo/term/terminal`);
    await eventually(() => page.getByTestId('terminal-status').textContent(), 15_000).toBe('Connected.');
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+Shift+K');
    await palette.waitFor();
    expect(await page.getByRole('dialog').count()).toBe(1);
    await page.keyboard.press('Escape');
    await eventually(() => palette.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.closest('.terminal') !== null)).toBe(true);
    await page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces`);

    // ? lists the shortcuts; Escape closes it and focus returns.
    await page.getByLabel('Filter').focus();
    await page.getByLabel('Filter').press('?');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.getByRole('link', { name: 'New workspace' }).focus();
    await page.keyboard.press('?');
    const overlay = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await overlay.waitFor();
    expect(await overlay.textContent()).toContain('Open the command palette');
    await page.keyboard.press('Escape');
    await eventually(() => overlay.count()).toBe(0);
    expect(await focusedText(page)).toBe('New workspace');

    // A confirmation: Cancel takes focus, Escape returns it to the button; once the row is gone, to the heading.
    expect((await gui.api('POST', '/repos', { name: 'second', url: gui.remote.url })).status).toBe(201);
    await page.goto(`${gui.fleet.bridgeUrl}/ui/repos`);
    const remove = page.getByRole('button', { name: 'Remove repo second' });
    await remove.click();
    expect(await focusedText(page)).toBe('Cancel: keep repo second');
    await page.keyboard.press('Escape');
    await eventually(() => focusedText(page)).toBe('Remove repo second');
    await remove.click();
    await page.getByRole('button', { name: 'Yes, remove repo second' }).click();
    await eventually(() => page.locator('tr[data-repo="second"]').count()).toBe(0);
    await eventually(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
  }, 120_000);
});
