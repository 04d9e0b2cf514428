// `svc client attach` run for real inside a pty: it renders the workspace screen, forwards keys and window
// resizes, writes only sequences it generates (no OSC/DCS from the workspace reaches the user), detaches on
// Ctrl-] and restores the terminal, and passes the shell's exit code through.
import { insecureBridge } from './../helpers/bridge.js';
import { resolve } from 'node:path';
import { spawn as spawnPty, type IPty } from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { settles, until } from '../helpers/poll.js';
import { call } from '../helpers/ship.js';
import { shipFixture } from '../helpers/fixture.js';
import { sessionName } from '../../ship/sessions/session-names.js';

const { Terminal } = xterm;
const CLI = resolve(import.meta.dirname, '../../bin/svc.js');
const fx = shipFixture({}, { repo: 'cli', names: ['a', 'b', 'c'] });

interface Attached {
  pty: IPty;
  bytes: () => string;
  view: InstanceType<typeof Terminal>;
  exited: Promise<number>;
  until(predicate: (text: string) => boolean, timeoutMs?: number): Promise<string>;
}

function viewText(view: InstanceType<typeof Terminal>): string {
  const lines: string[] = [];
  for (let y = 0; y < view.rows; y++) lines.push(view.buffer.active.getLine(y)?.translateToString(true) ?? '');
  return lines.join('\n');
}

function attachCli(name: string, target: string[] = ['--url', fx.ship.url]): Attached {
  const pty = spawnPty(process.execPath, [CLI, 'client', ...target, 'attach', 'cli', name], {
    name: 'xterm-256color',
    cols: 90,
    rows: 20,
    env: { ...process.env, LANG: 'C.UTF-8', XDG_CONFIG_HOME: `${fx.root}/config` } as Record<string, string>,
  });
  const view = new Terminal({ cols: 90, rows: 20, allowProposedApi: true });
  let bytes = '';
  pty.onData((data) => {
    bytes += data;
    view.write(data);
  });
  const exited = new Promise<number>((resolveExit) => pty.onExit(({ exitCode }) => resolveExit(exitCode)));
  return {
    pty,
    bytes: () => bytes,
    view,
    exited,
    until(predicate, timeoutMs = 10_000) {
      const shown = async () => {
        await new Promise<void>((r) => view.write('', r)); // what the pty wrote so far, parsed
        const text = viewText(view);
        return predicate(text) && text;
      };
      return until(shown, () => `the terminal showed:\n${viewText(view)}`, timeoutMs, 25);
    },
  };
}

describe('svc client attach', () => {
  it('shows the workspace, forwards keys, and detaches on Ctrl-] restoring the terminal', async () => {
    const cli = attachCli('a');
    await cli.until((text) => /[$#] ?$/m.test(text));
    cli.pty.write('echo attached-$((40+2))\r');
    await cli.until((text) => text.includes('attached-42'));
    cli.pty.write('\x1d');
    expect(await cli.exited).toBe(0);
    expect(cli.bytes()).toContain('\x1b[?1049h');
    expect(cli.bytes().endsWith('\x1b[?1049l') || cli.bytes().includes('\x1b[?1049l')).toBe(true);
    expect(cli.bytes()).toContain('detached from cli/a');
    // The session survives the detach.
    expect((await fx.ship.ship.tmux.listSessions()).has(sessionName('cli', 'a'))).toBe(true);
    cli.view.dispose();
  });

  it('attaches through a bridge with --bridge-url', async () => {
    const { startBridge } = await import('../../bridge/server.js');
    const { pino } = await import('pino');
    const bridge = await startBridge({
      ...insecureBridge,
      port: 0,
      dataDirectory: `${fx.root}/bridge`,
      logger: pino({ level: 'silent' }),
    });
    try {
      expect((await call(bridge.url, 'POST', '/ships', { url: fx.ship.url })).status).toBe(201);
      const cli = attachCli('a', ['--bridge-url', bridge.url]);
      await cli.until((text) => /[$#] ?$/m.test(text));
      cli.pty.write('echo through-bridge\r');
      await cli.until((text) => text.includes('through-bridge'));
      cli.pty.write('\x1d');
      expect(await cli.exited).toBe(0);
      cli.view.dispose();
    } finally {
      await bridge.close();
    }
  }, 60_000);

  it('forwards window resizes', async () => {
    const cli = attachCli('b');
    await cli.until((text) => /[$#] ?$/m.test(text));
    cli.pty.resize(100, 30);
    cli.view.resize(100, 30);
    const size = ['display-message', '-p', '-t', `=${sessionName('cli', 'b')}:`, '#{pane_width}x#{pane_height}'];
    const resized = async () => (await fx.ship.ship.tmux.run(size)).stdout.trim() === '100x30';
    await settles(until(resized, 'the pane at 100x30', 2_000, 20));
    // tmux tells the pane's tty of the new size after it resizes the window; nothing outside shows when.
    await new Promise((r) => setTimeout(r, 300));
    cli.pty.write('clear; stty size\r');
    await cli.until((text) => /^30 100\s*$/m.test(text));
    cli.pty.write('\x1d');
    await cli.exited;
    cli.view.dispose();
  });

  it("never passes the workspace's OSC, DCS or title sequences to the user's terminal, and exits with the shell's code", async () => {
    const cli = attachCli('c');
    const titles: string[] = [];
    cli.view.onTitleChange((title) => titles.push(title));
    await cli.until((text) => /[$#] ?$/m.test(text));
    cli.pty.write(
      "printf '\\033]52;c;cHduZWQ=\\007\\033]0;evil-title\\007\\033P$q\"p\\033\\\\\\033]8;;http://evil.example\\033\\\\link\\033]8;;\\033\\\\ visible-end\\n'\r",
    );
    await cli.until((text) => text.includes('link visible-end'));
    cli.pty.write('exit 4\r');
    expect(await cli.exited).toBe(4);
    expect(cli.bytes()).not.toContain('\x1b]');
    expect(cli.bytes()).not.toContain('\x1bP');
    expect(titles).toEqual([]);
    cli.view.dispose();
  });
});
