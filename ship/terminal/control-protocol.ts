// The pure parts of tmux control mode (`tmux -C`) the terminal needs: classifying the lines a control
// client reads (command replies, exit, notifications; pane output is turned off and read through
// pipe-pane instead) and encoding keyboard input as `send-keys` commands. Input reaches tmux only as hex
// codes (ASCII) or single-quoted literal text (everything else, never a quote or a control character), so
// no input can form another command.

export type ControlLine =
  | { kind: 'begin'; number: string; ours: boolean }
  | { kind: 'end'; number: string; error: boolean; ours: boolean }
  | { kind: 'exit'; reason: string }
  | { kind: 'notification'; name: string }
  | { kind: 'text'; line: Buffer };

/** Classifies one line (without its newline) of a control client's output. */
export function parseControlLine(line: Buffer): ControlLine {
  if (line.length === 0 || line[0] !== 0x25 /* % */) return { kind: 'text', line };
  const text = line.toString('utf8');
  // `%begin <time> <number> <flags>`: flags 1 marks a command this client sent (0: tmux's own, e.g. attach).
  const [name = '', , number = '', flags = ''] = text.split(' ');
  if (name === '%begin') return { kind: 'begin', number, ours: flags === '1' };
  if (name === '%end' || name === '%error')
    return { kind: 'end', number, error: name === '%error', ours: flags === '1' };
  if (name === '%exit') return { kind: 'exit', reason: text.slice('%exit'.length).trim() };
  return { kind: 'notification', name };
}

/** Bytes of ASCII per hex `send-keys` command, and characters per literal one. */
const HEX_CHUNK = 512;
const LITERAL_CHUNK = 512;

/**
 * The `send-keys` commands that type `data` into `target` (a pane or `=session:`) exactly: ASCII (controls
 * included) as hex key codes, other characters as single-quoted literal text.
 */
export function inputCommands(target: string, data: string): string[] {
  const commands: string[] = [];
  let hex: string[] = [];
  let literal = '';
  const flushHex = () => {
    if (hex.length) commands.push(`send-keys -t ${target} -H ${hex.join(' ')}`);
    hex = [];
  };
  const flushLiteral = () => {
    if (literal) commands.push(`send-keys -t ${target} -l '${literal}'`);
    literal = '';
  };
  for (const char of data) {
    const code = char.codePointAt(0)!;
    if (code < 0x80 || char === "'") {
      flushLiteral();
      hex.push(code.toString(16).padStart(2, '0'));
      if (hex.length >= HEX_CHUNK) flushHex();
    } else {
      flushHex();
      literal += char;
      if (literal.length >= LITERAL_CHUNK) flushLiteral();
    }
  }
  flushHex();
  flushLiteral();
  return commands;
}
