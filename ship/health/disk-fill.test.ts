import { describe, expect, it } from 'vitest';
import { assertVolumeBelow, volumeFill } from './disk-fill.js';

describe('the fleet volume fill level', () => {
  it.each([
    { stats: { blocks: 1000, bavail: 1000 }, fill: 0 },
    { stats: { blocks: 1000, bavail: 100 }, fill: 0.9 },
    // Root-reserved blocks count as used: the ship cannot write them, the kubelet does not count them available.
    { stats: { blocks: 1000, bavail: 0 }, fill: 1 },
    { stats: { blocks: 0, bavail: 0 }, fill: 1 },
  ])('$stats is $fill full', ({ stats, fill }) => {
    expect(volumeFill(stats)).toBeCloseTo(fill, 10);
  });

  it('passes at the limit and fails above it, naming the fill and the limit in whole percents', async () => {
    const at = (bavail: number) => async () => ({ blocks: 1000, bavail });
    await expect(assertVolumeBelow('/fleet', 0.9, at(100))).resolves.toBeUndefined();
    await expect(assertVolumeBelow('/fleet', 0.9, at(99))).rejects.toThrow(
      "the fleet volume is 90% full, over the ship's limit of 90% (--max-disk-fill)",
    );
    await expect(assertVolumeBelow('/fleet', 0.9, at(0))).rejects.toThrow(/is 100% full/);
  });
});
