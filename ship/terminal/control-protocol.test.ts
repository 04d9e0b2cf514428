import { describe, expect, it } from 'vitest';
import { inputCommands, parseControlLine } from './control-protocol.js';

describe('tmux control protocol', () => {
  it('classifies command blocks, exit and notifications', () => {
    expect(parseControlLine(Buffer.from('%begin 1700000000 42 1'))).toEqual({
      kind: 'begin',
      number: '42',
      ours: true,
    });
    expect(parseControlLine(Buffer.from('%end 1700000000 42 1'))).toEqual({
      kind: 'end',
      number: '42',
      error: false,
      ours: true,
    });
    expect(parseControlLine(Buffer.from('%error 1700000000 43 1'))).toEqual({
      kind: 'end',
      number: '43',
      error: true,
      ours: true,
    });
    expect(parseControlLine(Buffer.from('%end 1700000000 40 0'))).toEqual({
      kind: 'end',
      number: '40',
      error: false,
      ours: false,
    });
    expect(parseControlLine(Buffer.from('%exit'))).toEqual({ kind: 'exit', reason: '' });
    expect(parseControlLine(Buffer.from('%exit detached'))).toEqual({ kind: 'exit', reason: 'detached' });
    expect(parseControlLine(Buffer.from('%layout-change @1 x'))).toEqual({
      kind: 'notification',
      name: '%layout-change',
    });
    expect(parseControlLine(Buffer.from('plain')).kind).toBe('text');
  });

  it('encodes input as hex key codes for ASCII and quoted literals for everything else', () => {
    expect(inputCommands('%1', 'ls -l\r')).toEqual(['send-keys -t %1 -H 6c 73 20 2d 6c 0d']);
    expect(inputCommands('%1', "\x1b[A'é漢;x")).toEqual([
      'send-keys -t %1 -H 1b 5b 41 27',
      "send-keys -t %1 -l 'é漢'",
      'send-keys -t %1 -H 3b 78',
    ]);
    expect(inputCommands('%1', '😀')).toEqual(["send-keys -t %1 -l '😀'"]);
    expect(inputCommands('%1', 'a'.repeat(1200)).length).toBe(3);
    // No command ever carries a newline, a quote inside a literal, or a control character outside hex.
    for (const command of inputCommands('%1', "a'b\n\u0085c\u2028'")) {
      expect(command).not.toMatch(/[\n\r]/);
      if (command.includes(' -l ')) expect(command.slice(command.indexOf("'") + 1, -1)).not.toContain("'");
    }
  });
});
