// X1 of the security notes: a ship killed with SIGKILL in the middle of a clone leaves no half workspace.
// The clone runs in the ship's staging area and is renamed into place only when complete; the next start
// clears the staging area, lists nothing for that key, and creates it again.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';
import { killFleetTmux, startShipCli, type RunningCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';

let root: string;
let remoteUrl: string;
let port: number;
const running: RunningCli[] = [];

beforeAll(async () => {
  root = await makeTempRoot();
  // A remote whose clone takes a few seconds: one commit with 80 MB of incompressible bytes.
  const work = join(root, 'work');
  mkdirSync(work);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: work });
  execFileSync('sh', ['-c', 'head -c 80000000 /dev/urandom > blob'], { cwd: work });
  execFileSync('git', ['add', 'blob'], { cwd: work });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-qm', 'big'], { cwd: work });
  execFileSync('git', ['clone', '-q', '--bare', work, join(root, 'big.git')]);
  remoteUrl = `file://${join(root, 'big.git')}`;
  port = await freePort();
}, 60_000);

afterAll(async () => {
  for (const child of running) await child.stop('SIGKILL');
  await killFleetTmux(join(root, 'fleet'));
  await removeRoot(root);
});

const startShip = async () => {
  const ship = await startShipCli(join(root, 'fleet'), port, 'crashy');
  running.push(ship);
  return ship;
};

describe('a ship killed mid-create', () => {
  // X1: eight rounds, each killing the ship at a random point of the clone (sometimes after it finished).
  it('leaves no half workspace at any kill point, and the key can be created again after a restart', async () => {
    const url = `http://localhost:${port}`;
    const staging = join(root, 'fleet', '.svc-ship', 'staging');
    const outcomes: string[] = [];
    for (let round = 0; round < 8; round++) {
      const ship = await startShip();
      const create = call(url, 'POST', '/workspaces', { url: remoteUrl, repoName: 'big', name: 'w', branch: 'main' }).catch((error: Error) => error);
      const deadline = Date.now() + 10_000;
      while (!(existsSync(staging) && readdirSync(staging).length > 0)) {
        if (Date.now() > deadline) throw new Error('the clone never started');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2500));
      expect(await ship.stop('SIGKILL')).toBe(null);
      const answered = await create;
      // The call either failed with the ship, or got its 201 just before the kill: never anything else.
      if (!(answered instanceof Error)) expect(answered.status).toBe(201);

      const restarted = await startShip();
      expect(existsSync(staging)).toBe(false);
      const listed = (await call(url, 'GET', '/workspaces')).body as Array<{ name: string }>;
      if (listed.length === 0) {
        outcomes.push('absent');
        expect((await call(url, 'GET', '/workspaces/big/w')).status).toBe(404);
        const again = await call(url, 'POST', '/workspaces', { url: remoteUrl, repoName: 'big', name: 'w', branch: 'main' });
        expect(again).toMatchObject({ status: 201, body: { repoName: 'big', name: 'w', branch: 'main' } });
      } else {
        // The kill came after the rename: a complete working tree.
        outcomes.push('complete');
        expect(listed.map((w) => w.name)).toEqual(['w']);
        expect(execFileSync('git', ['status', '--porcelain'], { cwd: join(root, 'fleet', 'big', 'w'), encoding: 'utf8' })).toBe('');
      }
      expect((await call(url, 'GET', '/workspaces')).body).toHaveLength(1);
      expect((await call(url, 'DELETE', '/workspaces/big/w')).status).toBe(200);
      await restarted.stop('SIGTERM');
    }
    expect(outcomes).toContain('absent');
  }, 240_000);
});
