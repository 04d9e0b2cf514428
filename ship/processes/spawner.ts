// How the ship runs a short-lived command (git, tmux) to its end: the request and result shapes every
// runner shares, and `DirectSpawner`, which forks from the calling process. The ship itself does not use
// it on request paths: a fork from the ship's main thread copies its page tables and stalls every terminal
// for milliseconds, so the ship's spawns go through the spawn helper (spawn-helper/), which does exactly
// what DirectSpawner does from a small process of its own. DirectSpawner stays for what has no helper (a
// `Tmux` built by a test or a CLI tool) and as the helper's fallback.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { HAS_PROC } from './proc-table.js';

export interface SpawnRequest {
  command: string;
  args: readonly string[];
  cwd?: string;
  /** The whole environment of the command: nothing of the caller's is added. */
  env: Record<string, string>;
  /**
   * Own process group and session: a kill (timeout, abort) ends the command with every process it started,
   * and it has no terminal to prompt on.
   */
  detached: boolean;
  /** Killed after this long; the result then says `timedOut`. None: no limit. */
  timeoutMs?: number;
  /** How messages name the command (`git diff`); never a secret. Default: the command. */
  what?: string;
  /** Run as this user and group (`--session-user`: ship/sessions/session-user.ts); needs CAP_SETUID/CAP_SETGID. */
  uid?: number;
  gid?: number;
}

export interface SpawnResult {
  /** Exit code; null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
}

export interface Spawner {
  /**
   * Runs one command to its end and never rejects for how it ended (read `code`). Rejects when it cannot be
   * started (the error's `code` says why, e.g. ENOENT) or when the spawner lost it. `abort` kills it (its
   * group when detached); the call then resolves as the command ends.
   */
  run(request: SpawnRequest, abort?: AbortSignal): Promise<SpawnResult>;
  /** Gets ready ahead of the first call, where there is anything to get ready. */
  start?(): void;
  /** The owner is shutting down: commands still running may be cut short. */
  close(): void;
}

/**
 * Whether `-pid` still names the group `child` leads. Until the leader is reaped its number is its own; after,
 * members left keep the number as their group, but once the whole group ended Linux may hand the number to a
 * stranger that leads a group of its own (a tmux server, another git), which a group kill would then end.
 * A process holding the number means exactly that; without /proc there is no telling, so no group kill.
 */
export function groupStillOurs(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  if (child.exitCode === null && child.signalCode === null) return true;
  return HAS_PROC && !existsSync(`/proc/${child.pid}`);
}

/** Kills a command, with its whole process group when it leads one; one already gone is fine. */
export function killCommand(child: ChildProcess, detached: boolean): void {
  if (child.pid === undefined) return;
  try {
    if (detached && groupStillOurs(child)) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

export class DirectSpawner implements Spawner {
  /** Nothing to end: its commands are the caller's own children, ended by the caller's kills. */
  close(): void {}

  run(request: SpawnRequest, abort?: AbortSignal): Promise<SpawnResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(request.command, request.args, {
        cwd: request.cwd,
        env: request.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: request.detached,
        uid: request.uid,
        gid: request.gid,
      });
      let timedOut = false;
      const kill = () => killCommand(child, request.detached);
      const timer =
        request.timeoutMs === undefined
          ? null
          : setTimeout(() => {
              timedOut = true;
              kill();
            }, request.timeoutMs);
      abort?.addEventListener('abort', kill);
      const done = () => {
        if (timer) clearTimeout(timer);
        abort?.removeEventListener('abort', kill);
      };
      // Listen for a failed start before touching stdio: out of descriptors (EMFILE) Node reports it here and
      // leaves the child without stdio, so reading stdout first would throw and leave the error unhandled.
      child.on('error', (error) => {
        done();
        reject(error);
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('close', (code, signal) => {
        done();
        resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), timedOut });
      });
      if (abort?.aborted) kill();
    });
  }
}
