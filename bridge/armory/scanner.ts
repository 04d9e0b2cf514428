// Reads the armory directory into a manifest: only `skills/`, `plugins/`, `dotfiles/` and `dotfile-map.json`
// are looked at; symlinks are never followed (a warning names each, docs/security.md H13); modes are
// normalized to 0o755/0o644; entries sorted by path. The revision is the sha256 over every entry's path,
// sha256 and mode and the dotfile map, so it changes exactly when one of those does and two scans of an
// unchanged tree agree. A missing directory is an empty manifest.
import { createHash } from 'node:crypto';
import { createReadStream, lstatSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import {
  ARMORY_SECTIONS,
  DOTFILE_MAP,
  type ArmoryEntry,
  type ArmoryManifest,
  type ArmorySection,
} from '../../protocol/index.js';
import { BridgeError } from '../errors.js';
import { parseDotfileMap } from './dotfile-map.js';

export interface ScannedFile {
  entry: ArmoryEntry;
  absolute: string;
  /** Identity at scan time: a file is served only while it is still the one scanned. */
  dev: number;
  ino: number;
}

export interface ArmoryScan {
  manifest: ArmoryManifest;
  files: Map<string, ScannedFile>;
  warnings: string[];
}

const sha256File = (path: string) =>
  new Promise<string>((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });

const lstatOrNull = (path: string): Stats | null => lstatSync(path, { throwIfNoEntry: false }) ?? null;

export function armoryRevision(entries: ArmoryEntry[], dotfileMap: Record<string, string>): string {
  const hash = createHash('sha256');
  for (const entry of entries) hash.update(`${entry.path}\0${entry.sha256}\0${entry.mode.toString(8)}\n`);
  hash.update('\0map\0');
  for (const source of Object.keys(dotfileMap).sort()) hash.update(`${source}\0${dotfileMap[source]}\n`);
  return hash.digest('hex');
}

export async function scanArmory(root: string): Promise<ArmoryScan> {
  const files = new Map<string, ScannedFile>();
  const warnings: string[] = [];
  const walk = async (absolute: string, relative: string, section: ArmorySection) => {
    const stats = lstatOrNull(absolute);
    if (!stats) return;
    if (stats.isSymbolicLink()) {
      warnings.push(`skipped symlink ${relative}`);
      return;
    }
    if (stats.isDirectory()) {
      for (const name of readdirSync(absolute).sort()) await walk(join(absolute, name), `${relative}/${name}`, section);
      return;
    }
    if (!stats.isFile()) {
      warnings.push(`skipped ${relative}: not a regular file`);
      return;
    }
    const entry: ArmoryEntry = {
      path: relative,
      section,
      size: stats.size,
      sha256: await sha256File(absolute),
      mode: stats.mode & 0o111 ? 0o755 : 0o644,
    };
    files.set(relative, { entry, absolute, dev: stats.dev, ino: stats.ino });
  };
  const rootStats = lstatOrNull(root);
  if (rootStats?.isDirectory()) {
    for (const section of ARMORY_SECTIONS) {
      const path = join(root, section);
      const stats = lstatOrNull(path);
      if (stats?.isSymbolicLink()) warnings.push(`skipped symlink ${section}`);
      else if (stats?.isDirectory()) await walk(path, section, section);
    }
  }
  const entries = [...files.values()]
    .map((file) => file.entry)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let dotfileMap: Record<string, string> = {};
  const mapPath = join(root, DOTFILE_MAP);
  const mapStats = lstatOrNull(mapPath);
  if (mapStats?.isSymbolicLink()) warnings.push(`skipped symlink ${DOTFILE_MAP}`);
  else if (mapStats?.isFile()) {
    const parsed = parseDotfileMap(readFileSync(mapPath, 'utf8'));
    if ('problems' in parsed)
      throw new BridgeError(400, `invalid ${root}/${DOTFILE_MAP}:\n${parsed.problems.map((p) => `  ${p}`).join('\n')}`);
    dotfileMap = parsed.map;
    for (const source of Object.keys(dotfileMap)) {
      if (!files.has(`dotfiles/${source}`))
        warnings.push(
          `${DOTFILE_MAP} maps ${source}, but dotfiles/${source} is missing (ships skip it with a warning)`,
        );
    }
  }
  return { manifest: { revision: armoryRevision(entries, dotfileMap), entries, dotfileMap }, files, warnings };
}
