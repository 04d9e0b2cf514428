// Installs a synced armory into the agent providers present on this host (their config root exists):
// skills fan out to every present provider's `skills/`, `plugins/<provider>/…` passes through verbatim under
// that provider's root, and dotfiles become symlinks into the ship's cache at their mapped destinations,
// confined to the ship user's home. It never clobbers: a destination holding something the ship did not
// write (or wrote and someone has since changed: checked against the recorded sha256, mode or link target)
// is a conflict and left alone; files the armory no longer carries are removed only when the ship can prove
// it wrote them, and emptied directories are pruned up to, never above, the provider root or home.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import type { ArmoryInstall, ArmoryManifest } from '../../protocol/index.js';
import { replaceAtomicSync } from '../../server/atomic-file.js';

export interface ManagedEntry {
  kind: 'file' | 'symlink';
  sha256?: string;
  mode?: number;
  target?: string;
  /** The directory pruning stops at. */
  root: string;
}
export type ManagedRecord = Record<string, ManagedEntry>;

interface Desired extends ManagedEntry {
  section: 'skills' | 'plugins' | 'dotfiles';
  /** The cached file (copied for skills and plugins, linked to for dotfiles). */
  source: string;
}

const PROVIDERS: ReadonlyArray<{ name: string; skillRoots: string[]; pluginRoot: string }> = [
  { name: 'claude-code', skillRoots: ['.claude'], pluginRoot: '.claude' },
  { name: 'opencode', skillRoots: ['.config/opencode'], pluginRoot: '.config/opencode' },
  { name: 'copilot', skillRoots: ['.copilot'], pluginRoot: '.copilot' },
  { name: 'codex', skillRoots: ['.codex', '.agents'], pluginRoot: '.codex' },
];

const sha256Of = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const isDirectory = (path: string) => lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
const inside = (parent: string, child: string) =>
  child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);

/** What is at `path` now, compared with what the ship recorded or wants there. */
function matches(path: string, expected: ManagedEntry): boolean {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (!stats) return false;
  if (expected.kind === 'symlink') return stats.isSymbolicLink() && readlinkSync(path) === expected.target;
  return stats.isFile() && (stats.mode & 0o777) === expected.mode && sha256Of(path) === expected.sha256;
}

export interface InstallInput {
  manifest: ArmoryManifest;
  cacheDirectory: string;
  home: string;
  record: ManagedRecord;
  now?: () => Date;
}

export function installArmory(input: InstallInput): { install: ArmoryInstall; record: ManagedRecord } {
  const home = realpathSync(input.home);
  const warnings: string[] = [];
  const conflicts: string[] = [];
  const desired = new Map<string, Desired>();
  const cached = (sha256: string) => join(input.cacheDirectory, sha256);

  const skillRoots = PROVIDERS.flatMap((p) => p.skillRoots)
    .map((root) => join(home, root))
    .filter(isDirectory);
  for (const entry of input.manifest.entries) {
    if (entry.section === 'skills') {
      const rest = entry.path.slice('skills/'.length);
      for (const root of skillRoots)
        desired.set(join(root, 'skills', rest), {
          kind: 'file',
          sha256: entry.sha256,
          mode: entry.mode,
          root,
          section: 'skills',
          source: cached(entry.sha256),
        });
    } else if (entry.section === 'plugins') {
      const [provider, ...rest] = entry.path.slice('plugins/'.length).split('/');
      const known = PROVIDERS.find((p) => p.name === provider);
      if (!known || rest.length === 0) {
        const note = `unknown provider directory plugins/${provider}: ${entry.path} not installed`;
        if (!warnings.includes(note)) warnings.push(note);
        continue;
      }
      const root = join(home, known.pluginRoot);
      if (!isDirectory(root)) continue; // that provider is not on this host
      desired.set(join(root, ...rest), {
        kind: 'file',
        sha256: entry.sha256,
        mode: entry.mode,
        root,
        section: 'plugins',
        source: cached(entry.sha256),
      });
    }
  }
  const bySource = new Map(
    input.manifest.entries.filter((e) => e.section === 'dotfiles').map((e) => [e.path.slice('dotfiles/'.length), e]),
  );
  for (const [source, destination] of Object.entries(input.manifest.dotfileMap)) {
    const entry = bySource.get(source);
    if (!entry) {
      // A well-formed mapping whose file the armory lacks (deleted, or skipped as a symlink by the bridge).
      warnings.push(`dotfile ${source} → ${destination} skipped: dotfiles/${source} is not in the armory`);
      continue;
    }
    const target = normalize(destination.startsWith('~/') ? join(home, destination.slice(2)) : destination);
    if (!isAbsolute(target) || !inside(home, target) || target === home) {
      warnings.push(`dotfile ${source} → ${destination} skipped: outside the home directory`);
      continue;
    }
    desired.set(target, {
      kind: 'symlink',
      target: cached(entry.sha256),
      root: home,
      section: 'dotfiles',
      source: cached(entry.sha256),
    });
  }

  const record: ManagedRecord = {};
  const counts = { skills: 0, plugins: 0, dotfiles: 0 };
  for (const [path, want] of desired) {
    const managed = input.record[path];
    const present = lstatSync(path, { throwIfNoEntry: false });
    const ours = present && managed && matches(path, managed);
    const alreadyRight = present && matches(path, want);
    if (present && !ours && !alreadyRight) {
      conflicts.push(path);
      continue;
    }
    // Refuse to write (or create a directory) through a symlinked directory that leads out of the root:
    // the nearest existing ancestor must resolve inside it.
    const parent = dirname(path);
    if (!inside(realpathSync(want.root), realpathSync(existingAncestor(parent)))) {
      conflicts.push(path);
      continue;
    }
    mkdirSync(parent, { recursive: true });
    if (!alreadyRight) place(path, want);
    record[path] = { kind: want.kind, sha256: want.sha256, mode: want.mode, target: want.target, root: want.root };
    counts[want.section]++;
  }

  let removedCount = 0;
  for (const [path, managed] of Object.entries(input.record)) {
    if (desired.has(path) && (record[path] || conflicts.includes(path))) continue;
    if (!lstatSync(path, { throwIfNoEntry: false })) continue;
    if (!matches(path, managed)) {
      warnings.push(`kept ${path}: changed since the ship installed it`);
      continue;
    }
    unlinkSync(path);
    removedCount++;
    prune(dirname(path), managed.root);
  }
  return {
    install: {
      skillCount: counts.skills,
      pluginCount: counts.plugins,
      dotfileCount: counts.dotfiles,
      removedCount,
      conflicts,
      warnings,
      installedAt: (input.now?.() ?? new Date()).toISOString(),
    },
    record,
  };
}

function existingAncestor(path: string): string {
  let current = path;
  while (!lstatSync(current, { throwIfNoEntry: false })) current = dirname(current);
  return current;
}

/** Writes a copy or a symlink at `path` atomically (a temp name in the same directory, then rename). */
function place(path: string, want: Desired): void {
  replaceAtomicSync(path, (temporary) => {
    if (want.kind === 'symlink') symlinkSync(want.target!, temporary);
    else {
      copyFileSync(want.source, temporary);
      chmodSync(temporary, want.mode!);
    }
  });
}

/** Removes empty directories from `directory` upwards, stopping at (and never removing) `root`. */
function prune(directory: string, root: string): void {
  let current = directory;
  while (inside(root, current) && current !== root && existsSync(current) && readdirSync(current).length === 0) {
    rmdirSync(current);
    current = dirname(current);
  }
}
