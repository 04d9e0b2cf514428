// The first start from a home directory that never ran npx, as a new user, a service account or a container
// starts svc (issue #26). npm links the checkout into that home's npx cache and runs its `prepare` again:
// before, that rebuilt dist/ in place (15 s, files rewritten under running services, and four such starts at
// once left a module empty). Now prepare finds the build current and does nothing (bin/build.js), so:
// - `npx --no-install svc --version` answers from a fresh home about as fast as from a warm one (both times
//   are printed, not asserted) and no file under dist/ changes;
// - a bridge started that way on a new data directory serves within 5 s (the store is copied from the
//   build's template instead of PGlite's initdb);
// - a supervisor's loop (start, SIGTERM to the group, SIGKILL, start again at once) serves every time;
// - four bridges started at once from four fresh homes all serve, and dist/ is still unchanged;
// - a partial first-admin environment is refused before anything is created.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msUntil } from '../helpers/poll.js';
import { runNpx, startNpx, type NpxProcess } from '../helpers/npx.js';
import { freePort } from '../helpers/ports.js';
import { makeTempRoot, rawCall, removeRoot } from '../helpers/ship.js';

const DIST = resolve(import.meta.dirname, '../../dist');
const ADMIN = {
  SVC_BRIDGE_ADMIN_USER: 'admin',
  SVC_BRIDGE_ADMIN_EMAIL: 'admin@example.com',
  SVC_BRIDGE_ADMIN_PASSWORD: 'admin-password-1',
};

let root: string;
const started: NpxProcess[] = [];

beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  for (const process of started) await process.terminateThenKill();
  await removeRoot(root);
});

/** Every file of the build dist/ points at, with its modification time and content hash. */
function snapshotDist(): Map<string, string> {
  const build = realpathSync(DIST);
  const files = new Map<string, string>();
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        // The store template is PGlite's files: copied from, never written.
        if (entry.name !== 'pglite-template') walk(path);
      } else {
        files.set(
          path,
          `${statSync(path, { bigint: true }).mtimeNs}:${createHash('sha1').update(readFileSync(path)).digest('hex')}`,
        );
      }
    }
  };
  walk(build);
  return files;
}

const freshHome = () => mkdtempSync(join(root, 'home-'));

async function startBridge(
  home: string,
  dataDirectory: string,
  port: number,
): Promise<{ bridge: NpxProcess; servedMs: number }> {
  const bridge = startNpx(['bridge', '--port', String(port), '--data-directory', dataDirectory], {
    HOME: home,
    ...ADMIN,
  });
  started.push(bridge);
  const url = `http://127.0.0.1:${port}`;
  const servedMs = await msUntil(
    async () => (await rawCall(url, 'GET', '/auth/mode').catch(() => null))?.status === 200,
    `the bridge on ${port} serving`,
    30_000,
  );
  return { bridge, servedMs };
}

describe('the first npx svc from a fresh home directory', () => {
  let before: Map<string, string>;
  beforeAll(() => {
    before = snapshotDist();
  });

  it('answers --version about as fast as from a warm home, and leaves dist/ untouched', async () => {
    const home = freshHome();
    const time = async () => {
      const start = performance.now();
      const run = await runNpx(['--version'], { HOME: home });
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      return performance.now() - start;
    };
    const fresh = await time();
    const warm = await time();
    process.stdout.write(
      `npx svc --version: fresh home ${fresh.toFixed(0)} ms, warm home ${warm.toFixed(0)} ms (${(fresh / warm).toFixed(2)}×)\n`,
    );
    expect(snapshotDist()).toEqual(before);
  }, 60_000);

  it('starts a bridge on a new data directory that serves within 5 s', async () => {
    const { bridge, servedMs } = await startBridge(freshHome(), join(root, 'data-first'), await freePort());
    process.stdout.write(
      `npx svc bridge from a fresh home, new data directory: served after ${servedMs.toFixed(0)} ms\n`,
    );
    expect(servedMs).toBeLessThan(5000);
    await bridge.terminateThenKill();
    expect(snapshotDist()).toEqual(before);
  }, 60_000);

  it('serves every start of a supervisor loop: SIGTERM to the group, SIGKILL, and an immediate start', async () => {
    const home = freshHome();
    const data = join(root, 'data-loop');
    const port = await freePort();
    for (let round = 0; round < 10; round++) {
      const { bridge } = await startBridge(home, data, port);
      bridge.signalGroup('SIGTERM');
      bridge.signalGroup('SIGKILL');
      await bridge.exited;
    }
    expect(snapshotDist()).toEqual(before);
  }, 240_000);

  it('serves four bridges started at once from four fresh homes', async () => {
    const ports = await Promise.all([0, 1, 2, 3].map(() => freePort()));
    const starts = await Promise.all(
      ports.map((port, i) => startBridge(freshHome(), join(root, `data-four-${i}`), port)),
    );
    process.stdout.write(
      `four bridges at once: served after ${starts.map(({ servedMs }) => servedMs.toFixed(0)).join(', ')} ms\n`,
    );
    for (const { bridge } of starts) await bridge.terminateThenKill();
    expect(snapshotDist()).toEqual(before);
  }, 120_000);
});

describe('configuration errors come before anything is created', () => {
  it('a partial first admin exits 1 with the missing variables, and leaves no data directory', async () => {
    const data = join(root, 'data-partial');
    const run = await runNpx(['bridge', '--port', String(await freePort()), '--data-directory', data], {
      HOME: freshHome(),
      SVC_BRIDGE_ADMIN_USER: 'admin',
      SVC_BRIDGE_ADMIN_EMAIL: undefined,
      SVC_BRIDGE_ADMIN_PASSWORD: undefined,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'svc: the first admin needs all of SVC_BRIDGE_ADMIN_USER, SVC_BRIDGE_ADMIN_EMAIL, SVC_BRIDGE_ADMIN_PASSWORD; missing: SVC_BRIDGE_ADMIN_EMAIL, SVC_BRIDGE_ADMIN_PASSWORD',
    );
    expect(existsSync(data)).toBe(false);
  }, 60_000);
});
