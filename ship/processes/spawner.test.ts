// A command's kill reaches its own process group and never a stranger that took the number of a reaped leader.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { isRunning } from './leftover-processes.js';
import { groupStillOurs, killCommand } from './spawner.js';

const started: ChildProcess[] = [];
const sleeper = () => {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  started.push(child);
  return child;
};
afterAll(() => {
  for (const child of started) child.kill('SIGKILL');
});

describe('killCommand', () => {
  it('kills the group of a detached command whose leader runs', async () => {
    const command = sleeper();
    expect(groupStillOurs(command)).toBe(true);
    killCommand(command, true);
    await new Promise((resolve) => command.once('exit', resolve));
    expect(command.signalCode).toBe('SIGKILL');
  });

  it('leaves alone a live group leader holding the number of a command already reaped', () => {
    const stranger = sleeper();
    let killedAlone = false;
    // A detached command that ended and was reaped, whose PID Linux has since handed to `stranger`.
    const reaped = {
      pid: stranger.pid,
      exitCode: 0,
      signalCode: null,
      kill: () => (killedAlone = true),
    } as unknown as ChildProcess;
    expect(groupStillOurs(reaped)).toBe(false);
    killCommand(reaped, true);
    expect(isRunning(stranger.pid!)).toBe(true);
    expect(killedAlone).toBe(true);
  });
});
