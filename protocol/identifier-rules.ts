// Identifiers: repo, workspace and ship names. Owns the six rules of the spec and their exact messages, as
// plain functions with no schema library, so the CLI can check a name without loading TypeBox (every `svc`
// command would otherwise pay for it at start-up). The TypeBox schema carrying these rules is identifier.ts.

export const IDENTIFIER_MAX_BYTES = 128;

/** UTF-8 length without encoding (a lone surrogate counts 3 bytes, as TextEncoder writes U+FFFD). */
function utf8Length(value: string): number {
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (
      code >= 0xd800 &&
      code <= 0xdbff &&
      i + 1 < value.length &&
      (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    ) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
const PATH_SEPARATOR = /[/\\]/;
const CONTROL_CHARACTER = /\p{Cc}/u;
const LONE_SURROGATE = /\p{Cs}/u;

/** The first rule `value` breaks, as the spec words it, or null for a valid identifier. */
export function identifierProblem(value: string): string | null {
  if (value.length < 1) return 'minimum length';
  if (utf8Length(value) > IDENTIFIER_MAX_BYTES) return 'must be at most 128 UTF-8 bytes';
  if (value === '.' || value === '..') return 'must not be . or ..';
  if (PATH_SEPARATOR.test(value)) return 'must not contain path separators';
  if (CONTROL_CHARACTER.test(value)) return 'must not contain Unicode control characters';
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode';
  return null;
}

export function isIdentifier(value: unknown): value is string {
  return typeof value === 'string' && identifierProblem(value) === null;
}
