// The test helpers' group signals reach their own group and never a stranger holding a reused number.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { groupAlive, signalGroupOf } from './process-group.js';
import { until } from './poll.js';

const leaders: ChildProcess[] = [];
const startLeader = () => {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  leaders.push(child);
  return child;
};
afterAll(() => {
  for (const child of leaders) child.kill('SIGKILL');
});

describe('signalGroupOf', () => {
  it('signals the group of a running leader', async () => {
    const leader = startLeader();
    expect(signalGroupOf(leader, 'SIGTERM')).toBe(true);
    await until(async () => leader.signalCode === 'SIGTERM', 'the leader ended by SIGTERM', 5000);
    expect(groupAlive(leader)).toBe(false);
  });

  it('leaves alone a live group leader that holds the number of a leader already reaped', () => {
    const stranger = startLeader();
    // What a reaped leader whose PID Linux handed to `stranger` looks like from the test's side.
    const reaped = { pid: stranger.pid, exitCode: 0, signalCode: null } as unknown as ChildProcess;
    expect(signalGroupOf(reaped, 'SIGTERM')).toBe(false);
    expect(groupAlive(reaped)).toBe(false);
    expect(groupAlive(stranger)).toBe(true);
  });
});
