// docs/security.md X11: a ship process out of file descriptors (its limit cut to 256 while it runs,
// then 300 event subscribers hold them). Whatever cannot be served fails with a status and a message that
// says why, or at connection level; the process stays up; once the descriptors are back every route works.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot } from '../helpers/ship.js';
import { alive, killFleetTmux, startShipCli, type RunningCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { settles, until } from '../helpers/poll.js';

let root: string;
let remote: RemoteFixture;
let ship: RunningCli;
let url: string;

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  const port = await freePort();
  url = `http://localhost:${port}`;
  ship = await startShipCli(join(root, 'fleet'), port, 'fd');
}, 30_000);

afterAll(async () => {
  await ship?.stop('SIGKILL');
  await killFleetTmux(join(root, 'fleet'));
  await removeRoot(root);
});

function subscribe(): Promise<WebSocket | null> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/events`);
    const timer = setTimeout(() => {
      socket.terminate();
      resolve(null);
    }, 5000);
    socket.once('message', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    // Refused at accept, or closed 1011 because the snapshot could not be read.
    for (const event of ['error', 'close'] as const) {
      socket.once(event, () => {
        clearTimeout(timer);
        resolve(null);
      });
    }
  });
}

describe('a ship out of file descriptors', () => {
  it('answers what it can, else 503 naming EMFILE, stays up, and recovers when descriptors free up', async () => {
    expect(
      (await call(url, 'POST', '/workspaces', { url: remote.url, repoName: 'app', name: 'before', branch: 'main' }))
        .status,
    ).toBe(201);
    const pid = ship.child.pid!;
    // Only the soft limit moves (raising a hard limit back needs CAP_SYS_RESOURCE, which containers lack).
    const [soft, hard] = execFileSync(
      'prlimit',
      ['--pid', String(pid), '--nofile', '--raw', '--noheadings', '--output', 'SOFT,HARD'],
      { encoding: 'utf8' },
    )
      .trim()
      .split(/\s+/);
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=256:${hard}`]);

    const held: WebSocket[] = [];
    for (let i = 0; i < 300; i++) {
      const socket = await subscribe();
      if (socket) held.push(socket);
    }
    // Some subscribers got in, and the limit held the rest back.
    expect(held.length).toBeGreaterThan(100);
    expect(held.length).toBeLessThan(256);

    // Routes that need a descriptor in the ship (a file, a new socket) fail cleanly, or the connection is
    // refused. git runs in the spawn helper, whose descriptors are its own: a clone or a diff may succeed.
    const attempts = [
      () => call(url, 'POST', '/workspaces', { url: remote.url, repoName: 'app', name: 'during', branch: 'main' }),
      () => call(url, 'GET', path('app', 'before')),
      () => call(url, 'GET', path('app', 'before', '/diff')),
      () => call(url, 'GET', '/workspaces'),
    ];
    const failures: string[] = [];
    for (const attempt of attempts) {
      const outcome = await attempt().catch((error: Error) => ({ status: 0, body: { error: error.message } }));
      if (outcome.status === 0) continue;
      if (outcome.status >= 300) {
        // Never a lie such as 404 "workspace not found" or an empty list: 503, retry, naming the cause.
        expect(outcome.status).toBe(503);
        expect(outcome.body).toEqual({
          error: expect.stringMatching(/^the ship is out of resources; retry shortly \(.*EMFILE/),
        });
        failures.push(outcome.body.error);
      }
    }
    expect(failures.length).toBeGreaterThan(0);
    expect(alive(pid), ship.output()).toBe(true);

    for (const socket of held) socket.terminate();
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${soft}:${hard}`]);
    let listed = await call(url, 'GET', '/workspaces').catch(() => null);
    const answers = async () => {
      listed = await call(url, 'GET', '/workspaces').catch(() => null);
      return listed?.status === 200;
    };
    await settles(until(answers, 'GET /workspaces answered 200', 4_000, 100));
    expect(listed?.status).toBe(200);
    expect(
      (await call(url, 'POST', '/workspaces', { url: remote.url, repoName: 'app', name: 'after', branch: 'main' }))
        .status,
    ).toBe(201);
    expect((await call(url, 'GET', path('app', 'before'))).status).toBe(200);
    expect((await call(url, 'GET', path('app', 'before', '/diff'))).status).toBe(200);
    expect(alive(pid)).toBe(true);
    expect(ship.output()).not.toMatch(/uncaught|unhandled/i);
  }, 90_000);
});
