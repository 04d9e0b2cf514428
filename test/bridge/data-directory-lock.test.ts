// The data-directory lock as users meet it, through `npx svc bridge`: a bridge killed outright starts again
// at once on the same directory; a pid-file lock left by an older bridge (naming pid 1, or the very pid the
// new bridge has) blocks nothing; a second live bridge is refused with a message naming the first one's pid.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../bridge/store/store.js';
import { DataDirectoryLocked } from '../../bridge/store/lock.js';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';
import { bridgeUrlIn, processesMatching, startNpx, type NpxProcess } from '../helpers/npx.js';

let root: string;
const started: NpxProcess[] = [];

function bridge(data: string): NpxProcess {
  const process = startNpx(['bridge', '--port', '0', '--insecure-no-auth', '--data-directory', data]);
  started.push(process);
  return process;
}

beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  for (const process of started) process.signalGroup('SIGKILL');
  await removeRoot(root);
});

describe('the bridge data-directory lock', () => {
  it('a bridge killed with SIGKILL alone starts again at once on the same directory', async () => {
    const data = join(root, 'killed');
    const first = bridge(data);
    await first.waitFor('bridge listening on');
    expect(
      (await call(bridgeUrlIn(first.output()), 'POST', '/repos', { name: 'kept', url: 'https://example.com/kept.git' }))
        .status,
    ).toBe(201);
    const [pid] = processesMatching('/svc bridge', data);
    process.kill(pid!, 'SIGKILL');
    const second = bridge(data);
    await second.waitFor('bridge listening on');
    const repos = await call(bridgeUrlIn(second.output()), 'GET', '/repos');
    expect(repos.body.map((repo: { name: string }) => repo.name)).toEqual(['kept']);
    await second.terminateThenKill();
  }, 60_000);

  it('a pid-file lock an older bridge left behind, naming pid 1, blocks nothing', async () => {
    const data = join(root, 'pid-one');
    mkdirSync(data, { recursive: true, mode: 0o700 });
    writeFileSync(join(data, 'bridge.lock'), '1\n');
    const started = bridge(data);
    await started.waitFor('bridge listening on');
    expect((await call(bridgeUrlIn(started.output()), 'GET', '/ships')).status).toBe(200);
    await started.terminateThenKill();
  }, 60_000);

  it("a pid-file lock naming the new bridge's own pid blocks nothing", async () => {
    // In-process, so the stale file can name the very pid that opens the store (a container's pid 1 case).
    const data = join(root, 'own-pid');
    mkdirSync(data, { recursive: true, mode: 0o700 });
    writeFileSync(join(data, 'bridge.lock'), `${process.pid}\n`);
    const store = await openStore({ dataDirectory: data });
    await store.close();
  }, 60_000);

  it('a second live bridge on the directory is refused, naming the pid of the first', async () => {
    const data = join(root, 'shared');
    const first = bridge(data);
    await first.waitFor('bridge listening on');
    const [pid] = processesMatching('/svc bridge', data);
    const second = bridge(data);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(
      `svc: the data directory ${data} is in use by another bridge (pid ${pid}); stop it, or use another --data-directory`,
    );
    // The first one is untouched and still serves.
    expect((await call(bridgeUrlIn(first.output()), 'GET', '/ships')).status).toBe(200);
    await expect(openStore({ dataDirectory: data })).rejects.toBeInstanceOf(DataDirectoryLocked);
    await first.terminateThenKill();
  }, 60_000);
});
