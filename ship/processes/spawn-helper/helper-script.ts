// The spawn helper's own program: plain CommonJS for `node -e`, so it runs the same from the TypeScript
// sources (tests) and from dist/ without a build step or a file to ship. It does for each request what
// DirectSpawner (../spawner.ts) does in-process: the same spawn options, the same timeout and process-group
// kill, stdout as bytes. Kept small on purpose: the helper must stay a small process (a fork copies the
// forking process's page tables, which is the cost the helper exists to keep off the ship), and every line
// here is untyped.
//
// Protocol over the IPC channel (advanced serialization, so Buffers pass as bytes):
//   ship → helper  { id, request: SpawnRequest }      run it
//                  { kill: id }                        kill it (its group when detached)
//   helper → ship  { id, pid }                         started (the ship can kill its group if the helper dies)
//                  { id, result: SpawnResult }         ended
//                  { id, error: { message, code } }    could not start
// When the channel closes (the ship exited, even by SIGKILL) the helper kills every detached command it runs,
// as the ship's shutdown would, and exits: it never outlives its ship.

/** argv[1] of the helper: how a process listing tells it apart from other `node -e` processes. */
export const HELPER_MARKER = 'svc-spawn-helper';

// biome-ignore lint/complexity/noUselessStringRaw: the program must reach node as written, any backslash added later too
export const HELPER_SCRIPT = String.raw`
'use strict';
const { spawn } = require('node:child_process');
const { existsSync } = require('node:fs');
const running = new Map();
const hasProc = existsSync('/proc/self/stat');

// As groupStillOurs in ../spawner.ts: once the leader is reaped, its number may be a stranger's group.
function groupStillOurs(child) {
  if (child.exitCode === null && child.signalCode === null) return true;
  return hasProc && !existsSync('/proc/' + child.pid);
}

function kill(entry) {
  const pid = entry.child.pid;
  if (pid === undefined) return;
  try {
    if (entry.detached && groupStillOurs(entry.child)) process.kill(-pid, 'SIGKILL');
    else entry.child.kill('SIGKILL');
  } catch {
    entry.child.kill('SIGKILL');
  }
}

function reply(message) {
  if (process.connected) process.send(message, undefined, undefined, () => undefined);
}

function start(id, request) {
  let child;
  try {
    child = spawn(request.command, request.args, {
      cwd: request.cwd,
      env: request.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: request.detached,
      uid: request.uid,
      gid: request.gid,
    });
  } catch (error) {
    reply({ id, error: { message: String(error && error.message), code: error && error.code } });
    return;
  }
  const entry = { child, detached: request.detached };
  running.set(id, entry);
  let settled = false;
  let timedOut = false;
  const timer = request.timeoutMs === undefined ? null : setTimeout(() => {
    timedOut = true;
    kill(entry);
  }, request.timeoutMs);
  // Error listener first: a start that fails for lack of descriptors leaves the child without stdio.
  child.on('error', (error) => {
    if (settled) return;
    settled = true;
    if (timer) clearTimeout(timer);
    running.delete(id);
    reply({ id, error: { message: String(error.message), code: error.code } });
  });
  if (child.pid !== undefined) reply({ id, pid: child.pid });
  const out = [];
  const err = [];
  if (child.stdout) child.stdout.on('data', (chunk) => out.push(chunk));
  if (child.stderr) child.stderr.on('data', (chunk) => err.push(chunk));
  child.on('close', (code, signal) => {
    if (timer) clearTimeout(timer);
    running.delete(id);
    if (settled) return;
    settled = true;
    reply({ id, result: { code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), timedOut } });
  });
}

process.on('message', (message) => {
  if (message.kill !== undefined) {
    const entry = running.get(message.kill);
    if (entry) kill(entry);
    return;
  }
  start(message.id, message.request);
});

process.on('disconnect', () => {
  for (const entry of running.values()) if (entry.detached) kill(entry);
  process.exit(0);
});
`;
