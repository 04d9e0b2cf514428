// How the CLI writes for people: state colours only when stdout is a terminal and NO_COLOR is unset, and a
// spinner with elapsed time on stderr for long work at a terminal (nothing at all when piped).
// The decision is ours (util.styleText applies its own environment rules, which differ across Node 20
// releases): colour exactly when stdout is a terminal and NO_COLOR is unset (no-color.org).
const colour = (): boolean => Boolean(process.stdout.isTTY) && process.env.NO_COLOR === undefined;

const SGR = { green: 32, red: 31, gray: 90, cyan: 36, blue: 34, yellow: 33 } as const;
const STATE_STYLES: Record<string, keyof typeof SGR> = {
  active: 'green',
  inactive: 'gray',
  online: 'green',
  offline: 'red',
  idle: 'gray',
  planning: 'cyan',
  building: 'cyan',
  verifying: 'blue',
  awaiting: 'yellow',
};

/** A table cell whose text is shown in a colour (the table pads by the text, then colours it). */
export interface StyledCell {
  text: string;
  sgr: number;
}

/** A state word as a table cell, coloured for a terminal. */
export function state(word: string): StyledCell | string {
  const style = STATE_STYLES[word];
  return style && colour() ? { text: word, sgr: SGR[style] } : word;
}

/** A state word inside running text, coloured for a terminal. */
export function stateText(word: string): string {
  const cell = state(word);
  return typeof cell === 'string' ? cell : `\x1b[${cell.sgr}m${cell.text}\x1b[39m`;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Runs `work` under a spinner with elapsed seconds on a terminal's stderr; plain otherwise. */
export async function withSpinner<T>(label: string, work: Promise<T>): Promise<T> {
  if (!process.stderr.isTTY) return work;
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  const started = Date.now();
  let frame = 0;
  const draw = () =>
    process.stderr.write(
      `\r\x1b[2K${frames[frame++ % frames.length]} ${label} ${((Date.now() - started) / 1000).toFixed(1)}s`,
    );
  draw();
  const timer = setInterval(draw, 100);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    process.stderr.write('\r\x1b[2K');
  }
}
