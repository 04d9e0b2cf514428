import { describe, expect, it } from 'vitest';
import type { WorkspaceDiff } from '../../protocol/index.js';
import { DiffNumbersCache } from './diff-numbers-cache.js';

function harness() {
  const clock = { now: 0 };
  const reads: Array<{ dir: string; resolve: (diff: WorkspaceDiff) => void; reject: (error: Error) => void }> = [];
  const cache = new DiffNumbersCache(
    (dir) => new Promise<WorkspaceDiff>((resolve, reject) => reads.push({ dir, resolve, reject })),
    1000,
    () => clock.now,
  );
  return { clock, reads, cache };
}
const diff = (added: number): WorkspaceDiff => ({ added, removed: 0, commits: 0 });

describe('DiffNumbersCache', () => {
  it('shares one reading among concurrent calls and reuses it for a second after it finished', async () => {
    const { clock, reads, cache } = harness();
    const first = cache.get('/w');
    const second = cache.get('/w');
    expect(reads).toHaveLength(1);
    clock.now = 5000; // in flight: still shared, however long it takes
    reads[0]!.resolve(diff(1));
    expect(await first).toEqual(diff(1));
    expect(await second).toEqual(diff(1));
    clock.now = 5999;
    expect(await cache.get('/w')).toEqual(diff(1));
    expect(reads).toHaveLength(1);
    clock.now = 6000;
    const third = cache.get('/w');
    expect(reads).toHaveLength(2);
    reads[1]!.resolve(diff(2));
    expect(await third).toEqual(diff(2));
  });

  it('keeps workspaces apart, reads again after forget, and never keeps a failed reading', async () => {
    const { reads, cache } = harness();
    const a = cache.get('/a');
    const b = cache.get('/b');
    expect(reads.map((read) => read.dir)).toEqual(['/a', '/b']);
    reads[0]!.resolve(diff(1));
    reads[1]!.reject(new Error('git failed'));
    expect(await a).toEqual(diff(1));
    await expect(b).rejects.toThrow('git failed');
    cache.get('/b');
    expect(reads).toHaveLength(3);
    cache.forget('/a');
    cache.get('/a');
    expect(reads).toHaveLength(4);
  });
});
