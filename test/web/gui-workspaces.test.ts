// Workspaces driven from the GUI in Chromium against `npx svc` processes, checked on disk (the ship's fleet
// directory, real git) and through the API: create with a branch suggested from the remote, activate,
// switch branch, the diff view and its toggles, the bridge's error messages, deactivate, and delete behind
// its confirmation.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../helpers/browser.js';
import { call, path } from '../helpers/ship.js';
import { startGuiFleet, type GuiFleet, eventually } from './gui-fleet.js';

const found = chromiumAvailable('test/web/gui-workspaces');
let gui: GuiFleet;

beforeAll(async () => {
  if (found) gui = await startGuiFleet('ws-ship');
}, 180_000);
afterAll(async () => {
  await gui?.stop();
});

const headOf = (directory: string) =>
  execFileSync('git', ['-C', directory, 'rev-parse', '--abbrev-ref', 'HEAD'], { encoding: 'utf8' }).trim();

describe.skipIf(!found)('workspaces in the GUI', () => {
  it('creates, activates, switches branch, shows the diff, and deletes, as the disk and the API see it', async () => {
    const { page, watch } = await gui.open('/ui/workspaces');
    await gui.signIn(page);
    const directory = join(gui.fleet.fleetDirectory, 'demo', 'from-gui');

    // Create: ship and repo pickers from the API, branch suggestions from the remote.
    await page.getByRole('link', { name: 'New workspace' }).click();
    const form = page.getByRole('form', { name: 'create workspace' });
    await form.getByLabel('Ship').selectOption('ws-ship');
    await form.getByLabel('Repo').selectOption('demo');
    await form.getByRole('combobox', { name: 'Branch' }).click();
    await eventually(() =>
      form.getByRole('listbox', { name: 'Branch suggestions' }).getByRole('option').allTextContents(),
    ).toEqual(['feature', 'main', 'other']);
    await form.getByLabel('Name').fill('from-gui');
    await form.getByRole('combobox', { name: 'Branch' }).fill('feature');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('region', { name: 'workspace', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/workspaces/demo/from-gui');
    await eventually(() => page.getByTestId('state').textContent()).toBe('inactive');
    expect(await page.getByTestId('branch').textContent()).toBe('feature');
    expect(existsSync(join(directory, '.git'))).toBe(true);
    expect(headOf(directory)).toBe('feature');
    expect((await gui.api('GET', '/workspaces/demo/from-gui')).body).toMatchObject({
      state: 'inactive',
      branch: 'feature',
      ship: 'ws-ship',
    });

    // Activate.
    await page.getByRole('button', { name: 'Activate' }).click();
    await eventually(() => page.getByTestId('state').textContent(), 10_000).toBe('active');
    expect((await gui.api('GET', '/workspaces/demo/from-gui')).body).toMatchObject({ state: 'active' });
    expect(await page.getByTestId('diff-counts').textContent()).toBe('+0 −0, 0 commits ahead');

    // Switch branch.
    const switching = page.getByRole('form', { name: 'switch branch' });
    await switching.getByRole('combobox', { name: 'Switch branch' }).fill('other');
    await switching.getByRole('button', { name: 'Switch' }).click();
    await eventually(() => page.getByTestId('branch').textContent(), 10_000).toBe('other');
    expect(headOf(directory)).toBe('other');

    // The review: a change made on disk (no event) shows once the status's diff counts move, as text.
    appendFileSync(join(directory, 'README.md'), 'a line from the GUI test <b>not bold</b>\n');
    const fileList = page.getByRole('navigation', { name: 'changed files' });
    await eventually(() => fileList.locator('li').allTextContents(), 25_000).toEqual(['README.md +1 −0']);
    const readme = page.getByRole('region', { name: 'diff of README.md' });
    expect(await readme.locator('.diff-code-insert').allTextContents()).toEqual([
      'a line from the GUI test <b>not bold</b>',
    ]);
    expect(await readme.locator('b').count()).toBe(0);
    // The spec's options as controls: untracked files, paths, staged.
    writeFileSync(join(directory, 'notes.md'), 'new file\n');
    await page.getByLabel('untracked files').check();
    await eventually(() => fileList.locator('li').allTextContents()).toEqual(['README.md +1 −0', 'notes.md +1 −0']);
    const options = page.getByRole('form', { name: 'diff options' });
    await options.getByLabel('Paths').fill('notes.md');
    await options.getByRole('button', { name: 'Apply' }).click();
    await eventually(() => fileList.locator('li').allTextContents()).toEqual(['notes.md +1 −0']);
    await options.getByLabel('Paths').fill('');
    await options.getByRole('button', { name: 'Apply' }).click();
    await page.getByLabel('untracked files').uncheck();
    await page.getByLabel('staged').check();
    await eventually(() => page.getByTestId('no-changes').textContent()).toBe('No changes staged.');
    execFileSync('git', ['-C', directory, 'add', 'README.md']);
    await page.getByLabel('staged').uncheck();
    await page.getByLabel('staged').check();
    await eventually(() => fileList.locator('li').allTextContents()).toEqual(['README.md +1 −0']);

    // A failing action shows the bridge's own message.
    const duplicate = await gui.api('POST', '/workspaces', {
      ship: 'ws-ship',
      repoName: 'demo',
      name: 'from-gui',
      branch: 'main',
    });
    expect(duplicate.status).toBe(409);
    await page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces/new`);
    const again = page.getByRole('form', { name: 'create workspace' });
    await again.getByLabel('Ship').selectOption('ws-ship');
    await again.getByLabel('Repo').selectOption('demo');
    await again.getByLabel('Name').fill('from-gui');
    await again.getByRole('combobox', { name: 'Branch' }).fill('main');
    await again.getByRole('button', { name: 'Create' }).click();
    await eventually(() => again.getByRole('alert').textContent()).toBe(duplicate.body.error);

    // Delete, behind its confirmation, from the list.
    await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'Workspaces' }).click();
    const row = page.locator('tr[data-key="demo/from-gui"]');
    await row.getByRole('button', { name: 'Delete' }).click();
    expect(await row.getByRole('group', { name: 'confirm' }).textContent()).toContain(
      'Delete demo/from-gui and its directory?',
    );
    await row.getByRole('button', { name: 'Cancel' }).click();
    expect(existsSync(directory)).toBe(true);
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await eventually(() => row.count(), 10_000).toBe(0);
    expect(existsSync(directory)).toBe(false);
    expect((await gui.api('GET', '/workspaces/demo/from-gui')).status).toBe(404);
    expect(watch.dialogs).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
  }, 120_000);

  it('filters the list and deactivates from it', async () => {
    for (const name of ['alpha-one', 'beta-two']) {
      expect(
        (await gui.api('POST', '/workspaces', { ship: 'ws-ship', repoName: 'demo', name, branch: 'main' })).status,
      ).toBe(201);
    }
    expect((await gui.api('POST', '/workspaces/demo/beta-two/activate')).status).toBe(200);
    const { page } = await gui.open('/ui/workspaces');
    await gui.signIn(page);
    const keys = () =>
      page.locator('table.workspaces tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-key')));
    await eventually(keys).toEqual(['demo/alpha-one', 'demo/beta-two']);
    await page.getByLabel('Show').selectOption('active');
    await eventually(keys).toEqual(['demo/beta-two']);
    await page.getByLabel('Show').selectOption('inactive');
    await eventually(keys).toEqual(['demo/alpha-one']);
    await page.getByLabel('Show').selectOption('all');
    await page.getByLabel('Filter').fill('BETA');
    await eventually(keys).toEqual(['demo/beta-two']);
    await page.getByLabel('Filter').fill('');

    const row = page.locator('tr[data-key="demo/beta-two"]');
    await row.getByRole('button', { name: 'Deactivate' }).click();
    await eventually(() => row.locator('td.state').textContent(), 10_000).toBe('inactive');
    expect((await gui.api('GET', '/workspaces/demo/beta-two')).body).toMatchObject({ state: 'inactive' });
    // The detail view is live: what changes elsewhere (the API, the agent through its ship) shows without a
    // reload, and an action offered is the one the workspace's state allows now.
    expect((await gui.api('POST', '/workspaces/demo/alpha-one/activate')).status).toBe(200);
    // The page fetches the bridge's agent histories once after its event stream's first sync; wait for that so
    // what is recorded below is only what the live updates cause.
    const historyFetched = page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/workspaces/agent-history',
    );
    // The Switch branch box lists the repo's branches once the workspace is known: on a slow machine that
    // request can leave after the state shows, so it is awaited too before recording starts.
    const branchesFetched = page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/repos/demo/branches',
    );
    await page.goto(`${gui.fleet.bridgeUrl}/ui/workspaces/demo/alpha-one`);
    await eventually(() => page.getByTestId('state').textContent()).toBe('active');
    await historyFetched;
    await branchesFetched;
    const requests: string[] = [];
    page.on('request', (request) => requests.push(new URL(request.url()).pathname));
    expect((await gui.api('POST', '/workspaces/demo/alpha-one/deactivate')).status).toBe(200);
    await eventually(() => page.getByTestId('state').textContent(), 10_000).toBe('inactive');
    await page.getByRole('button', { name: 'Activate' }).waitFor();
    expect(await page.getByRole('button', { name: 'Deactivate' }).count()).toBe(0);
    expect((await gui.api('POST', '/workspaces/demo/alpha-one/activate')).status).toBe(200);
    await eventually(() => page.getByTestId('state').textContent(), 10_000).toBe('active');
    expect((await gui.api('POST', '/workspaces/demo/alpha-one/branch', { branch: 'other' })).status).toBe(200);
    await eventually(() => page.getByTestId('branch').textContent(), 10_000).toBe('other');
    const ship = gui.fleet.shipUrl;
    expect(
      (await call(ship, 'POST', `${path('demo', 'alpha-one')}/agent/init`, { model: 'm', provider: 'p', harness: 'h' }))
        .status,
    ).toBe(200);
    expect(
      (
        await call(ship, 'POST', `${path('demo', 'alpha-one')}/agent/status`, {
          state: 'building',
          description: 'compiling, seen live',
        })
      ).status,
    ).toBe(200);
    const agent = page.getByRole('region', { name: 'agent' });
    await eventually(() => agent.getByTestId('agent-description').textContent(), 10_000).toBe('compiling, seen live');
    expect(await agent.locator('.badge').first().textContent()).toBe('building');
    // Nothing but the workspace's own status and diff was fetched for it: no page reload.
    expect(requests.filter((request) => !request.startsWith('/workspaces/demo/alpha-one'))).toEqual([]);
    expect((await gui.api('DELETE', '/workspaces/demo/alpha-one')).status).toBe(200);
    await eventually(() => page.getByRole('status').textContent(), 10_000).toBe('This workspace was removed.');
    expect(await page.getByRole('button', { name: 'Activate' }).count()).toBe(0);
  }, 120_000);
});
