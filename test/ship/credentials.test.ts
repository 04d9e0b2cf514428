// Credentials embedded in a clone URL reach git through its environment, never argv (readable by every
// local user in /proc/<pid>/cmdline), and never appear in a response.
import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTempRoot, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { persistUrlCredentials } from '../../ship/git/url-credentials.js';
import { splitUrlCredentials } from '../../protocol/index.js';

const SECRET = 'sentinel-url-secret-9f8e7d';
let root: string;
let ship: TestShip;
let forge: Server;
let forgeUrl: string;
const seenAuthorization: string[] = [];
let onAuthorized: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  root = await makeTempRoot();
  ship = await startTestShip(root);
  // A forge that demands Basic auth, then (once credentials arrive) holds the request a moment and says 404.
  forge = createServer(async (request, response) => {
    if (!request.headers.authorization) {
      response.writeHead(401, { 'www-authenticate': 'Basic realm="forge"' }).end();
      return;
    }
    seenAuthorization.push(request.headers.authorization);
    await onAuthorized();
    response.writeHead(404).end('no such repository');
  });
  await new Promise<void>((resolve) => forge.listen(0, '127.0.0.1', resolve));
  const address = forge.address();
  forgeUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  forge.close();
  await ship.stop();
  await removeRoot(root);
});

function processesMentioning(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(needle)) found.push(`${pid}: ${cmdline.replace(/\0/g, ' ')}`);
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}

describe('clone URL credentials', () => {
  it('splits credentials out of http(s) URLs only', () => {
    const split = splitUrlCredentials('https://u%40x:p%2Fw@host/r.git');
    expect(split.url).toBe('https://host/r.git');
    expect(split.env).toMatchObject({
      SVC_GIT_USERNAME: 'u@x',
      SVC_GIT_PASSWORD: 'p/w',
      GIT_CONFIG_KEY_0: 'credential.helper',
      GIT_CONFIG_VALUE_0: '',
    });
    expect(JSON.stringify(split.env)).not.toMatch(/GIT_CONFIG_VALUE_1":"[^"]*p\/w/);
    expect(splitUrlCredentials('https://host/r.git').env).toEqual({});
    expect(splitUrlCredentials('ssh://git@host/r.git').env).toEqual({});
    expect(splitUrlCredentials('git@host:r.git').env).toEqual({});
  });

  it("are written back as the clone's origin URL, in a config file only its owner reads", async () => {
    const { git, makeRemote } = await import('../helpers/git-fixtures.js');
    const remote = makeRemote(root, 'persist');
    const work = `${root}/persist-clone`;
    git(root, 'clone', '--quiet', remote.url, work);
    const split = splitUrlCredentials(`https://agent:${SECRET}@forge.example/org/repo.git`);
    await persistUrlCredentials(work, split);
    expect(git(work, 'config', 'remote.origin.url').trim()).toBe(`https://agent:${SECRET}@forge.example/org/repo.git`);
    expect(statSync(`${work}/.git/config`).mode & 0o077).toBe(0);
  });

  it('reach the forge through git, while no process has them in its command line', async () => {
    const leaks: string[] = [];
    onAuthorized = async () => {
      leaks.push(...processesMentioning(SECRET));
    };
    const url = `${forgeUrl.replace('http://', `http://agent:${SECRET}@`)}/org/repo.git`;
    const reply = await call(ship.url, 'POST', '/workspaces', { url, repoName: 'cred', name: 'c', branch: 'main' });
    expect(seenAuthorization).toContain(`Basic ${Buffer.from(`agent:${SECRET}`).toString('base64')}`);
    expect(leaks).toEqual([]);
    // The forge's 404 after authenticating: no such repository, the caller's 400 (issue #15).
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatch(/^git clone of http:\/\/\*\*\*@\S+ failed: fatal: repository '.*' not found$/);
    expect(reply.text).not.toContain(SECRET);
  });
});
