// A command on a pseudo-terminal of a given size, for benchmarks that need a real terminal client (an attached
// tmux client, `svc client attach`): util-linux `script` holds the pty, the benchmark writes keys to it and
// waits for text in what the command draws. `script` relays both ways, a cost the reference pays too.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export class PtyProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  /** What the command drew since the last `expect` began (bounded to its tail). */
  private output = '';
  private waiter: { text: string; resolve: (at: number) => void } | null = null;
  private exited = false;

  /** `command` runs through `sh -c` after the pty is sized `cols`×`rows`. */
  constructor(command: string, cols: number, rows: number, env: Record<string, string | undefined> = process.env) {
    this.child = spawn('script', ['-qfec', `stty cols ${cols} rows ${rows}; exec ${command}`, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.resume();
    this.child.stdout.setEncoding('latin1');
    this.child.stdout.on('data', (chunk: string) => {
      const at = performance.now();
      this.output = (this.output + chunk).slice(-64 * 1024);
      const waiter = this.waiter;
      if (waiter && this.output.includes(waiter.text)) {
        this.waiter = null;
        waiter.resolve(at);
      }
    });
    this.child.on('exit', () => (this.exited = true));
  }

  write(text: string): void {
    this.child.stdin.write(text);
  }

  /** Forgets what was drawn so far: the next `until` sees only what comes after. */
  reset(): void {
    this.output = '';
  }

  /** Resolves with the time (performance.now()) the chunk that completed `text` arrived. Latin-1: ASCII only. */
  until(text: string, timeoutMs = 60_000): Promise<number> {
    if (this.output.includes(text)) return Promise.resolve(performance.now());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`"${text}" never drawn; tail: ${JSON.stringify(this.output.slice(-400))}`)),
        timeoutMs,
      );
      this.waiter = {
        text,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
    });
  }

  stop(): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}
