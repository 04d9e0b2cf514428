// Questions the CLI asks at a terminal, on stderr so stdout stays clean for --json: plain answers, secrets
// without echo, and a new password (its rule stated first, asked twice, three tries).
//
// Every question goes through `question`, which starts reading in the same synchronous step that shows the
// prompt: an answer that arrives the instant the text appears (a paste, a password manager, a script driving
// a pty) is never lost. What arrives after an answer's Enter is kept for the next question instead of being
// dropped with the reader that saw it (the `read` package made a readline per question and lost that text,
// so a second answer sent together with the first left the command waiting forever). Each answer ends its
// line on the terminal, so whatever is printed next starts on a line of its own.
import { StringDecoder } from 'node:string_decoder';
import { PASSWORD_MIN_LENGTH, passwordProblem } from '../protocol/password-rules.js';

/** Whether the CLI may ask: stdin and stderr both terminals. */
export const interactive = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY);

/** Input received after the last answer's Enter, waiting for the next question. */
let typeAhead = '';
/** The last answer ended on CR: a LF right after it belongs to the same Enter (CRLF). */
let afterCarriageReturn = false;

const CTRL_C = '\x03';
const CTRL_D = '\x04';
const CTRL_U = '\x15';
const ESC = '\x1b';

function question(prompt: string, secret: boolean): Promise<string> {
  const input = process.stdin;
  const output = process.stderr;
  const raw = input.isTTY === true;
  const decoder = new StringDecoder('utf8');
  return new Promise<string>((resolve, reject) => {
    let line = '';
    let skipping = ''; // an escape sequence (arrow keys, function keys) being skipped
    let finished = false;
    const echo = (text: string) => {
      if (raw && !secret) output.write(text);
    };
    const finish = (error: Error | null, rest: string) => {
      finished = true;
      typeAhead = rest;
      input.off('data', onData);
      input.off('end', onEnd);
      input.pause();
      output.write('\n');
      if (raw) input.setRawMode(false);
      if (error) reject(error);
      else resolve(line);
    };
    const feed = (text: string) => {
      const chars = [...text];
      for (let i = 0; i < chars.length && !finished; i++) {
        const char = chars[i]!;
        const rest = () => chars.slice(i + 1).join('');
        if (afterCarriageReturn) {
          afterCarriageReturn = false;
          if (char === '\n') continue;
        }
        if (skipping) {
          skipping += char;
          // ESC [ params final (0x40-0x7e), or ESC O x, or ESC x.
          const done =
            skipping.length === 2 ? char !== '[' && char !== 'O' : skipping[1] === 'O' || /[\x40-\x7e]/.test(char);
          if (done) skipping = '';
          continue;
        }
        if (char === '\r' || char === '\n') {
          afterCarriageReturn = char === '\r';
          finish(null, rest());
        } else if (char === CTRL_C) {
          finish(new Error('canceled'), '');
        } else if (char === CTRL_D) {
          if (line === '') finish(new Error('canceled'), '');
        } else if (char === '\x7f' || char === '\b') {
          if (line === '') continue;
          line = [...line].slice(0, -1).join('');
          echo('\b \b');
        } else if (char === CTRL_U) {
          echo('\b \b'.repeat([...line].length));
          line = '';
        } else if (char === ESC) {
          skipping = ESC;
        } else if (char >= ' ') {
          line += char;
          echo(char);
        }
      }
    };
    const onData = (chunk: Buffer | string) => feed(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    const onEnd = () => {
      if (!finished) finish(new Error('canceled: the input ended before an answer'), '');
    };
    // No await from here to the end: the reader is attached, then the prompt shown, in one step.
    if (raw) input.setRawMode(true);
    input.on('data', onData);
    input.on('end', onEnd);
    input.resume();
    output.write(prompt);
    const queued = typeAhead;
    typeAhead = '';
    if (queued) feed(queued);
  });
}

export async function ask(prompt: string): Promise<string> {
  return (await question(prompt, false)).trim();
}

export function askSecret(prompt: string): Promise<string> {
  return question(prompt, true);
}

const TRIES = 3;

/**
 * A new password: the rule first, then asked and confirmed; a short one or a mistyped confirmation is asked
 * again, three tries in all, and the last one's problem is thrown.
 */
export async function askNewPassword(prompt = 'Password: '): Promise<string> {
  process.stderr.write(`The password must be at least ${PASSWORD_MIN_LENGTH} characters.\n`);
  for (let attempt = 1; ; attempt++) {
    const first = await askSecret(prompt);
    const rule = passwordProblem(first);
    const problem = rule
      ? `the password ${rule}`
      : (await askSecret('Confirm password: ')) !== first
        ? 'the passwords do not match'
        : null;
    if (problem === null) return first;
    if (attempt === TRIES) throw new Error(problem);
    const left = TRIES - attempt;
    process.stderr.write(
      `${problem[0]!.toUpperCase()}${problem.slice(1)}; try again (${left} ${left === 1 ? 'try' : 'tries'} left).\n`,
    );
  }
}
