// Questions the CLI asks at a terminal, on stderr so stdout stays clean for --json: plain answers, secrets
// without echo (the `read` package mutes the terminal), and a new password asked twice. `read` is loaded at
// the first question, not at start-up: most commands never ask one.

/** Whether the CLI may ask: stdin and stderr both terminals. */
export const interactive = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY);

export async function ask(prompt: string): Promise<string> {
  const { read } = await import('read');
  return (await read({ prompt, output: process.stderr })).trim();
}

export async function askSecret(prompt: string): Promise<string> {
  const { read } = await import('read');
  return read({ prompt, silent: true, replace: '', output: process.stderr });
}

/** A new password, typed twice; throws when the two differ. */
export async function askNewPassword(prompt = 'Password: '): Promise<string> {
  const first = await askSecret(prompt);
  const second = await askSecret('Confirm password: ');
  if (first !== second) throw new Error('the passwords do not match');
  return first;
}
