import { describe, expect, it } from 'vitest';
import type { WorkspaceDiff } from '../../protocol/index.js';
import { DiffNumbersReadings } from './diff-numbers-readings.js';

function harness() {
  const reads: Array<{ dir: string; resolve: (diff: WorkspaceDiff) => void; reject: (error: Error) => void }> = [];
  const readings = new DiffNumbersReadings(
    (dir) => new Promise<WorkspaceDiff>((resolve, reject) => reads.push({ dir, resolve, reject })),
  );
  return { reads, readings };
}
const diff = (added: number): WorkspaceDiff => ({ added, removed: 0, commits: 0 });
/** Lets the readings' settle callbacks run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('DiffNumbersReadings', () => {
  it('never hands a call a reading that started before the call arrived', async () => {
    const { reads, readings } = harness();
    const first = readings.get('/w');
    expect(reads).toHaveLength(1);
    // Arrives while the first reading runs: that reading may predate the change this caller just made.
    const second = readings.get('/w');
    expect(reads).toHaveLength(1);
    reads[0]!.resolve(diff(1));
    expect(await first).toEqual(diff(1));
    await turn();
    expect(reads).toHaveLength(2);
    reads[1]!.resolve(diff(2));
    expect(await second).toEqual(diff(2));
  });

  it('shares the queued reading among every call that arrived during the running one', async () => {
    const { reads, readings } = harness();
    void readings.get('/w');
    const waiting = [readings.get('/w'), readings.get('/w'), readings.get('/w')];
    reads[0]!.resolve(diff(1));
    await turn();
    expect(reads).toHaveLength(2);
    // Arrives after the queued reading started: it must not join it either.
    const late = readings.get('/w');
    reads[1]!.resolve(diff(2));
    expect(await Promise.all(waiting)).toEqual([diff(2), diff(2), diff(2)]);
    await turn();
    expect(reads).toHaveLength(3);
    reads[2]!.resolve(diff(3));
    expect(await late).toEqual(diff(3));
  });

  it('remembers nothing: a call after a reading finished starts a new one', async () => {
    const { reads, readings } = harness();
    const first = readings.get('/w');
    reads[0]!.resolve(diff(1));
    expect(await first).toEqual(diff(1));
    await turn();
    const second = readings.get('/w');
    expect(reads).toHaveLength(2);
    reads[1]!.resolve(diff(2));
    expect(await second).toEqual(diff(2));
  });

  it('keeps workspaces apart; a failed reading fails only its own callers and the queued one still runs', async () => {
    const { reads, readings } = harness();
    const a = readings.get('/a');
    const b = readings.get('/b');
    expect(reads.map((read) => read.dir)).toEqual(['/a', '/b']);
    const bAgain = readings.get('/b');
    reads[0]!.resolve(diff(1));
    reads[1]!.reject(new Error('git failed'));
    expect(await a).toEqual(diff(1));
    await expect(b).rejects.toThrow('git failed');
    await turn();
    expect(reads.map((read) => read.dir)).toEqual(['/a', '/b', '/b']);
    reads[2]!.resolve(diff(5));
    expect(await bAgain).toEqual(diff(5));
  });

  it('turns a read that throws into a rejected call and stays usable', async () => {
    let calls = 0;
    const readings = new DiffNumbersReadings(async (dir) => {
      if (calls++ === 0) throw new Error(`cannot read ${dir}`);
      return diff(7);
    });
    await expect(readings.get('/w')).rejects.toThrow('cannot read /w');
    await turn();
    expect(await readings.get('/w')).toEqual(diff(7));
  });
});
