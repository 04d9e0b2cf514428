// The end of every long-running command (`svc ship`, `svc bridge`, `svc launch`): wait for SIGINT or
// SIGTERM, announce the stop once, close gracefully, and resolve when closed. A second signal while closing
// is ignored (the close is already under way and bounded by each server's own shutdown).
export function runUntilSignal(
  close: () => Promise<void>,
  announce: (signal: NodeJS.Signals) => void = () => undefined,
): Promise<void> {
  return new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      announce(signal);
      // A close that fails is reported, not left as an unhandled rejection; the exit code says it failed.
      close()
        .catch((error: unknown) => {
          process.stderr.write(`svc: stopping failed: ${error instanceof Error ? error.message : String(error)}\n`);
          process.exitCode = 1;
        })
        .finally(resolve);
    };
    // `on`, not `once`: a second signal must find a handler, or Node's default action kills the process
    // mid-close. Under `npx`, Ctrl-C at a terminal is exactly that: the terminal signals svc, and npm, which
    // got the same SIGINT, forwards it again.
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
