import { describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { Identifier, identifierProblem } from './identifier.js';

describe('identifier rules', () => {
  it.each([
    ['', 'minimum length'],
    ['a'.repeat(129), 'must be at most 128 UTF-8 bytes'],
    ['é'.repeat(65), 'must be at most 128 UTF-8 bytes'],
    ['€'.repeat(43), 'must be at most 128 UTF-8 bytes'],
    ['.', 'must not be . or ..'],
    ['..', 'must not be . or ..'],
    ['a/b', 'must not contain path separators'],
    ['a\\b', 'must not contain path separators'],
    ['a\u0000b', 'must not contain Unicode control characters'],
    ['a\u001fb', 'must not contain Unicode control characters'],
    ['a\u007fb', 'must not contain Unicode control characters'],
    ['a\u0085b', 'must not contain Unicode control characters'],
    ['a\nb', 'must not contain Unicode control characters'],
    ['a\ud800b', 'must be well-formed Unicode'],
    ['\udc00', 'must be well-formed Unicode'],
  ])('%j is refused with %j', (value, message) => {
    expect(identifierProblem(value)).toBe(message);
  });

  it.each([
    'a'.repeat(128),
    'é'.repeat(64),
    `${'€'.repeat(42)}ab`,
    'my repo',
    '...',
    '.hidden',
    'a.b',
    'a:b',
    'Ünïcödé',
    '#(touch x)',
    '😀',
    'a\u202eb',
    '-rf',
  ])('%j is a valid identifier', (value) => {
    expect(identifierProblem(value)).toBeNull();
  });

  it('counts UTF-8 bytes as an encoder would, for every kind of character', () => {
    for (const value of ['a', 'é', '€', '😀', 'a\ud800', '\udc00x', '漢字😀é']) {
      const padded = value.repeat(Math.floor(128 / new TextEncoder().encode(value).length));
      const bytes = new TextEncoder().encode(padded).length;
      expect(identifierProblem(padded) === 'must be at most 128 UTF-8 bytes', value).toBe(bytes > 128);
      expect(identifierProblem(`${padded}é`) === 'must be at most 128 UTF-8 bytes', value).toBe(bytes + 2 > 128);
    }
  });

  it('counts bytes, not characters: 128 bytes of 2-byte characters pass, one more byte fails', () => {
    expect(identifierProblem('é'.repeat(64))).toBeNull();
    expect(identifierProblem(`${'é'.repeat(64)}a`)).toBe('must be at most 128 UTF-8 bytes');
  });

  it('the schema reports the rule message as its error', () => {
    const check = Compile(Identifier);
    expect(check.Check('fine name')).toBe(true);
    expect(check.Errors('a/b').map((e) => e.message)).toEqual(['must not contain path separators']);
    expect(check.Check(5)).toBe(false);
  });
});
