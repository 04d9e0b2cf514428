// The pure parts of tmux control mode (`tmux -C`) the terminal needs: decoding `%output` data (octal
// escapes for bytes below 0x20 and the backslash), classifying lines, and encoding keyboard input as
// `send-keys` commands. Input reaches tmux only as hex codes (ASCII) or single-quoted literal text
// (everything else, never a quote or a control character), so no input can form another command.

export type ControlLine =
  | { kind: 'output'; pane: string; data: Buffer }
  | { kind: 'begin'; number: string; ours: boolean }
  | { kind: 'end'; number: string; error: boolean; ours: boolean }
  | { kind: 'exit'; reason: string }
  | { kind: 'notification'; name: string }
  | { kind: 'text'; line: Buffer };

const BACKSLASH = 0x5c;

/** Decodes the data of a `%output` line: `\ooo` octal escapes back to bytes, everything else as is. */
export function unescapeOutput(raw: Buffer, start: number): Buffer {
  const out = Buffer.allocUnsafe(raw.length - start);
  let length = 0;
  for (let i = start; i < raw.length; i++) {
    const byte = raw[i]!;
    if (byte === BACKSLASH && i + 3 < raw.length) {
      const a = raw[i + 1]! - 48;
      const b = raw[i + 2]! - 48;
      const c = raw[i + 3]! - 48;
      if (a >= 0 && a <= 7 && b >= 0 && b <= 7 && c >= 0 && c <= 7) {
        out[length++] = a * 64 + b * 8 + c;
        i += 3;
        continue;
      }
    }
    out[length++] = byte;
  }
  return out.subarray(0, length);
}

const OUTPUT = Buffer.from('%output ');

/** Classifies one line (without its newline) of a control client's output. */
export function parseControlLine(line: Buffer): ControlLine {
  if (line.length === 0 || line[0] !== 0x25 /* % */) return { kind: 'text', line };
  if (line.subarray(0, OUTPUT.length).equals(OUTPUT)) {
    const space = line.indexOf(0x20, OUTPUT.length);
    const pane = line.subarray(OUTPUT.length, space === -1 ? line.length : space).toString('latin1');
    return { kind: 'output', pane, data: space === -1 ? Buffer.alloc(0) : unescapeOutput(line, space + 1) };
  }
  const text = line.toString('utf8');
  // `%begin <time> <number> <flags>`: flags 1 marks a command this client sent (0: tmux's own, e.g. attach).
  const [name = '', , number = '', flags = ''] = text.split(' ');
  if (name === '%begin') return { kind: 'begin', number, ours: flags === '1' };
  if (name === '%end' || name === '%error') return { kind: 'end', number, error: name === '%error', ours: flags === '1' };
  if (name === '%exit') return { kind: 'exit', reason: text.slice('%exit'.length).trim() };
  return { kind: 'notification', name };
}

/** Bytes of ASCII per hex `send-keys` command, and characters per literal one. */
const HEX_CHUNK = 512;
const LITERAL_CHUNK = 512;

/**
 * The `send-keys` commands that type `data` into `target` (a pane or `=session:`) exactly: ASCII (controls included) as hex key
 * codes, other characters as single-quoted literal text.
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
