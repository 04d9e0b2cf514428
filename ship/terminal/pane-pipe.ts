// Raw pane output through `pipe-pane -O`: tmux copies the pane's bytes as they are into a FIFO the ship
// reads, the cheapest way out of tmux (an attached client makes tmux re-render and stall on a busy client;
// control-mode `%output` escapes every byte). Each pipe gets a fresh FIFO in the ship's private directory,
// so a re-seed never mixes an old pipe's tail into a new stream. With a session user (docs/security.md H24)
// tmux's writer runs as that user: the directory is then traversable (0711, not listable) and each FIFO
// belongs to the writer, so it can open what the ship (root, or CAP_DAC_OVERRIDE) reads.
import { chmodSync, chownSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';

const SAFE_PATH = /^[A-Za-z0-9_./-]+$/;

/** Who writes into the FIFOs when it is not the ship's own user: tmux running as the session user. */
export interface PipeWriter {
  uid: number;
  gid: number;
}

/** A 0700 directory for one ship's FIFOs (0711 for a writer of another user), removed by `dispose()`. */
export class PipeDirectory {
  readonly path: string;
  private counter = 0;

  constructor(
    base = tmpdir(),
    readonly writer?: PipeWriter,
  ) {
    this.path = mkdtempSync(join(base, 'svc-pipes-'));
    if (!SAFE_PATH.test(this.path)) {
      rmSync(this.path, { recursive: true, force: true });
      throw new Error(`the temp directory path ${base} has characters a pipe command cannot carry`);
    }
    if (writer) chmodSync(this.path, 0o711);
  }

  /** A new FIFO path (not yet created). */
  next(): string {
    return join(this.path, `p${++this.counter}`);
  }

  dispose(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}

export interface PaneStream {
  /** The FIFO's path, for the `pipe-pane` command. */
  path: string;
  /** The `pipe-pane` shell command that writes into it. */
  command: string;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

/**
 * Creates a FIFO and opens it for reading before any writer exists (non-blocking, so nothing waits), then
 * hands every chunk to `onData`.
 */
export function openPaneStream(path: string, onData: (chunk: Buffer) => void, writer?: PipeWriter): PaneStream {
  execFileSync('mkfifo', ['-m', '600', path]);
  if (writer) chownSync(path, writer.uid, writer.gid);
  // The socket owns the descriptor from here on (libuv reads a FIFO as a pipe).
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const socket = new Socket({ fd, readable: true, writable: false });
  let deliver = true;
  socket.on('data', (chunk: Buffer) => {
    if (deliver) onData(chunk);
  });
  socket.on('error', () => undefined);
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let closing: Promise<void> | null = null;
  return {
    path,
    // `test -p`: a pipe whose FIFO is already gone must end, never create a regular file in its place.
    command: `test -p ${path} && exec cat > ${path}`,
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    close() {
      // Keep reading (and dropping) until tmux's writer is gone: a writer that has not opened the FIFO yet
      // must find a reader, or it would block in open() forever. Give up after a grace period.
      closing ??= (async () => {
        deliver = false;
        socket.resume();
        const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
        timer.unref();
        await ended;
        clearTimeout(timer);
        await rm(path, { force: true });
      })();
      return closing;
    },
  };
}

/** How long a closed stream waits for tmux's writer to let go of its FIFO. */
const CLOSE_GRACE_MS = 5000;
