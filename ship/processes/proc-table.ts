// The process table as Linux shows it in /proc: the PIDs there, and one file of one process. Where there is
// no /proc (macOS) the table reads as empty, and callers fall back or do without.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export const HAS_PROC = existsSync('/proc/self/stat');

/** Every PID in /proc but this process's own. */
export function procPids(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => pid !== process.pid);
}

/** `/proc/<pid>/<file>`, or null when the process is gone meanwhile or not ours to read. */
export function readProc(pid: number, file: 'cmdline' | 'stat'): string | null {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}
