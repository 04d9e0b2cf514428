// A headless xterm as the ship runs one (no scrollback, Unicode 11 widths unless told otherwise), and a write
// that resolves once the emulator has parsed it: for the terminal path's unit tests.
import xterm from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';

// Both packages are CommonJS bundles: named imports fail in Node's ESM loader.
const { Terminal } = xterm;
const { Unicode11Addon } = unicode11;
export type HeadlessTerminal = InstanceType<typeof Terminal>;

export function headlessTerminal(cols: number, rows: number, { unicode11: wide = true } = {}): HeadlessTerminal {
  const term = new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true });
  if (wide) {
    term.loadAddon(new Unicode11Addon());
    term.unicode.activeVersion = '11';
  }
  return term;
}

export const writeParsed = (term: HeadlessTerminal, data: string) =>
  new Promise<void>((resolve) => term.write(data, resolve));
