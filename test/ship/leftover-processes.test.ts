// Processes a killed ship left running: the next start finds clones by a path of its own on their command
// line and ends their whole process group, and finds tmux control clients on its own socket; it touches
// nothing else.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  controlClientsOf,
  endProcesses,
  endProcessesUsing,
  isRunning,
  processesUsing,
} from '../../ship/processes/leftover-processes.js';
import { signalGroupOf } from '../helpers/process-group.js';
import { makeTempRoot, removeRoot } from '../helpers/ship.js';

let root: string;
const started: ChildProcess[] = [];

beforeAll(async () => {
  root = await makeTempRoot();
  mkdirSync(join(root, 'staging'));
  mkdirSync(join(root, 'staging-other'));
});
afterAll(async () => {
  for (const child of started) signalGroupOf(child, 'SIGKILL');
  await removeRoot(root);
});

/** A group leader named by `path` (its $0) with a child of its own, like a git clone and its index-pack. */
function leaderWithHelper(path: string): { leader: ChildProcess; helperPid: Promise<number> } {
  const leader = spawn('sh', ['-c', 'sleep 30 & echo $!; wait', path], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  started.push(leader);
  const helperPid = new Promise<number>((resolve) =>
    leader.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  return { leader, helperPid };
}

describe('leftover processes', () => {
  it('ends every process group working under the directory, helpers included, and nothing else', async () => {
    const inside = leaderWithHelper(join(root, 'staging', '1-abc'));
    const outside = leaderWithHelper(join(root, 'staging-other', 'x'));
    const insideHelper = await inside.helperPid;
    const outsideHelper = await outside.helperPid;
    // Until the backgrounded child has exec'd `sleep`, it is a fork of the shell with the shell's command line.
    await expect.poll(() => processesUsing(join(root, 'staging'))).toEqual([inside.leader.pid]);

    const exited = new Promise((resolve) => inside.leader.once('exit', resolve));
    expect(await endProcessesUsing(join(root, 'staging'))).toEqual([inside.leader.pid]);
    await exited;
    // The helper shared the leader's group, so it went with it; the other group is untouched.
    await expect.poll(() => isRunning(insideHelper)).toBe(false);
    expect(isRunning(outside.leader.pid!)).toBe(true);
    expect(isRunning(outsideHelper)).toBe(true);
    expect(processesUsing(join(root, 'staging'))).toEqual([]);
  });

  it('finds the control clients on its own tmux socket, not those on another', async () => {
    const sockets = [`svc-test-leftover-${process.pid}`, `svc-test-other-${process.pid}`];
    const clients = sockets.map((socket) => {
      execFileSync('tmux', [
        '-L',
        socket,
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-s',
        'keeper',
        'exec tail -f /dev/null',
      ]);
      const client = spawn('tmux', ['-L', socket, '-C', 'attach-session', '-t', '=keeper'], {
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      started.push(client);
      return client;
    });
    try {
      await expect.poll(() => controlClientsOf(sockets[0]!)).toEqual([clients[0]!.pid]);
      expect(controlClientsOf(sockets[1]!)).toEqual([clients[1]!.pid]);
      await endProcesses(controlClientsOf(sockets[0]!));
      expect(isRunning(clients[0]!.pid!)).toBe(false);
      expect(isRunning(clients[1]!.pid!)).toBe(true);
    } finally {
      for (const socket of sockets) execFileSync('tmux', ['-L', socket, 'kill-server']);
    }
  });
});
