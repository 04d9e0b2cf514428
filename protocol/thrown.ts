// What was thrown, read safely: a catch clause gets `unknown`, and a message is all most handlers need.
// TypeBox-free, so the CLI's start-up path may load it.

/** The message of whatever was thrown: an error's own (any object with a string `message`), else the value as text. */
export function messageOf(thrown: unknown): string {
  const message = (thrown as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(thrown);
}
