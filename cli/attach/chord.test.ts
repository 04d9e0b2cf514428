import { describe, expect, it } from 'vitest';
import { splitAtDetach } from './chord.js';

describe('detach chord', () => {
  it('splits input at the detach chord', () => {
    expect(splitAtDetach(Buffer.from('ab\x1dcd'))).toEqual({ before: Buffer.from('ab'), detach: true });
    expect(splitAtDetach(Buffer.from('abc'))).toEqual({ before: Buffer.from('abc'), detach: false });
  });
});
