// The user sessions run as (`--session-user <uid>[:<gid>]`, issue #30): another uid than the ship's, so an
// agent cannot read the ship's process environment or its 0700/0600 files (docs/security.md H24). Owns the
// parsing of the flag, the identity a session's shell gets (HOME, USER from /etc/passwd when the uid is
// listed there), where the tmux socket of such a server lives, and handing a fresh clone over to the user.
// Switching needs CAP_SETUID and CAP_SETGID (root, or a ship given them); the hand-over needs CAP_CHOWN.
import { readFileSync } from 'node:fs';
import { chown, lchown, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface SessionUser {
  uid: number;
  gid: number;
  /** The session shell's HOME: the passwd entry's, else /tmp (a uid without an entry has no home of its own). */
  home: string;
  /** USER and LOGNAME: the passwd name, else the uid. */
  name: string;
}

/** Parses `<uid>[:<gid>]` (numbers only: a container image need not list the user); gid defaults to the uid. */
export function parseSessionUser(value: string, passwd = readPasswd()): SessionUser {
  const match = /^(\d+)(?::(\d+))?$/.exec(value.trim());
  if (!match) throw new Error('must be <uid>[:<gid>], numbers (e.g. 10002:10002)');
  const uid = Number(match[1]);
  const gid = Number(match[2] ?? match[1]);
  if (uid === 0 || gid === 0) throw new Error("must not be root (0): sessions would run as the ship's own user");
  if (uid > 0xfffffffe || gid > 0xfffffffe) throw new Error('is out of range');
  const entry = passwd.find((line) => Number(line[2]) === uid);
  return { uid, gid, home: entry?.[5] || '/tmp', name: entry?.[0] || String(uid) };
}

function readPasswd(): string[][] {
  try {
    return readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(':'));
  } catch {
    return [];
  }
}

/**
 * How a tmux client names the server on `socketName`: `-L <name>` when it runs as the ship's own user; when it
 * runs as `user`, `-S` with the socket where `tmux -L <name>` run by that user would put it, so the ship's
 * clients (another uid, which tmux admits as root or the server's owner) reach it.
 */
export function tmuxSocketArgs(
  socketName: string,
  user: SessionUser | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  return user ? ['-S', join(socketDirectory(user, env), socketName)] : ['-L', socketName];
}

function socketDirectory(user: SessionUser, env: NodeJS.ProcessEnv): string {
  return join(sharedTemporaryDirectory(env), `tmux-${user.uid}`);
}

/**
 * Where the ship puts what the session user's processes must reach (its tmux socket directory, the FIFOs
 * tmux writes pane output into): tmux's own TMUX_TMPDIR, else /tmp. The ship's TMPDIR may be private.
 */
export function sharedTemporaryDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return env.TMUX_TMPDIR || '/tmp';
}

/** Creates the user's tmux socket directory as tmux would (0700, the user's): tmux does not make it for `-S`. */
export async function ensureSocketDirectory(user: SessionUser, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const dir = socketDirectory(user, env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stat = await lstat(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (stat.uid !== user.uid) await chown(dir, user.uid, user.gid);
}

/** The scrubbed environment a process of the user starts with: its own HOME and names, not the ship's (no user: `base`). */
export function userEnvironment(base: Record<string, string>, user: SessionUser | undefined): Record<string, string> {
  return user ? { ...base, HOME: user.home, USER: user.name, LOGNAME: user.name } : base;
}

/**
 * Gives a fresh clone (still in the ship's 0700 staging) to the user, every entry and never through a
 * symlink (lchown), before it is renamed into the fleet.
 */
export async function handOver(dir: string, user: SessionUser): Promise<void> {
  await lchown(dir, user.uid, user.gid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await handOver(path, user);
    else await lchown(path, user.uid, user.gid);
  }
}
