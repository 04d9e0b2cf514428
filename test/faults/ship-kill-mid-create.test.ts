// docs/security.md X1: a ship killed with SIGKILL at a random point of a create routed through the
// bridge, 20 rounds. The caller gets 503 `unreachable` (or its 201, when the kill came after the answer),
// never anything else; the bridge sees the ship offline within a second and online again within five of the
// restart; the key is then either absent with no directory, or a complete working tree the bridge lists; and
// the bridge holds no reservation for it (a retry is not a lingering 409).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../bridge/server.js';
import { insecureBridge, shipStatus } from '../helpers/bridge.js';
import { msUntil, until } from '../helpers/poll.js';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';
import { killFleetTmux, startShipCli, type RunningCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';

const ROUNDS = 20;
const FILES = 2000;

let root: string;
let remoteUrl: string;
let shipPort: number;
let bridge: Bridge;
/** How long one clone of the remote takes here: kills are spread over 1.2 × this. */
let cloneMs: number;
const running: RunningCli[] = [];

beforeAll(async () => {
  root = await makeTempRoot();
  // 2,000 files of incompressible bytes (4 MB): a clone long enough to be killed in the middle.
  const work = join(root, 'work');
  mkdirSync(work);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: work });
  for (let i = 0; i < FILES; i++) writeFileSync(join(work, `file-${i}.bin`), randomBytes(2_000));
  execFileSync('git', ['add', '.'], { cwd: work });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-qm', 'many files'], {
    cwd: work,
  });
  execFileSync('git', ['clone', '-q', '--bare', work, join(root, 'big.git')]);
  remoteUrl = `file://${join(root, 'big.git')}`;
  const started = Date.now();
  execFileSync('git', ['clone', '-q', remoteUrl, join(root, 'timing')]);
  cloneMs = Date.now() - started;
  shipPort = await freePort();
  bridge = await startBridge({
    ...insecureBridge,
    port: 0,
    dataDirectory: join(root, 'bridge'),
    logger: pino({ level: 'silent' }),
  });
  await startShip();
  expect((await call(bridge.url, 'POST', '/ships', { url: `http://localhost:${shipPort}` })).status).toBe(201);
  expect((await call(bridge.url, 'POST', '/repos', { name: 'big', url: remoteUrl })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await bridge?.close();
  for (const child of running) await child.stop('SIGKILL');
  await killFleetTmux(join(root, 'fleet'));
  await removeRoot(root);
});

async function startShip(): Promise<RunningCli> {
  const ship = await startShipCli(join(root, 'fleet'), shipPort, 'crashy');
  running.push(ship);
  return ship;
}

/** Milliseconds until the bridge reports the ship `status`, failing past `limitMs`. */
const shipBecomes = (status: string, limitMs: number) =>
  msUntil(async () => (await shipStatus(bridge.url, 'crashy')) === status, `the ship ${status}`, limitMs);

const create = () =>
  call(bridge.url, 'POST', '/workspaces', { ship: 'crashy', repoName: 'big', name: 'w', branch: 'main' });

describe('a ship killed mid-create', () => {
  it(`leaves no half workspace at any kill point in ${ROUNDS} rounds, and the bridge holds nothing back`, async () => {
    const staging = join(root, 'fleet', '.svc-ship', 'staging');
    const outcomes: string[] = [];
    let ship = running.at(-1)!;
    for (let round = 0; round < ROUNDS; round++) {
      const answer = create();
      await until(() => existsSync(staging) && readdirSync(staging).length > 0, 'the clone to start', 10_000, 10);
      // The kill point: anywhere in the clone or just after it.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * cloneMs * 1.2));
      expect(await ship.stop('SIGKILL')).toBe(null);
      const killedAt = Date.now();
      const answered = await answer;
      // The kill came either before the ship answered (503, unreachable) or just after (201): nothing else.
      if (answered.status === 503) expect(answered.body.error).toMatch(/^ship "crashy" unreachable: /);
      else expect(answered.status).toBe(201);
      await shipBecomes('offline', Math.max(0, 1000 - (Date.now() - killedAt)));

      // The restart ends the clone the killed ship left running (or it could not clear its staging area).
      ship = await startShip();
      await shipBecomes('online', 5000);
      expect(existsSync(staging)).toBe(false);
      const listed = (await call(bridge.url, 'GET', '/workspaces')).body as Array<{ repoName: string; name: string }>;
      if (listed.length === 0) {
        outcomes.push('absent');
        expect(existsSync(join(root, 'fleet', 'big', 'w'))).toBe(false);
        expect((await call(bridge.url, 'GET', '/workspaces/big/w')).status).toBe(404);
        // No reservation left behind: the retry is a plain create.
        expect(await create()).toMatchObject({
          status: 201,
          body: { repoName: 'big', name: 'w', branch: 'main', ship: 'crashy' },
        });
      } else {
        // The kill came after the rename: a complete, clean working tree that the bridge routes to.
        outcomes.push('complete');
        expect(listed.map((w) => `${w.repoName}/${w.name}`)).toEqual(['big/w']);
        expect(
          execFileSync('git', ['status', '--porcelain'], { cwd: join(root, 'fleet', 'big', 'w'), encoding: 'utf8' }),
        ).toBe('');
        expect(readdirSync(join(root, 'fleet', 'big', 'w')).filter((name) => name.endsWith('.bin'))).toHaveLength(
          FILES,
        );
        expect((await call(bridge.url, 'GET', '/workspaces/big/w')).status).toBe(200);
      }
      expect((await call(bridge.url, 'DELETE', '/workspaces/big/w')).status).toBe(200);
    }
    // Both outcomes occur over the rounds: the kills really land on both sides of the rename.
    expect(outcomes).toContain('absent');
  }, 420_000);
});
