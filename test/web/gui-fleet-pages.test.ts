// The fleet pages in Chromium against `npx svc` processes: the New Ship form (Generate, Copy, a real ship
// started with the generated pair and registered through the form, online, pulling the armory with its
// ship token), the both-or-neither refusal, removal behind a confirmation; Resources with an offline ship
// inline; the Armory page; Repos (add with a provider, branches, remove); Users for an admin; and a
// member, who sees no admin controls, gets the bridge's 403 message, and changes their own password.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../helpers/browser.js';
import { killFleetTmux } from '../helpers/cli.js';
import { startNpx, type NpxProcess } from '../helpers/npx.js';
import { until } from '../helpers/poll.js';
import { call } from '../helpers/ship.js';
import { startGuiFleet, type GuiFleet, eventually } from './gui-fleet.js';

const found = chromiumAvailable('test/web/gui-fleet-pages');
let gui: GuiFleet;
let extra: NpxProcess | undefined;
let extraFleet = '';

beforeAll(async () => {
  if (found) gui = await startGuiFleet('main-ship');
}, 180_000);
afterAll(async () => {
  await extra?.terminateThenKill();
  if (extraFleet) await killFleetTmux(extraFleet).catch(() => undefined);
  await gui?.stop();
});

describe.skipIf(!found)('fleet pages', () => {
  it('registers a real ship with a generated token pair through the New Ship form', async () => {
    const { page, context, watch } = await gui.open();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gui.fleet.bridgeUrl });
    await gui.signIn(page);
    await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'Ships' }).click();
    const form = page.getByRole('form', { name: 'new ship' });
    expect(await form.textContent()).toContain('the bridge stores only its hash, so it cannot be shown again');

    // Generate: 43 base64url characters each, a different pair; Copy puts each on the clipboard.
    const shipField = form.locator('input[name="shipToken"]');
    const bridgeField = form.locator('input[name="bridgeToken"]');
    await form
      .locator('.token-field', { has: page.locator('input[name="shipToken"]') })
      .getByRole('button', { name: 'Generate' })
      .click();
    await form
      .locator('.token-field', { has: page.locator('input[name="bridgeToken"]') })
      .getByRole('button', { name: 'Generate' })
      .click();
    const shipToken = await shipField.inputValue();
    const bridgeToken = await bridgeField.inputValue();
    for (const token of [shipToken, bridgeToken]) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(shipToken, 'base64url')).toHaveLength(32);
    expect(shipToken).not.toBe(bridgeToken);
    await form.getByRole('button', { name: 'Copy Ship token' }).click();
    await eventually(() => page.evaluate(() => navigator.clipboard.readText())).toBe(shipToken);
    await form.getByRole('button', { name: 'Copy Bridge token' }).click();
    await eventually(() => page.evaluate(() => navigator.clipboard.readText())).toBe(bridgeToken);

    // A real ship that requires the bridge token and presents the ship token.
    extraFleet = join(gui.root, 'fleet-tokened');
    extra = startNpx(['ship', '--port', '0', '--name', 'tokened', '--fleet-directory', extraFleet], {
      SVC_BRIDGE_TOKEN: bridgeToken,
      SVC_SHIP_TOKEN: shipToken,
    });
    await extra.waitFor('ship listening', 60_000);
    const { port } = JSON.parse(readFileSync(join(extraFleet, 'atlas.json'), 'utf8')) as { port: number };
    const shipUrl = `http://localhost:${port}`;
    expect((await call(shipUrl, 'GET', '/workspaces')).status).toBe(401);

    // Exactly one token: the bridge's both-or-neither 400, as written.
    await form.getByLabel('URL').fill(shipUrl);
    await bridgeField.fill('');
    await form.getByRole('button', { name: 'Register' }).click();
    await eventually(() => form.getByRole('alert').textContent()).toBe(
      'a ship is registered with both a shipToken and a bridgeToken, or neither',
    );

    await bridgeField.fill(bridgeToken);
    await form.getByRole('button', { name: 'Register' }).click();
    await eventually(() => form.getByRole('status').textContent(), 15_000).toBe('Registered ship tokened (online).');
    const row = page.locator('tr[data-ship="tokened"]');
    await eventually(() => row.locator('td.status').textContent()).toBe('online');
    expect(await shipField.inputValue()).toBe('');
    const ships = (await gui.api('GET', '/ships')).body as Array<{ name: string; status: string }>;
    expect(ships.find((ship) => ship.name === 'tokened')).toMatchObject({ status: 'online' });
    // The ship token works: the ship pulled the bridge's armory with it.
    await until(
      async () => {
        const states = (await gui.api('GET', '/armory/ships')).body as Array<{
          ship: string;
          state: { revision: string | null; lastError: string | null } | null;
        }>;
        const state = states.find((entry) => entry.ship === 'tokened')?.state;
        return state?.revision && state.lastError === null ? state : null;
      },
      'the tokened ship synced the armory',
      15_000,
    );
    expect(watch.dialogs).toEqual([]);
  }, 150_000);

  it('shows resources with an offline ship inline, the armory, and removes a ship after confirming', async () => {
    const { page } = await gui.open();
    await gui.signIn(page);
    await page.goto(`${gui.fleet.bridgeUrl}/ui/armory`);
    const manifest = (await gui.api('GET', '/armory')).body as { revision: string };
    await eventually(() => page.getByTestId('revision').textContent()).toBe(manifest.revision);
    await eventually(() => page.locator('tr[data-ship="tokened"]').getByTestId('sync').textContent()).toBe('in sync');
    expect(await page.locator('tr[data-ship="tokened"] td').nth(2).textContent()).toBe(manifest.revision.slice(0, 12));

    await extra!.terminateThenKill();
    extra = undefined;
    await until(
      async () =>
        ((await gui.api('GET', '/ships')).body as Array<{ name: string; status: string }>).some(
          (s) => s.name === 'tokened' && s.status === 'offline',
        ),
      'tokened offline',
      15_000,
    );
    await page.goto(`${gui.fleet.bridgeUrl}/ui/resources`);
    const online = page.locator('tr[data-ship="main-ship"]');
    await eventually(() => online.locator('td').nth(2).textContent(), 10_000).toMatch(/^\d+% of \d+ cores$/);
    expect(await online.locator('td').nth(3).textContent()).toMatch(/^\d+\.\d GiB \/ \d+\.\d GiB \(\d+%\)$/);
    expect(await page.locator('tr[data-ship="tokened"]').textContent()).toBe('tokenedofflineoffline: no data');

    await page.goto(`${gui.fleet.bridgeUrl}/ui/ships`);
    const row = page.locator('tr[data-ship="tokened"]');
    await row.getByRole('button', { name: 'Remove' }).click();
    expect(await row.getByRole('group', { name: 'confirm' }).textContent()).toContain('Remove ship tokened?');
    await row.getByRole('button', { name: 'Yes, remove' }).click();
    await eventually(() => row.count(), 10_000).toBe(0);
    expect(((await gui.api('GET', '/ships')).body as Array<{ name: string }>).map((s) => s.name)).toEqual([
      'main-ship',
    ]);
  }, 90_000);

  it('adds a repo with a provider, lists its branches, and removes it', async () => {
    const { page } = await gui.open();
    await gui.signIn(page);
    await page.goto(`${gui.fleet.bridgeUrl}/ui/repos`);
    const form = page.getByRole('form', { name: 'add repo' });
    await form.getByLabel('Name').fill('second');
    await form.getByLabel('Clone URL').fill(gui.remote.url);
    await form.getByLabel('Provider').selectOption('custom');
    await form.getByRole('button', { name: 'Add' }).click();
    const row = page.locator('tr[data-repo="second"]');
    await row.waitFor();
    expect((await gui.api('GET', '/repos')).body).toContainEqual({
      name: 'second',
      url: gui.remote.url,
      provider: 'custom',
    });
    await row.getByRole('button', { name: 'Branches' }).click();
    const branches = page.getByLabel('branches');
    await eventually(() =>
      branches.locator('li').evaluateAll((items) => items.map((li) => li.textContent?.split(' ')[0])),
    ).toEqual(['feature', 'main', 'other']);

    // The bridge's refusal of a duplicate, as written.
    await form.getByLabel('Name').fill('second');
    await form.getByLabel('Clone URL').fill(gui.remote.url);
    await form.getByRole('button', { name: 'Add' }).click();
    await eventually(() => form.getByRole('alert').textContent()).toBe('repo already registered: second');

    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByRole('button', { name: 'Yes, remove' }).click();
    await eventually(() => row.count()).toBe(0);
    expect(((await gui.api('GET', '/repos')).body as Array<{ name: string }>).map((r) => r.name)).toEqual(['demo']);
  }, 60_000);

  it('manages users as an admin; a member sees no admin controls, gets the 403 message, and changes their password', async () => {
    const admin = await gui.open();
    await gui.signIn(admin.page);
    await admin.page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'Users' }).click();
    const form = admin.page.getByRole('form', { name: 'add user' });
    await form.getByLabel('Username').fill('mia');
    await form.getByLabel('Email').fill('mia@example.com');
    await form.getByLabel('Password').fill('mia-password-1');
    await form.getByLabel('Role').selectOption('member');
    await form.getByRole('button', { name: 'Add' }).click();
    const mia = admin.page.locator('tr[data-user="mia"]');
    await mia.waitFor();
    expect(
      ((await gui.api('GET', '/users')).body as Array<{ username: string; role: string }>).find(
        (u) => u.username === 'mia',
      ),
    ).toMatchObject({ role: 'member' });
    await mia.getByLabel('role of mia').selectOption('admin');
    await until(
      async () =>
        ((await gui.api('GET', '/users')).body as Array<{ username: string; role: string }>).find(
          (u) => u.username === 'mia',
        )?.role === 'admin',
      'mia admin',
      5000,
    );
    await mia.getByLabel('role of mia').selectOption('member');
    await until(
      async () =>
        ((await gui.api('GET', '/users')).body as Array<{ username: string; role: string }>).find(
          (u) => u.username === 'mia',
        )?.role === 'member',
      'mia member',
      5000,
    );

    const member = await gui.open();
    await gui.signIn(member.page, 'mia', 'mia-password-1');
    const nav = member.page.getByRole('navigation', { name: 'main' });
    expect(await nav.getByRole('link', { name: 'Users' }).count()).toBe(0);
    expect(await nav.getByTestId('whoami').textContent()).toBe('mia');
    await nav.getByRole('link', { name: 'Ships' }).click();
    await member.page.locator('tr[data-ship="main-ship"]').waitFor();
    expect(await member.page.getByRole('form', { name: 'new ship' }).count()).toBe(0);
    expect(await member.page.getByRole('button', { name: 'Remove' }).count()).toBe(0);
    await member.page.goto(`${gui.fleet.bridgeUrl}/ui/users`);
    await eventually(() => member.page.getByRole('alert').first().textContent()).toBe(
      'this endpoint requires an admin',
    );

    await member.page.goto(`${gui.fleet.bridgeUrl}/ui/account`);
    const change = member.page.getByRole('form', { name: 'change password' });
    await change.getByLabel('New password').fill('mia-new-password-2');
    await change.getByLabel('Repeat').fill('mia-new-password-2');
    await change.getByRole('button', { name: 'Change password' }).click();
    await member.page.getByRole('form', { name: 'sign in' }).waitFor({ timeout: 10_000 });
    expect(
      (await call(gui.fleet.bridgeUrl, 'POST', '/auth/login', { username: 'mia', password: 'mia-password-1' })).status,
    ).toBe(401);
    expect(
      (await call(gui.fleet.bridgeUrl, 'POST', '/auth/login', { username: 'mia', password: 'mia-new-password-2' }))
        .status,
    ).toBe(200);

    await mia.getByRole('button', { name: 'Remove' }).click();
    await mia.getByRole('button', { name: 'Yes, remove' }).click();
    await eventually(() => mia.count()).toBe(0);
    expect(((await gui.api('GET', '/users')).body as Array<{ username: string }>).map((u) => u.username)).not.toContain(
      'mia',
    );
  }, 90_000);
});
