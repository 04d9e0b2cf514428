// Suite-wide guard that tests leave nothing behind: after the run, no tmux server on a ship socket created
// during the run may still answer, and no `svc-test-*` temp directory may remain. Leftovers are cleaned up
// and fail the run, naming what leaked.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const socketDir = join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`);

function shipSockets(): string[] {
  try {
    return readdirSync(socketDir).filter((name) => name.startsWith('svc-'));
  } catch {
    return [];
  }
}

function tempRoots(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith('svc-test-'));
}

/**
 * Tests start `svc` the way users do, through `npx svc` (helpers/npx.ts). npm keeps its cache under HOME,
 * which the tests replace: point it at the real one, and let the first `npx` (which links the checkout into
 * npm's exec cache, running `prepare` once per cache) happen here rather than inside a timed test.
 */
function primeNpx(realHome: string | undefined): void {
  if (!process.env.npm_config_cache && realHome) process.env.npm_config_cache = join(realHome, '.npm');
  execFileSync('npx', ['--no-install', 'svc', '--version'], { cwd: join(import.meta.dirname, '..'), stdio: 'ignore', timeout: 120_000 });
}

export default function setup() {
  const started = Date.now();
  // Every test process (and every `svc` it spawns) gets an empty HOME: ships keep armory state under
  // ~/.config/svc and install into provider roots such as ~/.claude, which must never be the real ones.
  const realHome = process.env.HOME;
  const home = mkdtempSync(join(tmpdir(), 'svc-home-'));
  process.env.HOME = home;
  primeNpx(realHome);
  const socketsBefore = new Set(shipSockets());
  const rootsBefore = new Set(tempRoots());
  return () => {
    rmSync(home, { recursive: true, force: true });
    process.env.HOME = realHome;
    const leaks: string[] = [];
    for (const socket of shipSockets()) {
      if (socketsBefore.has(socket)) continue;
      try {
        execFileSync('tmux', ['-L', socket, 'list-sessions'], { stdio: 'ignore' });
        leaks.push(`tmux server ${socket}`);
        execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
      } catch {
        // No server behind the socket: nothing leaked.
      }
    }
    for (const root of tempRoots()) {
      if (rootsBefore.has(root)) continue;
      const path = join(tmpdir(), root);
      if (statSync(path).mtimeMs < started) continue;
      leaks.push(`temp directory ${path}`);
      rmSync(path, { recursive: true, force: true });
    }
    // Shells of test sessions and terminal pipes must be gone with their tmux servers.
    for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
        const ours = cmdline === 'bash --noprofile --norc' || cmdline.includes('svc-pipes-');
        if (ours && state !== 'Z' && statSync(`/proc/${pid}`).mtimeMs >= started) {
          leaks.push(`session process ${pid} (${cmdline})`);
          process.kill(Number(pid), 'SIGKILL');
        }
      } catch {
        // gone meanwhile
      }
    }
    if (leaks.length > 0) throw new Error(`tests left these behind: ${leaks.join(', ')}`);
  };
}
