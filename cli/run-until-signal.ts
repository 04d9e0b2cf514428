// The life of every long-running command (`svc ship`, `svc bridge`, `svc launch`, `svc operator`,
// `svc session-holder`): start the server, wait for SIGINT or SIGTERM, announce the stop once, close
// gracefully, and resolve when closed. The handlers are in place before the start: a supervisor may signal as
// soon as the server answers (or print its ready line), and a process descheduled between the two would
// otherwise die by Node's default action, mid-run. A signal during the start stops the server as soon as it
// has started. A second signal while closing is ignored (the close is already under way and bounded by each
// server's own shutdown). A command that runs a bridge (`svc bridge`, `svc launch`, which runs it
// in-process) asks for `releaseIdleHeap`: while idle, the process gives its unused heap back
// (server/idle-heap.ts). Here, not in a server's start (tests start many servers in one process), and not
// for a ship: the collection is one pause of up to a few hundred ms, which a ship would spend under a
// terminal whose user has just paused typing (docs/DECISIONS.md, "The embedded store's memory").

/** What a started server gives back. */
export interface Served {
  close(): Promise<void>;
  /** Rejects when the server ends by itself (the command then fails with that error). */
  ended?: Promise<never>;
}

export interface ServeOptions<S> {
  /** Told of the signal that stops the server, once. */
  announce?: (signal: NodeJS.Signals, server: S) => void;
  /** Give the unused heap back while idle (server/idle-heap.ts). */
  releaseIdleHeap?: boolean;
}

export async function serveUntilSignal<S extends Served>(
  start: () => Promise<S>,
  { announce = () => undefined, releaseIdleHeap = false }: ServeOptions<S> = {},
): Promise<void> {
  let server: S | null = null;
  let signalled: NodeJS.Signals | null = null;
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  const close = (running: S, signal: NodeJS.Signals) => {
    announce(signal, running);
    // A close that fails is reported, not left as an unhandled rejection; the exit code says it failed.
    running
      .close()
      .catch((error: unknown) => {
        process.stderr.write(`svc: stopping failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exitCode = 1;
      })
      .finally(markClosed);
  };
  const stop = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = signal;
    if (server) close(server, signal);
  };
  // `on`, not `once`: a second signal must find a handler, or Node's default action kills the process
  // mid-close. Under `npx`, Ctrl-C at a terminal is exactly that: the terminal signals svc, and npm, which
  // got the same SIGINT, forwards it again.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Loaded with the server, not with the command tree (docs/DECISIONS.md, "What does `svc` load…"), and
  // before the start: nothing may wait between the start and the handler on `ended` below.
  const idleHeap = releaseIdleHeap ? await import('../server/idle-heap.js') : null;
  try {
    server = await start();
  } catch (error) {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    throw error;
  }
  const stopReleasing = idleHeap?.releaseHeapWhenIdle();
  if (stopReleasing) void closed.then(stopReleasing);
  if (signalled) close(server, signalled);
  // An end the close itself brings about (a holder's tmux server killed on purpose) is no failure.
  const ended = server.ended?.catch((error: unknown) => (signalled ? closed : Promise.reject(error)));
  await (ended ? Promise.race([closed, ended]) : closed);
}
