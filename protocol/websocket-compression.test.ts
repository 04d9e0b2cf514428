// The one size rule every WebSocket send site applies (issue #18).
import { describe, expect, it } from 'vitest';
import { compressionFor, WEBSOCKET_COMPRESS_MIN_LENGTH } from './websocket-compression.js';

describe('compressionFor', () => {
  it('leaves frames under the bar uncompressed and compresses from the bar up', () => {
    expect(compressionFor('')).toEqual({ compress: false });
    expect(compressionFor('{"type":"ack","seq":1}')).toEqual({ compress: false });
    expect(compressionFor('x'.repeat(WEBSOCKET_COMPRESS_MIN_LENGTH - 1))).toEqual({ compress: false });
    expect(compressionFor('x'.repeat(WEBSOCKET_COMPRESS_MIN_LENGTH))).toEqual({ compress: true });
    expect(compressionFor('x'.repeat(200_000))).toEqual({ compress: true });
  });

  it('hands out shared, frozen options (no object per send)', () => {
    expect(compressionFor('a')).toBe(compressionFor('b'));
    expect(Object.isFrozen(compressionFor('a'))).toBe(true);
  });
});
