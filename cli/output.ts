// How the CLI writes for people: state colours only when stdout is a terminal and NO_COLOR is unset, and a
// spinner with elapsed time on stderr for long work at a terminal (nothing at all when piped).
import { styleText } from 'node:util';

const colour = (): boolean => Boolean(process.stdout.isTTY) && process.env.NO_COLOR === undefined;

type Style = Parameters<typeof styleText>[0];
const STATE_STYLES: Record<string, Style> = {
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

/** A state word, coloured for a terminal. */
export function state(word: string): string {
  const style = STATE_STYLES[word];
  return style && colour() ? styleText(style, word) : word;
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
  const draw = () => process.stderr.write(`\r\x1b[2K${frames[frame++ % frames.length]} ${label} ${((Date.now() - started) / 1000).toFixed(1)}s`);
  draw();
  const timer = setInterval(draw, 100);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    process.stderr.write('\r\x1b[2K');
  }
}
