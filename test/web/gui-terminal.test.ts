// A workspace terminal in Chromium through a `npx svc bridge` process to a `npx svc ship` and real tmux:
// typed keys reach the shell and its output shows in xterm.js (read from the DOM), the container's resize
// reaches the pty, a second terminal on the same workspace is told it is open elsewhere, and a shell exit
// shows its code. All under the GUI's CSP.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../helpers/browser.js';
import { startGuiFleet, type GuiFleet, eventually, screenRows } from './gui-fleet.js';

const found = chromiumAvailable('test/web/gui-terminal');
let gui: GuiFleet;

beforeAll(async () => {
  if (!found) return;
  gui = await startGuiFleet('term-ship');
  for (const name of ['term', 'exits']) {
    expect(
      (await gui.api('POST', '/workspaces', { ship: 'term-ship', repoName: 'demo', name, branch: 'main' })).status,
    ).toBe(201);
    expect((await gui.api('POST', `/workspaces/demo/${name}/activate`)).status).toBe(200);
  }
}, 180_000);
afterAll(async () => {
  await gui?.stop();
});

async function openTerminal(page: Page, name: string): Promise<void> {
  await gui.signIn(page);
  await page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces/demo/${name}/terminal`);
  await eventually(() => page.getByTestId('terminal-status').textContent(), 15_000).toBe('Connected.');
}

async function typeLine(page: Page, line: string): Promise<void> {
  await page.locator('.xterm-helper-textarea').focus();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

describe.skipIf(!found)('the terminal in the GUI', () => {
  it('types a command and shows its output, follows a resize, and refuses a second terminal', async () => {
    const { page, watch } = await gui.open();
    await openTerminal(page, 'term');
    const marker = `hi-${randomBytes(4).toString('hex')}`;
    await typeLine(page, `echo ${marker}`);
    // The command line holds `echo hi-…`; only the output row is the marker alone.
    await eventually(async () => (await screenRows(page)).includes(marker), 10_000).toBe(true);

    // Colours travel as cells and are drawn with the SGR the renderer generates; xterm.js's theme CSS applies
    // under the CSP (web/src/terminal/csp-safe-styles.ts): the red cells are the light scheme's red on screen
    // (web/src/terminal/terminal-theme.ts; the browser reports a light system scheme).
    const red = `red-${randomBytes(4).toString('hex')}`;
    await typeLine(page, `printf '\\033[31m%s\\033[0m\\n' ${red}`);
    const redSpan = page.locator('.xterm-rows span', { hasText: new RegExp(`^${red}$`) });
    await redSpan.waitFor({ timeout: 10_000 });
    expect(await redSpan.evaluate((span) => getComputedStyle(span).color)).toBe('rgb(179, 38, 30)');

    // The pty has the size the view fitted: rows as drawn, and columns as the shell sees them.
    const size = async () => {
      const tag = `size-${randomBytes(3).toString('hex')}`;
      await typeLine(page, `echo ${tag} $(stty size)`);
      let found = '';
      await expect
        .poll(
          async () => {
            found = (await screenRows(page)).find((row) => new RegExp(`^${tag} \\d+ \\d+$`).test(row)) ?? '';
            return found;
          },
          { timeout: 10_000 },
        )
        .not.toBe('');
      const [, rows, cols] = found.split(' ').map(Number);
      return { rows: rows!, cols: cols!, drawnRows: (await screenRows(page)).length };
    };
    const before = await size();
    expect(before.rows).toBe(before.drawnRows);
    await page.setViewportSize({ width: 700, height: 500 });
    await eventually(async () => (await screenRows(page)).length, 10_000).toBeLessThan(before.drawnRows);
    const after = await size();
    expect(after.rows).toBe(after.drawnRows);
    expect(after.cols).toBeLessThan(before.cols);

    // A second terminal on the same workspace is refused while the first holds it.
    const second = await gui.open();
    await gui.signIn(second.page);
    await second.page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces/demo/term/terminal`);
    await expect
      .poll(() => second.page.getByTestId('terminal-status').textContent(), { timeout: 15_000 })
      .toMatch(/^This workspace's terminal is open elsewhere\. A session has one terminal at a time .* Take over$/);
    // The first is unaffected.
    const again = `again-${randomBytes(4).toString('hex')}`;
    await typeLine(page, `echo ${again}`);
    await eventually(async () => (await screenRows(page)).includes(again), 10_000).toBe(true);

    // Leaving the page closes its socket, so the second can now reconnect.
    await page.goto(`${gui.fleet.bridgeUrl}/ui/`);
    await second.page.getByRole('button', { name: 'Take over' }).click();
    await eventually(() => second.page.getByTestId('terminal-status').textContent(), 15_000).toBe('Connected.');
    expect(watch.pageErrors).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);
    expect(await second.watch.cspViolations()).toEqual([]);
  }, 120_000);

  it('shows the shell exit with its code', async () => {
    const { page } = await gui.open();
    await openTerminal(page, 'exits');
    await typeLine(page, 'exit 3');
    await eventually(() => page.getByTestId('terminal-status').textContent(), 15_000).toMatch(
      /^The shell exited \(code \d+\)\. Reconnect$/,
    );
    const status = await gui.api('GET', '/workspaces/demo/exits');
    expect(status.body.state).toBe('inactive');
  }, 60_000);
});
