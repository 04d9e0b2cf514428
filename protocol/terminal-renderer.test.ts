import { describe, expect, it } from 'vitest';
import xterm from '@xterm/headless';
import { TerminalScreen, type GridFrame } from './index.js';
import { sgrFor, TerminalRenderer } from './terminal-renderer.js';

const { Terminal } = xterm;

function grid(cells: GridFrame['cells'], seq = 0): GridFrame {
  return {
    type: 'grid',
    seq,
    cols: cells[0]!.length,
    rows: cells.length,
    cursor: { x: 0, y: 0, visible: true },
    cells,
  };
}

async function show(output: string, cols: number, rows: number): Promise<string[]> {
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(output, resolve));
  const lines = Array.from({ length: rows }, (_, y) => term.buffer.active.getLine(y)!.translateToString(true));
  term.dispose();
  return lines;
}

describe('terminal renderer', () => {
  it('draws a screen that a real terminal shows identically, wide characters included', async () => {
    const screen = new TerminalScreen();
    screen.apply(
      grid([
        [{ t: 'h', f: 1 }, { t: 'i', a: 1 }, 0, { t: '漢', w: 1 }, { w: 2 }, { t: '!' }],
        [0, 0, 0, 0, 0, { t: 'z', b: [1, 2, 3] }],
      ]),
    );
    const output = new TerminalRenderer().render(screen, { cols: 6, rows: 2 });
    expect(await show(output, 6, 2)).toEqual(['hi 漢!', '     z']);
  });

  it('redraws only what changed', () => {
    const screen = new TerminalScreen();
    const renderer = new TerminalRenderer();
    screen.apply(grid([[{ t: 'a' }, { t: 'b' }, { t: 'c' }]]));
    renderer.render(screen, { cols: 3, rows: 1 });
    screen.apply({
      type: 'patch',
      seq: 1,
      cols: 3,
      rows: 1,
      cursor: { x: 0, y: 0, visible: true },
      runs: [[0, 2, [{ t: 'Z' }]]],
    });
    const second = renderer.render(screen, { cols: 3, rows: 1 });
    expect(second).toContain('\x1b[1;3H');
    expect(second).toContain('Z');
    expect(second).not.toContain('a');
    expect(second).not.toContain('\x1b[2J');
    const third = renderer.render(screen, { cols: 3, rows: 1 });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC begins the escape sequences stripped here
    expect(third.replace(/\x1b\[[0-9;?]*[A-Za-z ]+/g, '')).toBe('');
  });

  it('strips control characters from cell text, so no workspace escape reaches the terminal', () => {
    const screen = new TerminalScreen();
    screen.apply(grid([[{ t: '\x1b]52;c;x\x07' }, { t: '\x9b' }, { t: 'ok' }]]));
    const output = new TerminalRenderer().render(screen, { cols: 3, rows: 1 });
    expect(output).not.toContain('\x1b]');
    expect(output).not.toContain('\x07');
    expect(output).not.toContain('\x9b');
  });

  it('pushes scrolled lines into the scrollback in order, whether or not they are still on screen', async () => {
    const term = new Terminal({ cols: 4, rows: 2, scrollback: 100, allowProposedApi: true });
    const write = (data: string) => new Promise<void>((resolve) => term.write(data, resolve));
    const line = (text: string) => [...text].map((t) => ({ t }));
    const screen = new TerminalScreen();
    const renderer = new TerminalRenderer();
    const viewport = { cols: 4, rows: 2 };
    screen.apply(grid([line('aaaa'), line('bbbb')]));
    await write(renderer.render(screen, viewport));
    // An ordinary scroll by one: 'aaaa' is the top row already, so only a line feed is written for it.
    screen.apply(grid([line('bbbb'), line('cccc')], 1));
    const scroll = renderer.scrollOut([line('aaaa')], viewport);
    expect(scroll).not.toContain('aaaa');
    const redraw = renderer.render(screen, viewport);
    expect(redraw).not.toContain('bbbb');
    await write(scroll + redraw);
    // Lines that went by between two paints (never drawn) are written, then scrolled off.
    screen.apply(grid([line('ffff'), line('gggg')], 2));
    await write(
      renderer.scrollOut([line('bbbb'), line('cccc'), line('dddd'), line('eeee')], viewport) +
        renderer.render(screen, viewport),
    );
    const buffer = term.buffer.active;
    const all = Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)!.translateToString(true));
    expect(all).toEqual(['aaaa', 'bbbb', 'cccc', 'dddd', 'eeee', 'ffff', 'gggg']);
    term.dispose();
  });

  it('maps styles to SGR', () => {
    expect(sgrFor(0)).toBe('\x1b[0m');
    expect(sgrFor({ t: 'x', f: 1, b: 9, a: 1 | 16 })).toBe('\x1b[0;1;7;31;101m');
    expect(sgrFor({ f: 202, b: [1, 2, 3], u: 3 })).toBe('\x1b[0;4:3;38;5;202;48;2;1;2;3m');
  });
});
