// The lstat half of a working tree's stamp (worktree-stamp.ts), run on a worker thread: one lstat per
// tracked file on every status read is ~1–2 ms of system calls for a few hundred files, and on the ship's
// main thread every terminal's echo waited behind it (bench/RESULTS.md, "Status reads and the echo"). The
// main thread now only passes a message; the calls run on another core.
//
// The thread's program is plain CommonJS evaluated by the Worker, so it runs the same from the TypeScript
// sources (tests) and from dist/, as the spawn helper's does (../processes/spawn-helper/helper-script.ts).
// Protocol:
//   main → thread  { id, list, paths? }   stat list `list` (its paths sent when the thread has not seen it)
//   thread → main  { id, digest, newest } the sha1 of every path's (inode, mode, size, mtime, ctime) in
//                                          order, zeros for a missing one, and the newest time in ms
//                  { id, unknown: true }   the thread no longer holds `list`: send it again with its paths
// A thread that dies fails the calls it held (the caller then runs git, as for any tree it cannot stamp);
// the next call starts a new one. Millisecond doubles resolve below a microsecond, far finer than the 2 s
// settle that decides whether a stamp is trusted.
import { Worker } from 'node:worker_threads';

/** Lists the thread keeps at most, as many trees as worktree-stamp.ts remembers. */
const REMEMBERED = 1024;

// biome-ignore lint/complexity/noUselessStringRaw: the program must reach the Worker as written
const STAT_THREAD_SCRIPT = String.raw`
'use strict';
const { parentPort } = require('node:worker_threads');
const { lstatSync } = require('node:fs');
const { createHash } = require('node:crypto');
const lists = new Map();
parentPort.on('message', ({ id, list, paths }) => {
  if (paths) {
    lists.delete(list);
    if (lists.size >= ${REMEMBERED}) lists.delete(lists.keys().next().value);
    lists.set(list, paths);
  }
  const stamped = lists.get(list);
  if (!stamped) return parentPort.postMessage({ id, unknown: true });
  const numbers = new Float64Array(stamped.length * 5);
  let newest = -Infinity;
  for (let i = 0; i < stamped.length; i++) {
    const stats = lstatSync(stamped[i], { throwIfNoEntry: false });
    if (!stats) continue;
    const at = i * 5;
    numbers[at] = stats.ino;
    numbers[at + 1] = stats.mode;
    numbers[at + 2] = stats.size;
    numbers[at + 3] = stats.mtimeMs;
    numbers[at + 4] = stats.ctimeMs;
    newest = Math.max(newest, stats.mtimeMs, stats.ctimeMs);
  }
  parentPort.postMessage({ id, digest: createHash('sha1').update(numbers).digest('hex'), newest });
});
`;

/** A list of paths stamped together; `id` names it to the thread, which keeps its paths. */
export interface StatList {
  readonly id: number;
  readonly paths: readonly string[];
}

export interface StatDigest {
  digest: string;
  /** The newest mtime or ctime among the paths, in ms; -Infinity when none exists. */
  newest: number;
}

type ThreadReply = { id: number; unknown: true } | ({ id: number } & StatDigest);

interface Call {
  list: StatList;
  resolve: (digest: StatDigest) => void;
  reject: (error: Error) => void;
}

export class TreeStatThread {
  private thread: Worker | null = null;
  /** The lists the running thread holds. */
  private known = new Set<number>();
  private readonly calls = new Map<number, Call>();
  private nextId = 0;
  private closed = false;

  stat(list: StatList): Promise<StatDigest> {
    if (this.closed) return Promise.reject(new Error('the ship is shutting down'));
    return new Promise<StatDigest>((resolve, reject) => {
      const id = ++this.nextId;
      this.calls.set(id, { list, resolve, reject });
      this.send(id, list);
    });
  }

  /** Ends the thread and fails what it held. */
  close(): void {
    this.closed = true;
    void this.thread?.terminate();
    this.gone(this.thread, 'the ship is shutting down');
  }

  private send(id: number, list: StatList): void {
    const thread = this.running();
    const paths = this.known.has(list.id) ? undefined : list.paths;
    this.known.add(list.id);
    if (this.known.size > REMEMBERED) this.known.delete(this.known.values().next().value!);
    thread.postMessage({ id, list: list.id, paths });
    thread.ref();
  }

  private running(): Worker {
    if (this.thread) return this.thread;
    const thread = new Worker(STAT_THREAD_SCRIPT, { eval: true });
    this.thread = thread;
    this.known = new Set();
    thread.on('message', (reply: ThreadReply) => this.onReply(reply));
    thread.on('error', (error) => this.gone(thread, `the stat thread failed: ${error.message}`));
    thread.on('exit', (code) => this.gone(thread, `the stat thread exited with code ${code}`));
    return thread;
  }

  private onReply(reply: ThreadReply): void {
    const call = this.calls.get(reply.id);
    if (!call) return;
    if ('unknown' in reply) {
      this.known.delete(call.list.id);
      return this.send(reply.id, call.list);
    }
    this.calls.delete(reply.id);
    if (this.calls.size === 0) this.thread?.unref();
    call.resolve({ digest: reply.digest, newest: reply.newest });
  }

  private gone(thread: Worker | null, why: string): void {
    if (!thread || thread !== this.thread) return;
    this.thread = null;
    for (const call of this.calls.values()) call.reject(new Error(why));
    this.calls.clear();
  }
}
