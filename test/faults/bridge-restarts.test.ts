// A bridge stopped the way a supervisor stops it — SIGTERM to its process group, then SIGKILL to the group
// as soon as the `npm exec` leader has gone — and started again at once on the same data directory, 20 times
// over, through `npx svc bridge`. Every start must come up with the roster, the repo registry and the first
// admin of the first start (a pid-file lock refused about one start in two: issue #14, item 1).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';
import { bridgeUrlIn, startNpx, type NpxProcess } from '../helpers/npx.js';

const ROUNDS = 20;
const admin = {
  SVC_BRIDGE_ADMIN_USER: 'root',
  SVC_BRIDGE_ADMIN_EMAIL: 'root@example.com',
  SVC_BRIDGE_ADMIN_PASSWORD: 'correct horse',
};
let root: string;
let current: NpxProcess | undefined;

beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  current?.signalGroup('SIGKILL');
  await removeRoot(root);
});

async function start(data: string): Promise<string> {
  current = startNpx(['bridge', '--port', '0', '--data-directory', data], admin);
  await current.waitFor('bridge listening on', 60_000);
  return bridgeUrlIn(current.output());
}

async function login(url: string): Promise<string> {
  const reply = await call(url, 'POST', '/auth/login', { username: 'root', password: 'correct horse' });
  expect(reply.status).toBe(200);
  return reply.body.token as string;
}

describe('a bridge stopped by its supervisor', () => {
  it(`starts again at once after SIGTERM then SIGKILL to its group, ${ROUNDS} rounds, with nothing lost`, async () => {
    const data = join(root, 'data');
    let url = await start(data);
    let token = await login(url);
    const auth = () => ({ authorization: `Bearer ${token}` });
    expect(
      (await call(url, 'POST', '/repos', { name: 'app', url: 'https://example.com/app.git' }, auth())).status,
    ).toBe(201);
    for (let round = 1; round <= ROUNDS; round++) {
      await current!.terminateThenKill();
      url = await start(data);
      token = await login(url);
      const repos = await call(url, 'GET', '/repos', undefined, auth());
      expect(
        repos.body.map((repo: { name: string }) => repo.name),
        `round ${round}`,
      ).toEqual(['app']);
      const users = await call(url, 'GET', '/users', undefined, auth());
      expect(
        users.body.map((user: { username: string }) => user.username),
        `round ${round}`,
      ).toEqual(['root']);
    }
    await current!.terminateThenKill();
  }, 600_000);
});
