// A container's lifetime on this machine: a cgroup v2 group a process is started in, whose every
// descendant (a daemon that called setsid included) stays in it, and which is stopped as the kubelet stops
// a container: cgroup.kill, every process at once. Session-holder tests use it to tell a pod's restart
// from a process's: a process group does not hold a daemonized tmux server; a container does.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { until } from './poll.js';

// The v2 hierarchy: alone at /sys/fs/cgroup, or beside v1's controllers at /sys/fs/cgroup/unified.
const UNIFIED = ['/sys/fs/cgroup/unified', '/sys/fs/cgroup'].find((root) =>
  existsSync(join(root, 'cgroup.subtree_control')),
);

/** Why containers cannot be emulated here, or null when they can (root, a writable cgroup v2 with cgroup.kill). */
export function containersUnavailable(): string | null {
  if (!UNIFIED) return 'no cgroup v2 hierarchy is mounted';
  try {
    const probe = join(UNIFIED, `svc-probe-${randomBytes(4).toString('hex')}`);
    mkdirSync(probe);
    const killable = existsSync(join(probe, 'cgroup.kill'));
    rmdirSync(probe);
    return killable ? null : 'the kernel has no cgroup.kill (Linux 5.14 or later)';
  } catch (error) {
    return `cgroup v2 is not writable here (${(error as Error).message})`;
  }
}

export interface Container {
  /** The file a process writes its pid to, joining the container with all its future descendants. */
  readonly procs: string;
  /** Pids in the container now. */
  pids(): number[];
  /** Kills every process of the container at once, waits until none is left, and removes the group. */
  kill(): Promise<void>;
}

export function makeContainer(name: string): Container {
  if (!UNIFIED) throw new Error('no cgroup v2 hierarchy');
  const dir = join(UNIFIED, `svc-test-${name}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir);
  const procs = join(dir, 'cgroup.procs');
  const pids = () => readFileSync(procs, 'utf8').split('\n').filter(Boolean).map(Number);
  return {
    procs,
    pids,
    async kill() {
      if (!existsSync(dir)) return;
      writeFileSync(join(dir, 'cgroup.kill'), '1');
      await until(async () => pids().length === 0, `container ${name} to empty`);
      // Its last tasks may still be exiting for a moment after cgroup.procs is empty.
      await until(async () => {
        try {
          rmdirSync(dir);
          return true;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EBUSY') return false;
          throw error;
        }
      }, `container ${name} to be removable`);
    },
  };
}
