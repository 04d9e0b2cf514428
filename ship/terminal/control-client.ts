// A tmux control-mode client (`tmux -C attach-session`) on one workspace session: the terminal's way to type,
// resize, pipe and read the screen. Unlike an attached terminal client, tmux neither renders for it nor
// throttles it (which made `cat` of a large file 1.3-2x slower). Commands are answered in order; `onReply`
// runs when a reply completes. `%output` lines are ignored: the terminal turns them off and reads the pane
// through pipe-pane instead (escaping every byte made tmux itself ~60% slower).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { parseControlLine } from './control-protocol.js';

export interface ControlHandlers {
  onExit(reason: string): void;
}

interface Pending {
  lines: Buffer[];
  error: boolean;
  /** Replies still to come: tmux answers each command of a `a ; b` list with its own block. */
  blocks: number;
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
  /**
   * Command lines written before tmux finished the attach (it says so with `%session-changed`), or null
   * once it has. tmux 3.3 can run a command that arrives during the attach before the client counts for
   * the session's size, so a `refresh-client -C` sent then was lost and the pane kept its old width.
   */
  private beforeAttach: string[] | null = [];
  /** close() was called: input ends once the lines held for the attach are written. */
  private closing = false;

  constructor(
    args: string[],
    env: Record<string, string>,
    private readonly handlers: ControlHandlers,
  ) {
    this.child = spawn('tmux', args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    // Error listener first: a start that fails for lack of descriptors leaves the child without stdio.
    this.child.on('error', () => this.finish('tmux could not be started'));
    this.child.stdin?.on('error', () => undefined);
    this.child.stderr?.resume();
    this.child.stdout?.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.on('close', () => this.finish(''));
  }

  /**
   * Sends one command line of `commands` commands (a ` ; ` list); `onReply` gets the output lines of all
   * of them once tmux has answered the last.
   */
  command(line: string, onReply?: (lines: Buffer[], error: boolean) => void, commands = 1): void {
    if (this.exited) return;
    this.pending.push({ lines: [], error: false, blocks: commands, onReply });
    this.write(line);
  }

  private write(line: string): void {
    if (this.beforeAttach) this.beforeAttach.push(line);
    else this.child.stdin.write(`${line}\n`);
  }

  private attached(): void {
    const lines = this.beforeAttach;
    if (!lines) return;
    this.beforeAttach = null;
    if (lines.length) this.child.stdin.write(lines.map((line) => `${line}\n`).join(''));
    if (this.closing) this.child.stdin.end();
  }

  /** The same, awaited (`commands` as above). Rejects when tmux answers with an error or the client ended. */
  ask(line: string, commands = 1): Promise<string[]> {
    if (this.exited) return Promise.reject(new Error('tmux: the control client has ended'));
    return new Promise((resolve, reject) =>
      this.command(
        line,
        (lines, error) => {
          const text = lines.map((l) => l.toString('utf8'));
          if (error) reject(new Error(`tmux: ${text.join(' ')}`));
          else resolve(text);
        },
        commands,
      ),
    );
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
        done.error ||= line.error;
        if (--done.blocks > 0) {
          this.pending.unshift(done);
          return;
        }
        done.onReply?.(done.lines, done.error);
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
      case 'exit':
        this.finish(line.reason);
        return;
      case 'notification':
        if (line.name === '%session-changed') this.attached();
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

  /**
   * Sends `lastCommands`, then ends the client by closing its input: tmux runs everything it was sent, in
   * order, before the client detaches (the session keeps running). Killed if it lingers.
   */
  close(lastCommands: string[] = []): void {
    if (this.child.exitCode !== null || this.child.killed) return;
    for (const line of lastCommands) this.write(line);
    this.closing = true;
    if (!this.beforeAttach) this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    timer.unref();
    this.child.once('close', () => clearTimeout(timer));
  }
}
