// The GUI terminal as a daily user meets it (issue #31), in Chromium through `npx svc bridge` to `npx svc
// ship` and real tmux: the bridge restarted under an open terminal the way a supervisor does (SIGTERM, then
// started again on the same port) while the user types, the clipboard keys and bracketed paste, search
// through lines that scrolled off the screen (also within a burst longer than a screen, and before the page
// opened: the ship's history), wide characters at the ship's Unicode 11 widths, and what
// xterm.js styles per cell (24-bit colours, a selection) drawn under the GUI's CSP. Both processes run from
// a fresh, empty home directory, as a new user's or a container's first start would.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../helpers/browser.js';
import { startGuiFleet, type GuiFleet, eventually, screenRows } from './gui-fleet.js';

const found = chromiumAvailable('test/web/gui-terminal-daily');
let gui: GuiFleet;
const WORKSPACES = ['restart', 'clip', 'colour', 'scheme', 'search', 'history'];

beforeAll(async () => {
  if (!found) return;
  gui = await startGuiFleet('daily-ship', async (root) => {
    const home = join(root, 'home');
    await mkdir(home);
    const fresh = { HOME: home, XDG_CONFIG_HOME: '', XDG_CACHE_HOME: '', XDG_DATA_HOME: '' };
    return { bridge: fresh, ship: fresh };
  });
  for (const name of WORKSPACES) {
    expect(
      (await gui.api('POST', '/workspaces', { ship: 'daily-ship', repoName: 'demo', name, branch: 'main' })).status,
    ).toBe(201);
    expect((await gui.api('POST', `/workspaces/demo/${name}/activate`)).status).toBe(200);
  }
}, 180_000);
afterAll(async () => {
  await gui?.stop();
});

const status = (page: Page) => page.getByTestId('terminal-status').textContent();
const tag = () => randomBytes(4).toString('hex');

type Watch = Awaited<ReturnType<GuiFleet['open']>>['watch'];

async function openTerminal(name: string, permissions: string[] = []): Promise<{ page: Page; watch: Watch }> {
  const { context, page, watch } = await gui.open();
  if (permissions.length) await context.grantPermissions(permissions, { origin: gui.fleet.bridgeUrl });
  await gui.signIn(page);
  await page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces/demo/${name}/terminal`);
  await eventually(() => status(page), 15_000).toBe('Connected.');
  return { page, watch };
}

/** Nothing the page did broke: no page error, no CSP violation (xterm.js under the GUI's CSP). */
async function clean(watch: Watch): Promise<void> {
  expect(watch.pageErrors).toEqual([]);
  expect(await watch.cspViolations()).toEqual([]);
}

async function typeLine(page: Page, line: string): Promise<void> {
  await page.locator('.xterm-helper-textarea').focus();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

const showsRow = (page: Page, row: string, timeoutMs = 10_000) =>
  eventually(() => screenRows(page), timeoutMs).toContain(row);

describe.skipIf(!found)('the GUI terminal, day to day', () => {
  it('reconnects by itself across a bridge restart, and what was typed meanwhile arrives once, in order', async () => {
    const { page, watch } = await openTerminal('restart');
    const t = tag();
    await typeLine(page, `echo before-${t}`);
    await showsRow(page, `before-${t}`);
    // Marks this document: a reload would lose it.
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));

    await gui.fleet.stopBridge();
    await eventually(() => status(page), 15_000).toMatch(/^Connection lost: reconnecting…/);
    // Typed during the outage, in pieces, with the Enter: one command once it is back.
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type(`echo out-${t}-1`);
    await page.keyboard.type(` out-${t}-2`);
    await page.keyboard.press('Enter');

    await gui.fleet.startBridge();
    await eventually(() => status(page), 60_000).toBe('Connected.');
    await showsRow(page, `out-${t}-1 out-${t}-2`);
    const rows = await screenRows(page);
    // The full snapshot: what was on screen before the drop is still there, and the output came once.
    expect(rows).toContain(`before-${t}`);
    expect(rows.filter((row) => row === `out-${t}-1 out-${t}-2`)).toHaveLength(1);
    expect(rows.filter((row) => row.endsWith(`echo out-${t}-1 out-${t}-2`))).toHaveLength(1);
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    // And it is live: a new command echoes.
    await typeLine(page, `echo after-${t}`);
    await showsRow(page, `after-${t}`);
    await clean(watch);
  }, 180_000);

  it('copies a selection with Ctrl+Shift+C, sends ^C without one, and pastes in the bracketed form the session asked for', async () => {
    const { page, watch } = await openTerminal('clip', ['clipboard-read', 'clipboard-write']);
    const t = tag();
    await typeLine(page, `echo copy-${t}`);
    await showsRow(page, `copy-${t}`);
    // Double-click selects the word in xterm.js; Ctrl+Shift+C puts it on the clipboard.
    const row = page.locator('.xterm-rows > div', { hasText: new RegExp(`^copy-${t}\\s*$`) });
    const box = (await row.boundingBox())!;
    await page.mouse.dblclick(box.x + 20, box.y + box.height / 2);
    await page.keyboard.press('Control+Shift+C');
    await eventually(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`copy-${t}`);
    // The selection shows: its cells carry the selection's colours (styles the CSP would block as markup).
    const selectedBackground = () =>
      row.evaluate(
        (element) =>
          Array.from(element.querySelectorAll('span'))
            .map((span) => getComputedStyle(span).backgroundColor)
            .find((colour) => colour !== 'rgba(0, 0, 0, 0)') ?? null,
      );
    await eventually(selectedBackground).not.toBeNull();

    // Ctrl+C without a selection interrupts the shell's foreground command. It is pressed once the marker
    // printed just before `cat` shows: by then bash has put the tty back in cooked mode, so ^C is a signal.
    // Pressed earlier, readline's raw mode would queue it as a plain byte for cat to read.
    await page.mouse.click(box.x + box.width - 5, box.y + box.height / 2);
    await typeLine(page, `echo cat-${t}; cat`);
    await showsRow(page, `cat-${t}`);
    await page.keyboard.press('Control+C');
    await typeLine(page, `echo interrupted-${t}`);
    await showsRow(page, `interrupted-${t}`);

    // The session asks for bracketed paste; cat -v shows the raw bytes it receives (the tty's echo off, so
    // its lines alone show, in order).
    await typeLine(page, `stty -echo; printf '\\033[?2004h'; echo ready-${t}; cat -v`);
    await showsRow(page, `ready-${t}`);
    await page.evaluate(() => navigator.clipboard.writeText('one\ntwo'));
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.press('Control+Shift+V');
    await page.keyboard.press('Enter');
    await showsRow(page, 'two^[[201~');
    const rows = await screenRows(page);
    expect(rows[rows.indexOf('two^[[201~') - 1]).toBe('^[[200~one');
    // Shift+Insert pastes too, bracketed again.
    await page.evaluate(() => navigator.clipboard.writeText('three'));
    await page.keyboard.press('Shift+Insert');
    await page.keyboard.press('Enter');
    await showsRow(page, '^[[200~three^[[201~');
    await page.keyboard.press('Control+D');
    await typeLine(page, 'stty echo');
    await clean(watch);
  }, 120_000);

  it('draws 24-bit colours as the session wrote them', async () => {
    const { page, watch } = await openTerminal('colour');
    const t = tag();
    await typeLine(page, `printf '\\033[38;2;200;30;120mtrue-${t}\\033[0m\\n'`);
    await showsRow(page, `true-${t}`);
    const colour = await page
      .locator('.xterm-rows span', { hasText: `true-${t}` })
      .last()
      .evaluate((span) => getComputedStyle(span).color);
    expect(colour).toBe('rgb(200, 30, 120)');
    await clean(watch);
  }, 60_000);

  it('follows the system colour scheme, also while it is open', async () => {
    const { page, watch } = await openTerminal('scheme');
    const background = () =>
      page
        .locator('.xterm-scrollable-element')
        .first()
        .evaluate((element) => getComputedStyle(element).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    await eventually(background).toBe('rgb(255, 255, 255)');
    await page.emulateMedia({ colorScheme: 'dark' });
    await eventually(background).toBe('rgb(21, 23, 26)');
    // Text drawn in the scheme's foreground: the dark page's light text.
    const t = tag();
    await typeLine(page, `echo scheme-${t}`);
    await showsRow(page, `scheme-${t}`);
    const text = await page
      .locator('.xterm-rows > div', { hasText: new RegExp(`^scheme-${t}\\s*$`) })
      .evaluate((row) => getComputedStyle(row).color);
    expect(text).toBe('rgb(230, 231, 234)');
    await clean(watch);
  }, 60_000);

  it('searches the lines that scrolled off the screen', async () => {
    const { page, watch } = await openTerminal('search');
    const t = tag();
    // Lines arrive a few per frame, as output does: each frame shows the screen moved up.
    await typeLine(page, `echo needle-${t}; for i in $(seq 1 80); do echo filler $i; sleep 0.02; done; echo done-${t}`);
    await showsRow(page, `done-${t}`, 30_000);
    expect(await screenRows(page)).not.toContain(`needle-${t}`);
    await page.keyboard.press('Control+Shift+F');
    const field = page.getByRole('searchbox', { name: 'Search the terminal' });
    await expect.poll(() => field.evaluate((element) => element === document.activeElement)).toBe(true);
    await field.fill(`needle-${t}`);
    await field.press('Enter');
    // The command line and its output: both above the screen, the output found first (the newer one).
    await eventually(() => page.getByTestId('terminal-search-results').textContent()).toMatch(/^\d of 2$/);
    await showsRow(page, `needle-${t}`);

    // Wide characters take the ship's Unicode 11 widths: 🛸 (Unicode 10) is two cells, so the bar after it
    // lines up with the one after two letters.
    await page.keyboard.press('Escape');
    await typeLine(page, `clear; printf '\\360\\237\\233\\270|\\nab|\\n'`);
    await showsRow(page, 'ab|');
    const bars = await page.evaluate(() => {
      const rows = Array.from(document.querySelectorAll('.xterm-rows > div'));
      return ['🛸|', 'ab|'].map((text) => {
        const row = rows.find((candidate) => (candidate.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd() === text);
        if (!row) return null;
        const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.textContent!.indexOf('|');
          if (at < 0) continue;
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + 1);
          return Math.round(range.getBoundingClientRect().left - row.getBoundingClientRect().left);
        }
        return null;
      });
    });
    expect(bars[0]).not.toBeNull();
    expect(bars[0]).toBe(bars[1]);
    await clean(watch);
  }, 120_000);

  it("holds what scrolled off before it opened and within a burst longer than a screen (the ship's history)", async () => {
    const { page, watch } = await openTerminal('history');
    const t = tag();
    // One burst: hundreds of lines between two frames, none of which shows the screen moving up.
    await typeLine(page, `echo early-${t}; seq -f 'burst-%g' 1 400; echo done-${t}`);
    await showsRow(page, `done-${t}`, 30_000);
    const field = page.getByRole('searchbox', { name: 'Search the terminal' });
    const results = page.getByTestId('terminal-search-results');
    /** The search's summary for `needle`, asked again until it reads `expected` (history arrives once calm). */
    const finds = async (needle: string, expected: RegExp) => {
      await page.keyboard.press('Control+Shift+F');
      await field.fill(needle);
      await eventually(async () => {
        await field.press('Enter');
        return results.textContent();
      }).toMatch(expected);
      await page.keyboard.press('Escape');
    };
    // The command line and the output line; a line from the middle of the burst.
    await finds(`early-${t}`, /^\d of 2$/);
    await finds('burst-123', /^1 of 1$/);

    // A new page is a new connection: what scrolled off before it opened is there too.
    await page.reload();
    await eventually(() => status(page), 15_000).toBe('Connected.');
    await finds(`early-${t}`, /^\d of 2$/);
    await finds('burst-321', /^1 of 1$/);
    await clean(watch);
  }, 90_000);
});
