// How the GUI shows untrusted strings (docs/security.md H14, H21): invisible characters as visible marks, and
// links only for http(s) URLs.
import { describe, expect, it } from 'vitest';
import { safeHref } from '../../web/src/lib/safe-url.js';
import { hasInvisible, visibleSegments, visibleText } from '../../web/src/lib/visible-text.js';

describe('visible text', () => {
  it('marks bidi overrides, zero-width characters and controls, and leaves other text alone', () => {
    expect(visibleText('abc\u202Egpj.exe')).toBe('abc<U+202E>gpj.exe');
    expect(visibleText('a\u200Bb\u200Dc\uFEFF')).toBe('a<U+200B>b<U+200D>c<U+FEFF>');
    expect(visibleText('bell\u0007 del\u007f')).toBe('bell<U+0007> del<U+007F>');
    expect(visibleText('café 漢字 <img src=x> 😀')).toBe('café 漢字 <img src=x> 😀');
    expect(hasInvisible('plain')).toBe(false);
    expect(hasInvisible('x\u2066y')).toBe(true);
  });

  it('cuts text into plain runs and marks that join back to the visible text', () => {
    const text = '\u202Eab\u200Bcd\u202C';
    const segments = visibleSegments(text);
    expect(segments).toEqual([
      { text: '<U+202E>', invisible: true },
      { text: 'ab', invisible: false },
      { text: '<U+200B>', invisible: true },
      { text: 'cd', invisible: false },
      { text: '<U+202C>', invisible: true },
    ]);
    expect(segments.map((s) => s.text).join('')).toBe(visibleText(text));
    expect(visibleSegments('')).toEqual([]);
  });

  it('multi-line text keeps line breaks and tabs and still marks every other invisible character', () => {
    expect(visibleSegments('a\n\tb\r\u202E', true)).toEqual([
      { text: 'a\n\tb', invisible: false },
      { text: '<U+000D>', invisible: true },
      { text: '<U+202E>', invisible: true },
    ]);
    expect(visibleSegments('a\nb')).toEqual([
      { text: 'a', invisible: false },
      { text: '<U+000A>', invisible: true },
      { text: 'b', invisible: false },
    ]);
  });
});

describe('safe links', () => {
  it('keeps http and https URLs', () => {
    expect(safeHref('https://github.com/o/r/pull/3')).toBe('https://github.com/o/r/pull/3');
    expect(safeHref('http://example.com/x?y=1#z')).toBe('http://example.com/x?y=1#z');
  });

  it('refuses every other scheme, relative and unparseable URLs', () => {
    for (const url of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>',
      'vbscript:x',
      'file:///etc/passwd',
      '//evil.example/x',
      '/ui/ships',
      'not a url',
      '',
      null,
      undefined,
    ]) {
      expect(safeHref(url), String(url)).toBeNull();
    }
  });
});
