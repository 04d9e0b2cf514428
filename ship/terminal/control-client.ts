// A tmux control-mode client (`tmux -C attach-session`) on one workspace session: the terminal's source of
// pane output and its way to type, resize and read the screen. tmux neither renders for it nor throttles it
// as it does an attached terminal (which made `cat` of a large file 1.3-2x slower), and it gets the pane's
// own bytes. Commands are answered in order; `onReply` runs synchronously when a reply completes, before any
// later line is handled, so callers can act at an exact point of the output stream.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { parseControlLine } from './control-protocol.js';

export interface ControlHandlers {
  onOutput(pane: string, data: Buffer): void;
  onExit(reason: string): void;
}

interface Pending {
  lines: Buffer[];
  error: boolean;
  onReply?: (lines: Buffer[], error: boolean) => void;
}

export class ControlClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: Pending[] = [];
  private current: Pending | null = null;
  /** Inside a reply tmux sent for something other than our commands (the attach itself). */
  private foreignBlock = false;
  private partial: Buffer[] = [];
  private exited = false;

  constructor(args: string[], env: Record<string, string>, private readonly handlers: ControlHandlers) {
    this.child = spawn('tmux', args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdin.on('error', () => undefined);
    this.child.stderr.resume();
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.on('error', () => this.finish('tmux could not be started'));
    this.child.on('close', () => this.finish(''));
  }

  /** Sends one command line; `onReply` gets its output lines when tmux answers. */
  command(line: string, onReply?: (lines: Buffer[], error: boolean) => void): void {
    if (this.exited) return;
    this.pending.push({ lines: [], error: false, onReply });
    this.child.stdin.write(`${line}\n`);
  }

  /** The same, awaited. Rejects when tmux answers with an error. */
  ask(line: string): Promise<string[]> {
    return new Promise((resolve, reject) =>
      this.command(line, (lines, error) => {
        const text = lines.map((l) => l.toString('utf8'));
        if (error) reject(new Error(`tmux: ${text.join(' ')}`));
        else resolve(text);
      }),
    );
  }

  pauseOutput(): void {
    this.child.stdout.pause();
  }

  resumeOutput(): void {
    this.child.stdout.resume();
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, newline);
      const line = this.partial.length ? Buffer.concat([...this.partial, piece]) : piece;
      this.partial = [];
      this.onLine(line);
      start = newline + 1;
    }
    if (start < chunk.length) this.partial.push(chunk.subarray(start));
  }

  private onLine(raw: Buffer): void {
    const line = parseControlLine(raw);
    if (this.current || this.foreignBlock) {
      if (line.kind === 'end') {
        if (this.foreignBlock) {
          this.foreignBlock = false;
          return;
        }
        const done = this.current!;
        this.current = null;
        done.onReply?.(done.lines, line.error);
        return;
      }
      if (!this.foreignBlock) this.current!.lines.push(raw);
      return;
    }
    switch (line.kind) {
      case 'begin':
        if (line.ours && this.pending.length) this.current = this.pending.shift()!;
        else this.foreignBlock = true;
        return;
      case 'output':
        this.handlers.onOutput(line.pane, line.data);
        return;
      case 'exit':
        this.finish(line.reason);
        return;
      default:
        return;
    }
  }

  private finish(reason: string): void {
    if (this.exited) return;
    this.exited = true;
    for (const pending of this.pending.splice(0)) pending.onReply?.([], true);
    this.handlers.onExit(reason);
  }

  /** Detaches (the session keeps running) and ends the client process. */
  close(): void {
    if (!this.child.killed && this.child.exitCode === null) {
      this.child.stdin.end();
      this.child.kill('SIGTERM');
    }
  }
}
