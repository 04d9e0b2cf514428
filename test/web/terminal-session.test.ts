// The GUI's terminal protocol client (web/src/terminal/terminal-session.ts) over a scripted socket: init
// with the fitted size on open, each applied frame reported with its seq (acked by the caller once drawn),
// one resync on a gap, the lines a scroll moved off the top, input and resize, and what the page says when
// the terminal ends (terminal-messages.ts).
import { describe, expect, it } from 'vitest';
import type { Cell, GridFrame, PatchFrame } from '../../protocol/terminal.js';
import { closeMessage, exitMessage, OPEN_ELSEWHERE } from '../../web/src/terminal/terminal-messages.js';
import { HISTORY_CALM_MS, TerminalSession } from '../../web/src/terminal/terminal-session.js';
import { ScriptedSocket } from './scripted-socket.js';

const cursor = { x: 0, y: 0, visible: true };
const grid = (seq: number, text: string): GridFrame => ({
  type: 'grid',
  seq,
  cols: 4,
  rows: 1,
  cursor,
  cells: [[...text].map((t): Cell => ({ t }))],
});
const patch = (seq: number, col: number, t: string): PatchFrame => ({
  type: 'patch',
  seq,
  cols: 4,
  rows: 1,
  cursor,
  runs: [[0, col, [{ t }]]],
});

const rowText = (row: Cell[]) =>
  row
    .map((cell) => (cell === 0 ? ' ' : (cell.t ?? ' ')))
    .join('')
    .trimEnd();

/** A 4×3 grid of `lines`, from a ship that answers `history` unless told otherwise. */
const screen3 = (seq: number, lines: string[], history = true): GridFrame => ({
  type: 'grid',
  seq,
  cols: 4,
  rows: 3,
  cursor,
  cells: lines.map((line) => [...line.padEnd(4)].map((t): Cell => (t === ' ' ? 0 : { t }))),
  ...(history ? { history: true as const } : {}),
});
const rowPatch = (seq: number, row: number, text: string): PatchFrame => ({
  type: 'patch',
  seq,
  cols: 4,
  rows: 3,
  cursor,
  runs: [[row, 0, [...text].map((t): Cell => ({ t }))]],
});
const historyAsks = (socket: ScriptedSocket) => socket.sent.filter((message) => message.type === 'history').length;

function session() {
  const socket = new ScriptedSocket();
  /** The session's timers, run by hand. */
  const timers: { run: () => void; ms: number }[] = [];
  const seen = {
    screens: [] as string[],
    scrolled: [] as string[][],
    exits: [] as [number, boolean][],
    closes: [] as [number, string][],
    histories: [] as string[][],
  };
  const terminal: TerminalSession = new TerminalSession(
    socket,
    { cols: 90, rows: 30 },
    {
      setTimeout: (run, ms) => timers.push({ run, ms }),
      clearTimeout: (handle) => timers.splice(timers.indexOf(handle as (typeof timers)[number]), 1),
    },
    {
      screen: (screen, scrolled, seq) => {
        seen.screens.push(screen.text());
        seen.scrolled.push(scrolled.map(rowText));
        terminal.ack(seq);
      },
      history: (rows) => seen.histories.push(rows.map(rowText)),
      exit: (code, before) => seen.exits.push([code, before]),
      closed: (code, reason) => seen.closes.push([code, reason]),
    },
  );
  const runTimers = () => {
    for (const timer of timers.splice(0)) timer.run();
  };
  return { socket, terminal, seen, timers, runTimers };
}

describe('the GUI terminal session', () => {
  it('sends init with the fitted size once open, nothing before', () => {
    const { socket, terminal } = session();
    terminal.input('early');
    expect(socket.sent).toEqual([]);
    socket.open();
    expect(socket.sent).toEqual([{ type: 'init', cols: 90, rows: 30 }]);
  });

  it('acks each applied frame, draws it, and sends one resync on a gap, then recovers on the next grid', () => {
    const { socket, seen } = session();
    socket.open();
    socket.frame(grid(0, 'abcd'));
    socket.frame(patch(1, 1, 'X'));
    socket.frame(patch(3, 2, 'Y'));
    socket.frame(patch(4, 3, 'Z'));
    socket.frame(grid(5, 'wxyz'));
    expect(socket.sent.slice(1)).toEqual([
      { type: 'ack', seq: 0 },
      { type: 'ack', seq: 1 },
      { type: 'resync' },
      { type: 'ack', seq: 5 },
    ]);
    expect(seen.screens).toEqual(['abcd', 'aXcd', 'wxyz']);
  });

  it('forwards input and resizes (a resize to the same size is not sent)', () => {
    const { socket, terminal } = session();
    socket.open();
    terminal.input('ls\r');
    terminal.input('');
    terminal.resize({ cols: 90, rows: 30 });
    terminal.resize({ cols: 100, rows: 20 });
    expect(socket.sent.slice(1)).toEqual([
      { type: 'input', data: 'ls\r' },
      { type: 'resize', cols: 100, rows: 20 },
    ]);
  });

  it('tells a refused socket (exit 1 before any frame) from a shell exit, and reports the close', () => {
    const refused = session();
    refused.socket.open();
    refused.socket.frame({ type: 'exit', code: 1 });
    refused.socket.close(1000, '');
    expect(refused.seen.exits).toEqual([[1, true]]);
    expect(refused.seen.closes).toEqual([[1000, '']]);
    const exited = session();
    exited.socket.open();
    exited.socket.frame(grid(0, '$   '));
    exited.socket.frame({ type: 'exit', code: 1 });
    expect(exited.seen.exits).toEqual([[1, false]]);
  });

  it('reports the rows a scroll moved off the top, and none for a change in place or a clear', () => {
    const { socket, seen } = session();
    socket.open();
    const rows = (...lines: string[]): GridFrame => ({
      type: 'grid',
      seq: 0,
      cols: 3,
      rows: lines.length,
      cursor,
      cells: lines.map((line) => [...line.padEnd(3)].map((t): Cell => (t === ' ' ? 0 : { t }))),
    });
    const scrollBy = (seq: number, lines: string[]): PatchFrame => ({
      type: 'patch',
      seq,
      cols: 3,
      rows: lines.length,
      cursor,
      runs: lines.map((line, row): [number, number, Cell[]] => [
        row,
        0,
        [...line.padEnd(3)].map((t): Cell => (t === ' ' ? 0 : { t })),
      ]),
    });
    socket.frame(rows('a', 'b', 'c', '$'));
    socket.frame(scrollBy(1, ['c', '$', 'd', '$']));
    socket.frame(scrollBy(2, ['c', '$', 'd', '$x']));
    // Output written on the cursor's row, then scrolled: the old bottom row differs.
    socket.frame(scrollBy(3, ['$', 'd', '$xy', 'e']));
    socket.frame(scrollBy(4, ['$', '', '', '']));
    expect(seen.scrolled).toEqual([[], ['a', 'b'], [], ['c'], []]);
  });

  it('ignores frames that are not JSON or not terminal frames', () => {
    const { socket, seen } = session();
    socket.open();
    socket.emit('message', { data: 'not json' });
    socket.emit('message', { data: new ArrayBuffer(3) });
    socket.frame({ type: 'bogus' });
    expect(socket.sent).toEqual([{ type: 'init', cols: 90, rows: 30 }]);
    expect(seen.screens).toEqual([]);
  });
});

describe('terminal messages', () => {
  it('words exits and closes', () => {
    expect(exitMessage(1, true)).toBe(OPEN_ELSEWHERE);
    expect(OPEN_ELSEWHERE).toBe("This workspace's terminal is open elsewhere.");
    expect(exitMessage(1, false)).toBe('The shell exited (code 1).');
    expect(exitMessage(0, true)).toBe('The shell exited (code 0).');
    expect(closeMessage(1008, 'Invalid terminal message')).toBe(
      'The terminal was closed: Invalid terminal message (1008).',
    );
    expect(closeMessage(1009, 'Terminal buffer limit exceeded')).toBe(
      'The terminal was closed: Terminal buffer limit exceeded (1009).',
    );
    expect(closeMessage(1011, '')).toBe('The terminal was closed: no reason given (1011).');
    expect(closeMessage(1006, '')).toBe('The connection to the bridge was lost (1006).');
    expect(closeMessage(1000, 'bye')).toBeNull();
  });

  it('asks a ship that offers history for it after the first grid, and a ship that does not, never', () => {
    const offered = session();
    offered.socket.open();
    offered.socket.frame(screen3(0, ['a', 'b', 'c']));
    expect(offered.socket.sent.slice(1)).toEqual([{ type: 'history' }, { type: 'ack', seq: 0 }]);

    const older = session();
    older.socket.open();
    older.socket.frame(screen3(0, ['a', 'b', 'c'], false));
    older.socket.frame(screen3(1, ['d', 'e', 'f'], false));
    older.socket.frame(rowPatch(2, 0, 'g'));
    expect(historyAsks(older.socket)).toBe(0);
  });

  it('asks again once output calms after frames that replaced the screen with no scroll to be seen', () => {
    const { socket, timers, runTimers } = session();
    socket.open();
    socket.frame(screen3(0, ['a', 'b', 'c']));
    // A one-line scroll is seen (its row goes to the scrollback): nothing was lost, nothing to ask.
    socket.frame(screen3(1, ['b', 'c', 'd']));
    expect(historyAsks(socket)).toBe(1);
    expect(timers).toEqual([]);
    // More than a screen between two frames: every row new, no overlap. Not asked mid-flood: each such
    // frame restarts the wait for calm.
    socket.frame(screen3(2, ['x1', 'x2', 'x3']));
    socket.frame(screen3(3, ['y1', 'y2', 'y3']));
    socket.frame(rowPatch(4, 2, 'y4'));
    expect(historyAsks(socket)).toBe(1);
    expect(timers.map((timer) => timer.ms)).toEqual([HISTORY_CALM_MS]);
    // Calm: asked once.
    runTimers();
    expect(historyAsks(socket)).toBe(2);
    socket.frame(rowPatch(5, 2, 'y5'));
    expect(historyAsks(socket)).toBe(2);
  });

  it('drops a waiting ask when the socket closes', () => {
    const { socket, timers } = session();
    socket.open();
    socket.frame(screen3(0, ['a', 'b', 'c']));
    socket.frame(screen3(1, ['x1', 'x2', 'x3']));
    expect(timers).toHaveLength(1);
    socket.close(1006, '');
    expect(timers).toEqual([]);
  });

  it('hands a history answer to the page', () => {
    const { socket, seen } = session();
    socket.open();
    socket.frame(screen3(0, ['a', 'b', 'c']));
    socket.frame({ type: 'history', cols: 4, rows: [[{ t: 'o' }, { t: 'l' }, { t: 'd' }, 0]] });
    expect(seen.histories).toEqual([['old']]);
  });
});
