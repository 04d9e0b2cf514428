// Property-based fuzzing of the terminal protocol: random sequences of client messages (schema-shaped with
// hostile values, broken JSON, binary frames) against a real ship terminal. The connection must end exactly
// as the spec's table says for the first offending message (1008 for anything invalid or a second init,
// 1003 for binary), or stay open and keep sending well-formed frames when every message is valid.
import fc from 'fast-check';
import WebSocket from 'ws';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { TerminalClientMessage, TERMINAL_MAX_COLS, TERMINAL_MAX_ROWS } from '../../protocol/index.js';
import { shipFixture } from '../helpers/fixture.js';
import { terminalUrl } from '../helpers/terminal.js';

const fx = shipFixture({}, { repo: 'fz', names: ['t'] });
const checkClient = Compile(TerminalClientMessage);

type Sent = { binary: true; bytes: Uint8Array } | { binary: false; text: string };

/** Text typed into the shell stays printable and has no newline: the fuzzer must not run commands. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: C0 and DEL removed so typed text runs no command
const safeInput = fc.string({ maxLength: 30 }).map((text) => text.replace(/[\u0000-\u001f\u007f]/g, ''));
const size = (max: number) => fc.oneof(fc.integer({ min: 1, max }), fc.constantFrom(0, -1, max + 1, 1.5, 2 ** 40));
const message: fc.Arbitrary<Sent> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ type: fc.constant('init'), cols: size(TERMINAL_MAX_COLS), rows: size(TERMINAL_MAX_ROWS) })
      .map((m) => ({ binary: false as const, text: JSON.stringify(m) })),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({ type: fc.constant('input'), data: safeInput })
      .map((m) => ({ binary: false as const, text: JSON.stringify(m) })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ type: fc.constant('resize'), cols: size(300), rows: size(100) })
      .map((m) => ({ binary: false as const, text: JSON.stringify(m) })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ type: fc.constant('ack'), seq: fc.oneof(fc.nat(), fc.constant(-1)) })
      .map((m) => ({ binary: false as const, text: JSON.stringify(m) })),
  },
  { weight: 1, arbitrary: fc.constant({ binary: false as const, text: '{"type":"resync"}' }) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(fc.constantFrom('{', 'null', '[]', '{"type":"nope"}', '"init"', '{"type":"init"}'), fc.json())
      .map((text) => ({ binary: false as const, text })),
  },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ minLength: 1, maxLength: 8 }).map((bytes) => ({ binary: true as const, bytes })),
  },
);

/** The close code the spec's table gives for the first offending message, or null if none offends. */
function expectedClose(sequence: Sent[]): number | null {
  let initialized = false;
  for (const sent of sequence) {
    if (sent.binary) return 1003;
    let parsed: unknown;
    try {
      parsed = JSON.parse(sent.text);
    } catch {
      return 1008;
    }
    if (!checkClient.Check(parsed)) return 1008;
    const type = (parsed as { type: string }).type;
    if (!initialized) {
      if (type !== 'init') return 1008;
      initialized = true;
    } else if (type === 'init') return 1008;
  }
  return null;
}

function run(sequence: Sent[]): Promise<{ code: number | null; frames: unknown[] }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(terminalUrl(fx.ship.url, 'fz', 't'), { perMessageDeflate: false });
    const frames: unknown[] = [];
    let settled = false;
    const finish = (code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (socket.readyState === WebSocket.OPEN) socket.close();
      // Wait for the ship to release the workspace's one-terminal guard before the next run.
      socket.once('close', () => setTimeout(() => resolve({ code, frames }), 30));
      if (socket.readyState === WebSocket.CLOSED) setTimeout(() => resolve({ code, frames }), 30);
    };
    const timer = setTimeout(() => finish(null), 400);
    socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
    socket.once('close', (code) => finish(code));
    socket.once('error', reject);
    socket.once('open', () => {
      for (const sent of sequence) socket.send(sent.binary ? sent.bytes : sent.text, { binary: sent.binary });
    });
  });
}

describe('terminal protocol fuzzing', () => {
  it('closes with the code of the first offending message, and otherwise stays open', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 6 }), async (sequence) => {
        const { code, frames } = await run(sequence);
        const want = expectedClose(sequence);
        expect(code).toBe(want);
        for (const frame of frames) expect(['grid', 'patch', 'exit']).toContain((frame as { type: string }).type);
      }),
      { numRuns: Number(process.env.SVC_FUZZ_RUNS ?? 40) },
    );
  }, 120_000);
});
