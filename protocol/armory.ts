// The armory on the wire (spec "Armory resources", POST /armory/sync, GET /armory/file, GET /armory/ships):
// the bridge's manifest and files, the ship's sync state, and the path rule both sides apply (the ship
// re-checks every path a manifest names: a hostile bridge must not write outside the ship's cache).
import { Type, type Static } from 'typebox';
import { ShipStatus } from './bridge.js';

export const ARMORY_FILE_LIMIT = 10_485_760;
export const ARMORY_SECTIONS = ['skills', 'plugins', 'dotfiles'] as const;
export const DOTFILE_MAP = 'dotfile-map.json';

export const ArmorySection = Type.Union([Type.Literal('skills'), Type.Literal('plugins'), Type.Literal('dotfiles')]);
export type ArmorySection = Static<typeof ArmorySection>;

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });
const Mode = Type.Union([Type.Literal(0o755), Type.Literal(0o644)]);

export const ArmoryEntry = Type.Object({
  path: Type.String(),
  section: ArmorySection,
  size: Type.Integer({ minimum: 0 }),
  sha256: Sha256,
  mode: Mode,
});
export type ArmoryEntry = Static<typeof ArmoryEntry>;

export const ArmoryManifest = Type.Object({
  revision: Sha256,
  entries: Type.Array(ArmoryEntry),
  dotfileMap: Type.Record(Type.String(), Type.String()),
});
export type ArmoryManifest = Static<typeof ArmoryManifest>;

export const ArmoryFile = Type.Object({
  ...ArmoryEntry.properties,
  encoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')]),
  contents: Type.String(),
});
export type ArmoryFile = Static<typeof ArmoryFile>;

export const ArmoryFileQuery = Type.Object({ path: Type.String() });
export type ArmoryFileQuery = Static<typeof ArmoryFileQuery>;

export const ArmoryInstall = Type.Object({
  skillCount: Type.Integer(),
  pluginCount: Type.Integer(),
  dotfileCount: Type.Integer(),
  removedCount: Type.Integer(),
  conflicts: Type.Array(Type.String()),
  warnings: Type.Array(Type.String()),
  installedAt: Type.Union([Type.String(), Type.Null()]),
});
export type ArmoryInstall = Static<typeof ArmoryInstall>;

export const ArmorySyncState = Type.Object({
  revision: Type.Union([Type.String(), Type.Null()]),
  bridgeUrl: Type.Union([Type.String(), Type.Null()]),
  syncedAt: Type.Union([Type.String(), Type.Null()]),
  fileCount: Type.Integer(),
  install: Type.Union([ArmoryInstall, Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
});
export type ArmorySyncState = Static<typeof ArmorySyncState>;

export const NEVER_SYNCED: ArmorySyncState = {
  revision: null,
  bridgeUrl: null,
  syncedAt: null,
  fileCount: 0,
  install: null,
  lastError: null,
};

export const ArmorySyncRequest = Type.Object({ bridgeUrl: Type.String(), revision: Type.String() });
export type ArmorySyncRequest = Static<typeof ArmorySyncRequest>;

export const ShipArmoryState = Type.Object({
  ship: Type.String(),
  status: ShipStatus,
  state: Type.Union([ArmorySyncState, Type.Null()]),
});
export type ShipArmoryState = Static<typeof ShipArmoryState>;

// biome-ignore lint/suspicious/noControlCharactersInRegex: a path with C0 or DEL is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Why an armory-relative path is unsafe, or null: it must be POSIX, relative, of non-empty segments, with
 * no `.`/`..` segment, no backslash and no control character (NUL and newline included).
 */
export function armoryPathProblem(path: string): string | null {
  if (path === '') return 'empty path';
  if (path.startsWith('/')) return 'absolute path';
  if (path.includes('\\')) return 'backslash in path';
  if (CONTROL.test(path)) return 'control character in path';
  const segments = path.split('/');
  if (segments.some((segment) => segment === '..')) return '".." in path';
  if (segments.some((segment) => segment === '.' || segment === '')) return 'empty or "." segment in path';
  return null;
}

/** The section an armory path belongs to, or null when it is in none. */
export function armorySectionOf(path: string): ArmorySection | null {
  const first = path.split('/')[0];
  return (ARMORY_SECTIONS as readonly string[]).includes(first ?? '') ? (first as ArmorySection) : null;
}
