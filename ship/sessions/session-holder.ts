// `svc session-holder`: owns a fleet's tmux server so the sessions outlive the ship (on a cluster, a
// DaemonSet a ship upgrade does not restart: charts/svc README, "Sessions that outlive the ship"). It runs
// `tmux -D` (the server in the foreground, from a scrubbed environment: no secret of the holder reaches a
// pane) with the keeper session, and reaps: when a pane is gone, whatever its session left running (a
// background job, a loop the SIGHUP missed) gets SIGTERM, then SIGKILL. The ship cannot do that here, as it
// does for its own server (process-reaper.ts): the panes' pids belong to the holder's PID namespace.
// Ended by a signal, it ends the server and every session with it: that is the deliberate roll.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { terminateSessions } from './process-reaper.js';
import { DUPLICATE_SESSION, KEEPER_SESSION, scrubbedEnvironment, Tmux } from './tmux.js';
import { tmuxSocketFor } from './tmux-socket.js';
import { ensureSocketDirectory, tmuxSocketArgs, userEnvironment, type SessionUser } from './session-user.js';

/** `--session-user`'s parser, for the CLI, which starts the ship and the holder through their entries. */
export { parseSessionUser } from './session-user.js';
/** The ship's logging, the same in the holder. */
export { SHIP_LOGGER } from '../logger-options.js';

/** How often the holder re-lists panes besides tmux's own notifications. */
const SWEEP_MS = 5_000;

export interface SessionHolder {
  readonly socketName: string;
  /** Settles with the server's exit code when tmux ends on its own. */
  readonly exited: Promise<number | null>;
  /** Ends the server, every session and what they left running. */
  close(): Promise<void>;
}

export async function startSessionHolder(options: {
  fleetDirectory: string;
  logger: Logger;
  sessionUser?: SessionUser;
}): Promise<SessionHolder> {
  const { logger } = options;
  const absolute = resolve(options.fleetDirectory);
  await mkdir(absolute, { recursive: true });
  const socketName = tmuxSocketFor(await realpath(absolute));
  const user = options.sessionUser;
  const tmux = new Tmux(socketName, undefined, undefined, {}, { holder: true, user });
  if ((await tmux.run(['list-sessions'])).code === 0) {
    throw new Error(
      `a tmux server already runs on socket ${socketName}: another session holder, or a ship that started its own`,
    );
  }

  // With a session user the server runs as that user (docs/security.md H24), its socket where theirs would be.
  if (user) await ensureSocketDirectory(user);
  const server: ChildProcess = spawn('tmux', [...tmuxSocketArgs(socketName, user), '-D', '-f', '/dev/null'], {
    env: userEnvironment(scrubbedEnvironment(), user),
    stdio: ['ignore', 'inherit', 'inherit'],
    cwd: '/',
    uid: user?.uid,
    gid: user?.gid,
  });
  const exited = new Promise<number | null>((resolveExit, rejectExit) => {
    server.once('exit', (code) => resolveExit(code));
    server.once('error', (error: NodeJS.ErrnoException) =>
      rejectExit(
        error.code === 'ENOENT' ? new Error('tmux was not found on PATH: the session holder needs tmux') : error,
      ),
    );
  });
  exited.catch(() => undefined);

  // The keeper session: what the ship's watcher and this holder's attach to.
  for (let attempt = 0; ; attempt++) {
    const keeper = await tmux.run(
      ['new-session', '-d', '-s', KEEPER_SESSION, '-x', '20', '-y', '5', 'exec tail -f /dev/null'],
      { cwd: '/' },
    );
    if (keeper.code === 0 || DUPLICATE_SESSION.test(keeper.stderr)) break;
    if (server.exitCode !== null || attempt >= 100) {
      server.kill('SIGTERM');
      throw new Error(
        `the session holder's tmux server did not start: ${keeper.stderr.trim() || `exit code ${server.exitCode}`}`,
      );
    }
    await sleep(50);
  }

  // Every pane's pid, or null when tmux did not answer (never read as "every pane is gone").
  const livePanes = async (): Promise<Set<number> | null> => {
    const listed = await tmux.run(['list-panes', '-a', '-F', '#{pane_pid}']);
    return listed.code === 0 ? new Set(listed.stdout.split('\n').filter(Boolean).map(Number)) : null;
  };
  let known = (await livePanes()) ?? new Set<number>();
  let closed = false;
  let sweeping: Promise<void> | null = null;
  const sweep = (): Promise<void> =>
    (sweeping ??= (async () => {
      const now = await livePanes();
      if (now === null) return;
      const gone = [...known].filter((pid) => !now.has(pid));
      known = now;
      if (gone.length > 0) await terminateSessions(gone);
    })()
      .catch((error: unknown) => logger.warn({ err: error }, 'session holder: reaping failed'))
      .finally(() => {
        sweeping = null;
      }));
  const watch = () =>
    tmux.watch(
      () => void sweep(),
      () => {
        if (!closed && server.exitCode === null) setTimeout(watch, 250).unref();
      },
    );
  watch();
  const timer = setInterval(() => void sweep(), SWEEP_MS);
  timer.unref();
  void exited.then(
    () => clearInterval(timer),
    () => clearInterval(timer),
  );
  logger.info({ socket: socketName, pid: server.pid }, 'session holder running');

  return {
    socketName,
    exited,
    async close() {
      closed = true;
      clearInterval(timer);
      tmux.unwatch();
      const panes = await tmux.panePids();
      await tmux.run(['kill-server']);
      await terminateSessions(panes);
      if (server.exitCode === null) {
        const gone = setTimeout(() => server.kill('SIGKILL'), 2_000);
        await exited.catch(() => undefined);
        clearTimeout(gone);
      }
    },
  };
}
