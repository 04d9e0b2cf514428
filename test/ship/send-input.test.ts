// Issue #16's `send`: POST /workspaces/:repo/:name/input on a real ship (real tmux) and routed by a real
// bridge. The text reaches the pane as typed (read back through `cat`), hostile text (an OSC sequence, a tmux
// command separator, a tmux format) arrives literally and the tmux server lives, and the error rows: missing,
// inactive, invalid identifier, over the cap.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bridge } from '../../bridge/server.js';
import { TERMINAL_INPUT_MAX_BYTES } from '../../protocol/index.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import type { Tmux } from '../../ship/sessions/tmux.js';
import { startRoutedFleet, type RoutedFleet } from '../helpers/bridge.js';
import type { RemoteFixture } from '../helpers/git-fixtures.js';
import { until } from '../helpers/poll.js';
import { call, makeTempRoot, path, removeRoot, type TestShip } from '../helpers/ship.js';

let root: string;
let remote: RemoteFixture;
let ship: TestShip;
let bridge: Bridge;
let fleet: RoutedFleet | undefined;

beforeAll(async () => {
  root = await makeTempRoot();
  fleet = await startRoutedFleet(root, 'app', { name: 'sender' });
  ({ ship, bridge, remote } = fleet);
}, 60_000);
afterAll(async () => {
  await fleet?.close();
  if (root) await removeRoot(root);
});

/** The pane's visible text, trailing blank lines dropped. */
async function paneText(tmux: Tmux, session: string): Promise<string> {
  const result = await tmux.run(['capture-pane', '-p', '-t', `=${session}:`]);
  return result.stdout.replace(/\n+$/, '');
}

/** A workspace created and activated through `base` (ship or bridge), whose shell then runs `cat`. */
async function catWorkspace(base: string, name: string): Promise<string> {
  const body =
    base === bridge.url
      ? { ship: 'sender', repoName: 'app', name, branch: 'main' }
      : { url: remote.url, repoName: 'app', name, branch: 'main' };
  expect((await call(base, 'POST', '/workspaces', body)).status).toBe(201);
  expect((await call(base, 'POST', path('app', name, '/activate'))).status).toBe(200);
  const session = sessionName('app', name);
  const tmux = ship.ship.tmux;
  // The shell is ready for input once it has drawn its prompt.
  await until(async () => /[$#] ?$/.test(await paneText(tmux, session)), 'the shell prompt');
  expect(await call(base, 'POST', path('app', name, '/input'), { text: 'cat' })).toMatchObject({
    status: 200,
    body: { ok: true },
  });
  await until(async () => {
    const result = await tmux.run(['display-message', '-p', '-t', `=${session}:`, '#{pane_current_command}']);
    return result.stdout.trim() === 'cat';
  }, 'cat in the foreground');
  // The shell turns bracketed paste off as it runs a command; let tmux read that before the next paste.
  await new Promise((r) => setTimeout(r, 200));
  return session;
}

describe('POST /workspaces/:repo/:name/input', () => {
  it('types the text into the session and presses Enter: cat reads it back', async () => {
    const session = await catWorkspace(ship.url, 'echo');
    expect(await call(ship.url, 'POST', path('app', 'echo', '/input'), { text: 'hello from send' })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    // The terminal echoes the line, then cat prints it.
    await until(
      async () => (await paneText(ship.ship.tmux, session)).endsWith('hello from send\nhello from send'),
      'the echoed line',
    );
  });

  it('with enter false leaves the line unsent until an empty send presses Enter', async () => {
    const session = await catWorkspace(ship.url, 'partial');
    expect(
      (await call(ship.url, 'POST', path('app', 'partial', '/input'), { text: 'half a line', enter: false })).status,
    ).toBe(200);
    await until(async () => (await paneText(ship.ship.tmux, session)).endsWith('cat\nhalf a line'), 'the typed text');
    // A window, not a condition: nothing more (no Enter) may reach the pane.
    await new Promise((r) => setTimeout(r, 200));
    expect(await paneText(ship.ship.tmux, session)).toMatch(/cat\nhalf a line$/);
    expect((await call(ship.url, 'POST', path('app', 'partial', '/input'), { text: '', enter: true })).status).toBe(
      200,
    );
    await until(
      async () => (await paneText(ship.ship.tmux, session)).endsWith('half a line\nhalf a line'),
      'the line sent',
    );
  });

  it('delivers control sequences, tmux separators and formats as text; the tmux server lives and runs nothing', async () => {
    const session = await catWorkspace(ship.url, 'hostile');
    const marker = join(root, `pwned-${process.pid}`);
    const text = `\x1b]2;sent-title\x07 ;kill-server \\; kill-server #(touch ${marker}) #{session_name}`;
    expect((await call(ship.url, 'POST', path('app', 'hostile', '/input'), { text })).status).toBe(200);
    // cat wrote the OSC back to the terminal: it reached the application as bytes (the pane title is its proof).
    await until(async () => {
      const title = await ship.ship.tmux.run(['display-message', '-p', '-t', `=${session}:`, '#{pane_title}']);
      return title.stdout.trim() === 'sent-title';
    }, 'the title cat echoed');
    const screen = await paneText(ship.ship.tmux, session);
    expect(screen).toContain(` ;kill-server \\; kill-server #(touch ${marker}) #{session_name}`);
    expect(existsSync(marker)).toBe(false);
    const sessions = await ship.ship.tmux.listSessions();
    expect(sessions.has(session)).toBe(true);
    expect(sessions.has('svc-control')).toBe(true);
    // No buffer is left behind on the server.
    expect((await ship.ship.tmux.run(['list-buffers', '-F', '#{buffer_name}'])).stdout.trim()).toBe('');
  });

  it('answers 404, 400 inactive, 400 invalid identifier, and 422 over the cap; a cap-sized escaped body fits', async () => {
    expect(
      (await call(ship.url, 'POST', '/workspaces', { url: remote.url, repoName: 'app', name: 'idle', branch: 'main' }))
        .status,
    ).toBe(201);
    expect(await call(ship.url, 'POST', path('app', 'nope', '/input'), { text: 'x' })).toMatchObject({
      status: 404,
      body: { error: 'workspace not found: app/nope' },
    });
    expect(await call(ship.url, 'POST', path('app', 'idle', '/input'), { text: 'x' })).toMatchObject({
      status: 400,
      body: { error: 'workspace not active: app/idle' },
    });
    expect((await call(ship.url, 'POST', path('app', 'a\u0001', '/input'), { text: 'x' })).status).toBe(400);
    expect(
      (await call(ship.url, 'POST', path('app', 'idle', '/input'), { text: 'a'.repeat(TERMINAL_INPUT_MAX_BYTES + 1) }))
        .status,
    ).toBe(422);
    expect(
      (
        await call(ship.url, 'POST', path('app', 'idle', '/input'), {
          text: 'é'.repeat(TERMINAL_INPUT_MAX_BYTES / 2 + 1),
        })
      ).status,
    ).toBe(422);
    expect((await call(ship.url, 'POST', path('app', 'idle', '/input'), { text: 5 })).status).toBe(422);
    // Every byte a control character: 6 bytes of JSON each, still within the route's body limit.
    const escaped = await call(ship.url, 'POST', path('app', 'idle', '/input'), {
      text: '\x01'.repeat(TERMINAL_INPUT_MAX_BYTES),
    });
    expect(escaped).toMatchObject({ status: 400, body: { error: 'workspace not active: app/idle' } });
  });
});

describe('POST /workspaces/:repo/:name/input through the bridge', () => {
  it('routes to the owning ship: cat reads the text back', async () => {
    const session = await catWorkspace(bridge.url, 'routed');
    expect(await call(bridge.url, 'POST', path('app', 'routed', '/input'), { text: 'via the bridge' })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    await until(
      async () => (await paneText(ship.ship.tmux, session)).endsWith('via the bridge\nvia the bridge'),
      'the echoed line',
    );
  });

  it("passes the ship's errors through and checks the cap itself", async () => {
    expect(
      (
        await call(bridge.url, 'POST', '/workspaces', {
          ship: 'sender',
          repoName: 'app',
          name: 'resting',
          branch: 'main',
        })
      ).status,
    ).toBe(201);
    expect(await call(bridge.url, 'POST', path('app', 'resting', '/input'), { text: 'x' })).toMatchObject({
      status: 400,
      body: { error: 'workspace not active: app/resting' },
    });
    expect((await call(bridge.url, 'POST', path('app', 'missing', '/input'), { text: 'x' })).status).toBe(404);
    expect(
      (
        await call(bridge.url, 'POST', path('app', 'resting', '/input'), {
          text: 'a'.repeat(TERMINAL_INPUT_MAX_BYTES + 1),
        })
      ).status,
    ).toBe(422);
    const escaped = await call(bridge.url, 'POST', path('app', 'resting', '/input'), {
      text: '\x1b'.repeat(TERMINAL_INPUT_MAX_BYTES),
      enter: false,
    });
    expect(escaped).toMatchObject({ status: 400, body: { error: 'workspace not active: app/resting' } });
  });
});
