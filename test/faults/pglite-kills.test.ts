// docs/security.md X5: the embedded store (PGlite) killed with SIGKILL in the middle of mixed writes,
// 50 rounds on one data directory. Every open recovers within 2 s; no acknowledged transaction is lost and
// none is half applied: each round's names are exactly what its acknowledged transactions wrote, plus at
// most the one in flight. (The second process refused by the directory lock is bridge/store/store.test.ts.)
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempRoot, removeRoot } from '../helpers/ship.js';

const WRITER = resolve(import.meta.dirname, '../fixtures/store-mixed-writer.mjs');
const ROUNDS = 50;
const RECOVERY_LIMIT_MS = 2000;

interface Found {
  openMs: number;
  ships: string[];
  repos: string[];
}

let root: string;
beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  await removeRoot(root);
});

/**
 * Runs the writer with `prefix` ("check" to only read): resolves with what its open found and, for a
 * writer, the transactions acknowledged before it was killed `killAfterMs` after its first commit.
 */
function runWriter(
  dataDirectory: string,
  prefix: string,
  killAfterMs = 0,
): Promise<{ found: Found; acknowledged: number }> {
  const child = spawn(process.execPath, [WRITER, dataDirectory, prefix], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  let killTimer: NodeJS.Timeout | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (prefix !== 'check' && killTimer === undefined && output.includes('committed 0\n')) {
      killTimer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    }
  });
  return new Promise((resolveRun, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (prefix === 'check' ? code !== 0 : signal !== 'SIGKILL')
        return reject(new Error(`writer ended with ${code ?? signal}:\n${output}`));
      const lines = output.split('\n');
      resolveRun({
        found: JSON.parse(lines[0]!) as Found,
        acknowledged: lines.filter((line) => line.startsWith('committed ')).length,
      });
    });
  });
}

/** The names a round leaves after `count` transactions: the last three it inserted. */
const namesAfter = (prefix: string, count: number) =>
  Array.from({ length: Math.min(3, count) }, (_, k) => `${prefix}-${count - Math.min(3, count) + k}`);

describe('the embedded store killed mid-write', () => {
  it(`recovers every acknowledged transaction and no half of one, ${ROUNDS} rounds`, async () => {
    const dataDirectory = join(root, 'bridge');
    const acknowledged = new Map<string, number>();
    const openTimes: number[] = [];
    /** Each finished round's names must be those of its acknowledged transactions, or of one more. */
    const verify = (found: Found) => {
      expect([...found.repos].sort()).toEqual([...found.ships].sort());
      openTimes.push(found.openMs);
      for (const [prefix, count] of acknowledged) {
        const names = found.ships.filter((name) => name.startsWith(`${prefix}-`)).sort();
        const candidates = [namesAfter(prefix, count), namesAfter(prefix, count + 1)].map((list) => [...list].sort());
        expect(candidates, `round ${prefix} acknowledged ${count}`).toContainEqual(names);
      }
    };
    for (let round = 0; round < ROUNDS; round++) {
      const prefix = `r${round}`;
      const run = await runWriter(dataDirectory, prefix, Math.random() * 400);
      verify(run.found);
      expect(run.acknowledged).toBeGreaterThan(0);
      acknowledged.set(prefix, run.acknowledged);
    }
    verify((await runWriter(dataDirectory, 'check')).found);
    // The first open creates the store; every later one recovers from a kill.
    expect(Math.max(...openTimes.slice(1))).toBeLessThan(RECOVERY_LIMIT_MS);
  }, 300_000);
});
