// Merging svc's entry into a harness's own configuration file without disturbing anything else in it.
// JSON(C): jsonc-parser edits the text at a path, so other entries, comments and formatting stay. TOML:
// smol-toml parses but drops comments when it writes, so the file is never re-serialised; only the text of
// the `[mcp_servers.svc-agent]` table (with its sub-tables) is replaced, or the table is appended, and the
// result must parse to the old document with just that table changed, else nothing is written (DECISIONS.md).
// A value already equal to the wanted one is left alone, so a second `--write` changes nothing.
import { isDeepStrictEqual } from 'node:util';
import { applyEdits, modify, parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import type { JsonEntry } from './harnesses.js';
import { messageOf } from '../../protocol/thrown.js';

const FORMATTING = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };

function parseJsoncStrict(text: string, file: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length > 0)
    throw new Error(
      `${file} is not valid JSON: ${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}; fix it or merge the printed entry by hand`,
    );
  if (text.trim() !== '' && (typeof value !== 'object' || value === null || Array.isArray(value)))
    throw new Error(`${file} does not hold a JSON object`);
  return value ?? {};
}

function at(document: unknown, path: string[]): unknown {
  let node = document;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The JSON(C) text with `entries` set; the same text when each already holds its value. */
export function mergeJsonc(text: string, entries: JsonEntry[], file: string): string {
  let result = text.trim() === '' ? '{}\n' : text;
  for (const entry of entries) {
    const current = at(parseJsoncStrict(result, file), entry.path);
    let wanted = entry.value;
    if (entry.union) {
      const existing = Array.isArray(current) ? current : [];
      const missing = (entry.value as unknown[]).filter((item) => !existing.includes(item));
      if (missing.length === 0 && Array.isArray(current)) continue;
      wanted = [...existing, ...missing];
    }
    if (isDeepStrictEqual(current, wanted)) continue;
    result = applyEdits(result, modify(result, entry.path, wanted, FORMATTING));
  }
  return result;
}

/** The JSON a fresh file with `entries` would hold, for printing. */
export function jsonFragment(entries: JsonEntry[]): string {
  return mergeJsonc('{}\n', entries, '(printed entry)');
}

/** The TOML text of `table` (a dotted path) holding `value`, as a standalone fragment. */
export function tomlFragment(table: string[], value: Record<string, unknown>): string {
  let document: Record<string, unknown> = value;
  for (const key of [...table].reverse()) document = { [key]: document };
  return `${stringifyToml(document).trim()}\n`;
}

/** A table header line `[a.b]` or `[[a.b]]` (comment allowed after), with its dotted key split into parts. */
function headerKeys(line: string): string[] | null {
  const match = /^\s*\[\[?\s*(.+?)\s*\]\]?\s*(#.*)?$/.exec(line);
  if (!match) return null;
  const keys: string[] = [];
  const pattern = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(\.|$)/gy;
  for (const part of match[1]!.matchAll(pattern)) {
    keys.push(part[1] !== undefined ? (JSON.parse(`"${part[1]}"`) as string) : (part[2] ?? part[3]!));
    if (part[4] === '') return keys;
  }
  return null;
}

const startsWith = (keys: string[], prefix: string[]) => prefix.every((key, index) => keys[index] === key);

/** `document` with `table` (a dotted path) set to `value`, creating the tables on the way. */
function withTable(document: Record<string, unknown>, table: string[], value: unknown): Record<string, unknown> {
  const copy = normalise(document) as Record<string, unknown>;
  let node = copy;
  for (const key of table.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[table.at(-1)!] = normalise(value);
  return copy;
}

/** The TOML text with `table` set to `value`; the same text when it already holds it. */
export function mergeToml(text: string, table: string[], value: Record<string, unknown>, file: string): string {
  let before: Record<string, unknown>;
  try {
    before = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new Error(
      `${file} is not valid TOML (${messageOf(error).split('\n')[0]}); fix it or merge the printed table by hand`,
    );
  }
  if (isDeepStrictEqual(normalise(at(before, table)), normalise(value))) return text;
  const fragment = tomlFragment(table, value);
  const lines = text.split('\n');
  // The span: from our table's header (or a sub-table's) to the next header of any other table.
  let first = -1;
  let end = lines.length;
  for (let index = 0; index < lines.length; index++) {
    const keys = headerKeys(lines[index]!);
    if (!keys) continue;
    if (startsWith(keys, table)) {
      if (first === -1) first = index;
    } else if (first !== -1) {
      end = index;
      break;
    }
  }
  let merged: string;
  if (first === -1) {
    const base = text === '' || text.endsWith('\n') ? text : `${text}\n`;
    merged = `${base}${base.trim() === '' ? '' : '\n'}${fragment}`;
  } else {
    // Blank lines and comments just above the next table belong to it, not to ours.
    while (end > first + 1 && /^\s*(#.*)?$/.test(lines[end - 1]!)) end--;
    merged = [...lines.slice(0, first), fragment.trimEnd(), ...lines.slice(end)].join('\n');
  }
  let after: Record<string, unknown>;
  try {
    after = parseToml(merged) as Record<string, unknown>;
  } catch {
    after = {};
  }
  // Valid only when the text now parses to the old document with exactly this table set to `value`.
  const valid = isDeepStrictEqual(normalise(after), withTable(before, table, value));
  if (!valid)
    throw new Error(
      `cannot merge [${table.join('.')}] into ${file} without rewriting other parts (is it written inline or with dotted keys?); merge the printed table by hand`,
    );
  return merged;
}

/** Plain data for comparison (smol-toml's dates and prototype-less objects compare by value). */
function normalise(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
