// `svc client attach`: a real interactive terminal on a workspace. Puts the local terminal in raw mode on
// the alternate screen, renders frames with minimal redraws, forwards keystrokes and window resizes,
// detaches on Ctrl-], and restores the terminal on every exit path (exit frame, close, error, signal).
import WebSocket from 'ws';
import {
  TERMINAL_MAX_COLS,
  TERMINAL_MAX_ROWS,
  TerminalScreen,
  type TerminalClientMessage,
  type TerminalServerFrame,
} from '../../protocol/index.js';
import { splitAtDetach } from './chord.js';
import { TerminalRenderer } from '../../protocol/terminal-renderer.js';

export interface AttachOptions {
  /** ws:// or wss:// URL of the terminal socket. */
  url: string;
  headers?: Record<string, string>;
  input?: NodeJS.ReadStream;
  output?: NodeJS.WriteStream;
}

export interface AttachResult {
  /** The workspace shell's exit code, or null when the user detached or the connection ended. */
  exitCode: number | null;
  reason: 'exit' | 'detached' | 'closed';
  detail?: string;
}

const clampSize = (value: number | undefined, max: number, fallback: number) =>
  Math.max(1, Math.min(max, value || fallback));

/** Throws unless both ends are terminals: raw keys in, a screen out. */
export function requireTerminal(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stdout,
): void {
  if (!input.isTTY || !output.isTTY) throw new Error('attach needs an interactive terminal');
}

export async function attach(options: AttachOptions): Promise<AttachResult> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  requireTerminal(input, output);
  const size = () => ({
    cols: clampSize(output.columns, TERMINAL_MAX_COLS, 80),
    rows: clampSize(output.rows, TERMINAL_MAX_ROWS, 24),
  });

  const socket = new WebSocket(options.url, {
    headers: options.headers,
    followRedirects: false,
    perMessageDeflate: true,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) =>
      reject(new Error(`the terminal answered HTTP ${response.statusCode}`)),
    );
  });

  const screen = new TerminalScreen();
  const renderer = new TerminalRenderer();
  const send = (message: TerminalClientMessage) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };

  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    input.setRawMode(false);
    input.pause();
    output.write('\x1b[0m\x1b[?25h\x1b[0 q\x1b[?1049l');
  };
  process.once('exit', restore);

  input.setRawMode(true);
  input.resume();
  output.write('\x1b[?1049h\x1b[H\x1b[2J');

  return new Promise<AttachResult>((resolve) => {
    let settled = false;
    const finish = (result: AttachResult) => {
      if (settled) return;
      settled = true;
      input.off('data', onData);
      output.off('resize', onResize);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
      restore();
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      const { before, detach } = splitAtDetach(chunk);
      if (before.length > 0) send({ type: 'input', data: before.toString('utf8') });
      if (detach) finish({ exitCode: null, reason: 'detached' });
    };
    const onResize = () => {
      renderer.invalidate();
      send({ type: 'resize', ...size() });
    };
    const onSignal = () => finish({ exitCode: null, reason: 'closed', detail: 'interrupted' });
    input.on('data', onData);
    output.on('resize', onResize);
    process.once('SIGTERM', onSignal);
    process.once('SIGHUP', onSignal);

    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as TerminalServerFrame;
      if (frame.type === 'exit') return finish({ exitCode: frame.code, reason: 'exit' });
      // Never asked for (the attach draws only the screen).
      if (frame.type === 'history') return;
      const result = screen.apply(frame);
      if (result.resync) send({ type: 'resync' });
      if (result.ack === undefined) return;
      output.write(renderer.render(screen, size()));
      send({ type: 'ack', seq: result.ack });
    });
    socket.on('close', (code, reason) =>
      finish({ exitCode: null, reason: 'closed', detail: `${code} ${reason.toString()}`.trim() }),
    );
    socket.on('error', (error) => finish({ exitCode: null, reason: 'closed', detail: error.message }));
    send({ type: 'init', ...size() });
  });
}
