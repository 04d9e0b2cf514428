// What a person sees: bytes a program wrote to a terminal, played through a headless xterm, read back as the
// screen's lines (trailing blanks trimmed, empty lines at the bottom dropped). Prompt libraries redraw their
// line with cursor moves, so the bytes differ from the text on the screen.
import xterm from '@xterm/headless';

export async function screenText(bytes: string, cols = 120, rows = 30): Promise<string> {
  const view = new xterm.Terminal({ cols, rows, allowProposedApi: true });
  try {
    await new Promise<void>((resolve) => view.write(bytes, resolve));
    const lines: string[] = [];
    for (let y = 0; y < view.buffer.active.length; y++)
      lines.push(view.buffer.active.getLine(y)?.translateToString(true) ?? '');
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    return lines.join('\n');
  } finally {
    view.dispose();
  }
}
