// The GUI terminal's reconnection (web/src/terminal/reconnecting-terminal.ts) over scripted sockets and a
// scripted clock: a drop is retried on the backoff with a new socket each time, keystrokes typed meanwhile
// are sent once, in order, right after the new session's first grid, a full queue says so and takes
// nothing more, "open elsewhere" (the ship's close reason) waits for the user to take over, a shell exit and
// a protocol violation end it, and a buffer-limit close (a page that fell behind) is retried. Also the key
// map (clipboard-keys.ts) and the input queue's bound.
import { describe, expect, it } from 'vitest';
import { TERMINAL_CLOSE, type Cell, type GridFrame } from '../../protocol/terminal.js';
import { Backoff } from '../../protocol/backoff.js';
import { keyAction } from '../../web/src/terminal/clipboard-keys.js';
import { pastable } from '../../web/src/terminal/clipboard.js';
import { InputQueue } from '../../web/src/terminal/input-queue.js';
import { ReconnectingTerminal, type TerminalStatus } from '../../web/src/terminal/reconnecting-terminal.js';
import { ScriptedSocket } from './scripted-socket.js';

const grid = (seq: number, text: string): GridFrame => ({
  type: 'grid',
  seq,
  cols: 4,
  rows: 1,
  cursor: { x: 0, y: 0, visible: true },
  cells: [[...text.padEnd(4)].map((t): Cell => (t === ' ' ? 0 : { t }))],
});

/** A terminal whose sockets, timers and draws the test runs by hand. */
function harness(queueBytes?: number) {
  const sockets: ScriptedSocket[] = [];
  const timers: { run: () => void; ms: number }[] = [];
  const statuses: TerminalStatus[] = [];
  const drawn: string[] = [];
  let refuse = false;
  const terminal = new ReconnectingTerminal(
    {
      open: async () => {
        if (refuse) throw new Error('bridge down');
        const socket = new ScriptedSocket();
        sockets.push(socket);
        return socket;
      },
      timers: { setTimeout: (run, ms) => timers.push({ run, ms }), clearTimeout: () => undefined },
      screen: (screen, _scrolled, acknowledge) => {
        drawn.push(screen.text());
        acknowledge();
      },
      history: () => undefined,
      status: (status) => statuses.push(status),
      backoff: new Backoff({ baseMs: 100, maxMs: 400 }),
      queueBytes,
    },
    { cols: 4, rows: 1 },
  );
  // A macrotask turn: the socket's promise callbacks run before the test looks.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return {
    terminal,
    sockets,
    timers,
    drawn,
    state: () => statuses.at(-1)?.state,
    queueFull: () => statuses.at(-1)?.queueFull,
    settle,
    refuse: (value: boolean) => (refuse = value),
    /** Runs the next timer (a retry) and lets the socket's promise settle. */
    async tick() {
      const timer = timers.shift();
      if (!timer) throw new Error('no timer');
      timer.run();
      await settle();
      return timer.ms;
    },
  };
}

describe('the reconnecting terminal', () => {
  it('retries a drop on the backoff with a new socket, sends what was typed meanwhile once and in order after the first grid', async () => {
    const h = harness();
    h.terminal.start();
    await h.settle();
    const first = h.sockets[0]!;
    first.open();
    h.terminal.input('early ');
    expect(first.inputs()).toEqual([]);
    first.frame(grid(0, '$'));
    expect(h.state()).toEqual({ kind: 'open' });
    expect(first.inputs()).toEqual(['early ']);
    expect(first.sent).toContainEqual({ type: 'ack', seq: 0 });

    first.close(1006, '');
    expect(h.state()).toEqual({ kind: 'reconnecting', attempt: 1 });
    h.terminal.input('ls');
    h.terminal.input(' -l\r');
    h.refuse(true);
    expect(await h.tick()).toBe(100);
    expect(h.state()).toEqual({ kind: 'reconnecting', attempt: 2 });
    expect(await h.tick()).toBe(200);
    h.refuse(false);
    expect(await h.tick()).toBe(400);
    const second = h.sockets[1]!;
    second.open();
    // The ship takes input only once attached: nothing before the grid.
    expect(second.inputs()).toEqual([]);
    second.frame(grid(0, '$ ok'));
    expect(second.inputs()).toEqual(['ls -l\r']);
    expect(first.inputs()).toEqual(['early ']);
    expect(h.drawn).toEqual(['$', '$ ok']);
    h.terminal.input('x');
    expect(second.inputs()).toEqual(['ls -l\r', 'x']);

    // A drop after a success starts the backoff over.
    second.close(1001, 'going away');
    expect(h.timers[0]!.ms).toBe(100);
  });

  it('says when the queue is full, keeps what fitted and takes nothing more until it is sent', async () => {
    const h = harness(8);
    h.terminal.start();
    await h.settle();
    h.terminal.input('12345');
    h.terminal.input('6789');
    h.terminal.input('0');
    expect(h.queueFull()).toBe(true);
    h.sockets[0]!.open();
    h.sockets[0]!.frame(grid(0, '$'));
    expect(h.sockets[0]!.inputs()).toEqual(['12345']);
    expect(h.queueFull()).toBe(false);
  });

  it('tells "open elsewhere" from a drop: no retry, input dropped, until the user takes over', async () => {
    const h = harness();
    h.terminal.start();
    await h.settle();
    h.sockets[0]!.open();
    h.sockets[0]!.frame({ type: 'exit', code: 1 });
    h.sockets[0]!.close(TERMINAL_CLOSE.openElsewhere.code, TERMINAL_CLOSE.openElsewhere.reason);
    expect(h.state()).toEqual({ kind: 'elsewhere' });
    expect(h.timers).toEqual([]);
    h.terminal.input('lost');
    h.terminal.connectNow();
    expect(h.state()).toEqual({ kind: 'connecting' });
    await h.settle();
    h.sockets[1]!.open();
    h.sockets[1]!.frame(grid(0, '$'));
    expect(h.state()).toEqual({ kind: 'open' });
    expect(h.sockets[1]!.inputs()).toEqual([]);
  });

  it('retries an exit 1 without that reason (the ship not back yet), and ends on a shell exit or a protocol violation', async () => {
    const h = harness();
    h.terminal.start();
    await h.settle();
    h.sockets[0]!.open();
    h.sockets[0]!.frame({ type: 'exit', code: 1 });
    h.sockets[0]!.close(1000, '');
    expect(h.state()).toEqual({ kind: 'reconnecting', attempt: 1 });
    await h.tick();
    h.sockets[1]!.open();
    h.sockets[1]!.frame(grid(0, '$'));
    h.sockets[1]!.frame({ type: 'exit', code: 3 });
    h.sockets[1]!.close(1000, '');
    expect(h.state()).toEqual({ kind: 'ended', message: 'The shell exited (code 3).' });
    h.terminal.connectNow();
    await h.settle();
    h.sockets[2]!.open();
    h.sockets[2]!.close(1008, 'Invalid terminal message');
    expect(h.state()).toEqual({ kind: 'ended', message: 'The terminal was closed: Invalid terminal message (1008).' });
    expect(h.timers).toEqual([]);
  });

  it('retries a buffer-limit close (the page fell behind reading a flood) like a drop, from a fresh grid', async () => {
    const h = harness();
    h.terminal.start();
    await h.settle();
    h.sockets[0]!.open();
    h.sockets[0]!.frame(grid(0, 'old'));
    h.sockets[0]!.close(TERMINAL_CLOSE.bufferLimit.code, TERMINAL_CLOSE.bufferLimit.reason);
    expect(h.state()).toEqual({ kind: 'reconnecting', attempt: 1 });
    h.terminal.input('x');
    await h.tick();
    h.sockets[1]!.open();
    h.sockets[1]!.frame(grid(0, 'new'));
    expect(h.state()).toEqual({ kind: 'open' });
    expect(h.drawn.at(-1)).toBe('new');
    expect(h.sockets[1]!.inputs()).toEqual(['x']);
  });

  it('stops for good when closed by the page', async () => {
    const h = harness();
    h.terminal.start();
    await h.settle();
    h.sockets[0]!.open();
    h.terminal.close();
    expect(h.sockets[0]!.readyState).toBe(3);
    expect(h.timers).toEqual([]);
  });
});

describe('terminal keys and paste', () => {
  const key = (
    key: string,
    mods: Partial<Record<'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey', boolean>> = {},
    code = '',
  ) => ({
    key,
    code: code || (key.length === 1 ? `Key${key.toUpperCase()}` : key),
    ctrlKey: false,
    metaKey: false,
    shiftKey: false,
    altKey: false,
    ...mods,
  });
  it('copies on Ctrl/Cmd+C only with a selection, pastes on Ctrl+Shift+V, Cmd+V and Shift+Insert', () => {
    expect(keyAction(key('c', { ctrlKey: true }), true)).toBe('copy');
    expect(keyAction(key('c', { ctrlKey: true }), false)).toBe('terminal');
    expect(keyAction(key('c', { metaKey: true }), true)).toBe('copy');
    expect(keyAction(key('C', { ctrlKey: true, shiftKey: true }), false)).toBe('copy');
    expect(keyAction(key('V', { ctrlKey: true, shiftKey: true }), false)).toBe('paste');
    expect(keyAction(key('v', { metaKey: true }), false)).toBe('paste');
    expect(keyAction(key('Insert', { shiftKey: true }), false)).toBe('paste');
    expect(keyAction(key('v', { ctrlKey: true }), false)).toBe('terminal');
    expect(keyAction(key('F', { ctrlKey: true, shiftKey: true }), false)).toBe('search');
    expect(keyAction(key('с', { ctrlKey: true }, 'KeyC'), true)).toBe('copy');
    expect(keyAction(key('c', { ctrlKey: true, altKey: true }), true)).toBe('terminal');
  });

  it('removes bracket markers from pasted text, so a paste cannot end its own bracket', () => {
    expect(pastable('a\x1b[201~rm -rf ~\r\x1b[200~b')).toBe('arm -rf ~\rb');
  });

  it('bounds the input queue by UTF-8 bytes', () => {
    const queue = new InputQueue(4);
    expect(queue.push('é')).toBe(true);
    expect(queue.push('漢')).toBe(false);
    expect(queue.full).toBe(true);
    expect(queue.push('a')).toBe(false);
    expect(queue.drain()).toBe('é');
    expect(queue.push('漢')).toBe(true);
  });
});
