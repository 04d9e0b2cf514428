// Suite-wide guard that tests leave nothing behind: after the run, no tmux server on a ship socket created
// during the run may still answer, and no `svc-test-*` temp directory may remain. Leftovers are cleaned up
// and fail the run, naming what leaked. Each run keeps everything in a directory of its own (TMPDIR,
// TMUX_TMPDIR and HOME point into it), so two runs on one machine never take each other's files, tmux
// servers or session shells for leaks.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function shipSockets(runDirectory: string): string[] {
  try {
    return readdirSync(join(runDirectory, `tmux-${process.getuid?.() ?? 0}`)).filter((name) => name.startsWith('svc-'));
  } catch {
    return [];
  }
}

function tempRoots(runDirectory: string): string[] {
  return readdirSync(runDirectory).filter((name) => name.startsWith('svc-test-'));
}

/** Whether a process belongs to this run: it was started with the run's TMUX_TMPDIR in its environment. */
function ofThisRun(pid: string, runDirectory: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`TMUX_TMPDIR=${runDirectory}`);
  } catch {
    return false;
  }
}

/**
 * Tests start `svc` the way users do, through `npx svc` (helpers/npx.ts). npm keeps its cache under HOME,
 * which the tests replace: point it at the real one, and let the first `npx` (which links the checkout into
 * npm's exec cache, running `prepare` once per cache) happen here rather than inside a timed test.
 */
function primeNpx(realHome: string | undefined): void {
  if (!process.env.npm_config_cache && realHome) process.env.npm_config_cache = join(realHome, '.npm');
  execFileSync('npx', ['--no-install', 'svc', '--version'], {
    cwd: join(import.meta.dirname, '..'),
    stdio: 'ignore',
    timeout: 120_000,
  });
}

export default function setup() {
  const saved = {
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    npm_command: process.env.npm_command,
  };
  const runDirectory = mkdtempSync(join(tmpdir(), 'svc-run-'));
  // Every test process (and every `svc` it spawns) gets an empty HOME: ships keep armory state under
  // ~/.config/svc and install into provider roots such as ~/.claude, which must never be the real ones.
  const home = join(runDirectory, 'home');
  mkdirSync(home, { mode: 0o700 });
  process.env.HOME = home;
  process.env.TMPDIR = runDirectory;
  process.env.TMUX_TMPDIR = runDirectory;
  // `svc` names itself in hints as the user ran it (cli/invocation.ts): `npx svc` under npm exec. The suite
  // may itself run under `npx vitest`; the CLI it starts directly stands for an installed `svc`.
  delete process.env.npm_command;
  primeNpx(saved.HOME);
  return () => {
    const leaks: string[] = [];
    for (const socket of shipSockets(runDirectory)) {
      try {
        execFileSync('tmux', ['-L', socket, 'list-sessions'], { stdio: 'ignore' });
        leaks.push(`tmux server ${socket}`);
        execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
      } catch {
        // No server behind the socket: nothing leaked.
      }
    }
    for (const root of tempRoots(runDirectory)) leaks.push(`temp directory ${join(runDirectory, root)}`);
    // Shells of test sessions and terminal pipes must be gone with their tmux servers.
    for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
        const ours = cmdline === 'bash --noprofile --norc' || cmdline.includes('svc-pipes-');
        if (ours && state !== 'Z' && ofThisRun(pid, runDirectory)) {
          leaks.push(`session process ${pid} (${cmdline})`);
          process.kill(Number(pid), 'SIGKILL');
        }
      } catch {
        // gone meanwhile
      }
    }
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(runDirectory, { recursive: true, force: true });
    if (leaks.length > 0) throw new Error(`tests left these behind: ${leaks.join(', ')}`);
  };
}
