// Private tmpfs mounts for tests that fill a disk (a full fleet volume, a full store): whether this process
// may mount one (root, as `.ci/run` runs), refusing to run silently without it under CI.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Whether a tmpfs can be mounted here; under CI its absence fails the file, elsewhere it says it skips. */
export function tmpfsMountable(what: string): boolean {
  let mountable = false;
  if (process.getuid?.() === 0) {
    const probe = join(process.env.TMPDIR ?? '/tmp', `svc-mount-probe-${process.pid}`);
    try {
      mkdirSync(probe, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
      execFileSync('umount', [probe], { stdio: 'ignore' });
      mountable = true;
    } catch {
      mountable = false;
    }
  }
  if (!mountable) {
    if (process.env.CI === 'true')
      throw new Error(`the ${what} test cannot run: it needs root and tmpfs mounts (\`.ci/run\` runs as root)`);
    console.warn(`\n*** ${what} test SKIPPED: it needs root to mount a private tmpfs. ***\n`);
  }
  return mountable;
}
