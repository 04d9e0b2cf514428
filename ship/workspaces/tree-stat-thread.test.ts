// The stat thread (tree-stat-thread.ts) on real files: its digest moves with any change a stamp must see and
// only then, a missing path counts, and a thread that ends fails what it held while the next call starts a
// new one.
import { chmodSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TreeStatThread } from './tree-stat-thread.js';

let root: string;
let thread: TreeStatThread;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-tree-stat-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => thread.close());

function files(name: string, count: number): string[] {
  const paths = Array.from({ length: count }, (_, i) => join(root, `${name}-${i}.txt`));
  for (const path of paths) writeFileSync(path, `${path}\n`);
  return paths;
}

describe('TreeStatThread', () => {
  it('gives the same digest for untouched files and a new one after a write, a chmod or a touch', async () => {
    thread = new TreeStatThread();
    const paths = files('change', 3);
    const list = { id: 1, paths };
    const first = await thread.stat(list);
    expect(await thread.stat(list)).toEqual(first);

    writeFileSync(paths[1]!, 'same length?\n');
    const written = await thread.stat(list);
    expect(written.digest).not.toBe(first.digest);

    chmodSync(paths[2]!, 0o600);
    const chmodded = await thread.stat(list);
    expect(chmodded.digest).not.toBe(written.digest);

    const past = new Date(Date.now() - 60_000);
    utimesSync(paths[0]!, past, past);
    expect((await thread.stat(list)).digest).not.toBe(chmodded.digest);
  });

  it('reports the newest time and counts a missing path apart from a present one', async () => {
    thread = new TreeStatThread();
    const before = Date.now();
    const [present] = files('newest', 1);
    const missing = join(root, 'never-written');
    const withMissing = await thread.stat({ id: 1, paths: [present!, missing] });
    expect(withMissing.newest).toBeGreaterThanOrEqual(before - 1000);
    expect((await thread.stat({ id: 2, paths: [missing] })).newest).toBe(-Infinity);

    writeFileSync(missing, 'now here\n');
    expect((await thread.stat({ id: 1, paths: [present!, missing] })).digest).not.toBe(withMissing.digest);
  });

  it('sends a list once: later calls name it by id only', async () => {
    thread = new TreeStatThread();
    const paths = files('once', 2);
    const first = await thread.stat({ id: 7, paths });
    // Same id, other paths: the thread still stats the ones it was given first.
    expect(await thread.stat({ id: 7, paths: [join(root, 'elsewhere')] })).toEqual(first);
  });

  it('fails the calls of a closed thread, and a new thread serves the next caller', async () => {
    thread = new TreeStatThread();
    const paths = files('closed', 2);
    await thread.stat({ id: 1, paths });
    const cut = thread.stat({ id: 1, paths: Array.from({ length: 20_000 }, () => paths[0]!) });
    thread.close();
    await expect(cut).rejects.toThrow('the ship is shutting down');
    await expect(thread.stat({ id: 1, paths })).rejects.toThrow('the ship is shutting down');

    thread = new TreeStatThread();
    expect((await thread.stat({ id: 1, paths })).newest).toBeGreaterThan(0);
  });

  it('fails the calls of a thread that dies by itself, and starts a new one for the next call', async () => {
    thread = new TreeStatThread();
    const paths = files('dies', 2);
    const before = await thread.stat({ id: 1, paths });
    // A path git can never list (a NUL byte) makes lstat throw inside the thread: nothing catches it there.
    await expect(thread.stat({ id: 2, paths: ['bad\0path'] })).rejects.toThrow(/^the stat thread failed: /);
    // The new thread has not seen list 1: its paths are sent again and the digest is the same.
    expect(await thread.stat({ id: 1, paths })).toEqual(before);
  });
});
