// The New Ship form's Generate (web/src/lib/token.ts): 32 CSPRNG bytes in base64url, 43 characters.
import { describe, expect, it } from 'vitest';
import { base64url, generateToken, TOKEN_PATTERN } from '../../web/src/lib/token.js';

describe('token generation', () => {
  it('encodes 32 bytes as 43 base64url characters without padding', () => {
    const bytes = new Uint8Array(32).map((_, i) => (i * 37 + 251) & 0xff);
    const token = generateToken((target) => {
      target.set(bytes);
      return target;
    });
    expect(token).toHaveLength(43);
    expect(token).toMatch(TOKEN_PATTERN);
    expect(Buffer.from(token, 'base64url')).toEqual(Buffer.from(bytes));
  });

  it('maps the bytes that standard base64 writes as + and / to - and _', () => {
    expect(base64url(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe('-_-_');
    expect(base64url(new Uint8Array([0xff]))).toBe('_w');
  });

  it('asks crypto.getRandomValues for exactly 32 bytes, and differs every time', () => {
    const sizes: number[] = [];
    const token = generateToken((target) => {
      sizes.push(target.length);
      return crypto.getRandomValues(target);
    });
    expect(sizes).toEqual([32]);
    const tokens = new Set(Array.from({ length: 50 }, () => generateToken()));
    expect(tokens.size).toBe(50);
    for (const each of [token, ...tokens]) expect(each).toMatch(TOKEN_PATTERN);
  });
});
