// The fleet volume's fill level for the ship's readiness (`--max-disk-fill`, issue #30): the share of the
// volume an unprivileged writer can no longer use, `1 - bavail / blocks` from statfs(2). The same signal the
// kubelet evicts on (`nodefs.available`), so a threshold below the kubelet's (10% available by default)
// turns the ship unready before the node starts evicting other pods. statfs is injected for the unit test;
// the ship passes node's own.
import { statfs as nodeStatfs } from 'node:fs/promises';

export interface VolumeStats {
  blocks: number;
  bavail: number;
}

export type Statfs = (path: string) => Promise<VolumeStats>;

/** Fraction of the volume not available to the ship (0 empty, 1 full); a volume of no blocks counts as full. */
export function volumeFill(stats: VolumeStats): number {
  if (!(stats.blocks > 0)) return 1;
  return Math.min(1, Math.max(0, 1 - stats.bavail / stats.blocks));
}

/** Rejects when the volume holding `path` is fuller than `maxFill` (a fraction in (0, 1]). */
export async function assertVolumeBelow(path: string, maxFill: number, statfs: Statfs = nodeStatfs): Promise<void> {
  const fill = volumeFill(await statfs(path));
  // Whole percents only: the answer goes to callers without a credential.
  if (fill > maxFill)
    throw new Error(
      `the fleet volume is ${Math.floor(fill * 100)}% full, over the ship's limit of ${Math.round(maxFill * 100)}% (--max-disk-fill)`,
    );
}
