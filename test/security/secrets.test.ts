// Secrets never leak (docs/security.md H3): a whole launch (bridge and ship processes in one `svc launch`,
// pinned sentinel tokens, a sentinel admin password) driven through login, tickets, workspaces and two
// terminals, while every process's command line is sampled every 100 ms. No sentinel, session token,
// ticket or MCP token may appear in any command line, in the logs (at debug level) or in any response body
// other than the one that issued it; inside each terminal the only token is that workspace's own.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTempRoot, path, removeRoot, TEST_SESSION_COMMAND } from '../helpers/ship.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { startCli, type RunningCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { connectTerminal } from '../helpers/terminal.js';

const SENTINEL = {
  password: 'SENTINELpw-7c1d9a2e',
  shipToken: 'SENTINELship-3f8b2c61a9d04e7b85c2f1a0d9e3b7c6',
  bridgeToken: 'SENTINELbridge-9d2e4f6a8b0c1d3e5f7a9b1c3d5e7f90',
};

let root: string;
let launch: RunningCli;
let bridgeUrl: string;
const cmdlines = new Set<string>();
let sampler: NodeJS.Timeout;
const issued: string[] = [];
const bodies: string[] = [];

function sample(): void {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      cmdlines.add(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // gone already
    }
  }
}

beforeAll(async () => {
  root = await makeTempRoot();
  sampler = setInterval(sample, 100);
  const ports = { bridge: await freePort(), ship: await freePort() };
  bridgeUrl = `http://localhost:${ports.bridge}`;
  writeFileSync(
    join(root, 'svc.yaml'),
    [
      'bridge:',
      `  port: ${ports.bridge}`,
      'ships:',
      '  s1:',
      '    source: local',
      `    port: ${ports.ship}`,
      '    shipToken: secrets:SHIP',
      '    bridgeToken: ${BRIDGE_TOKEN}',
      '',
    ].join('\n'),
  );
  writeFileSync(join(root, 'svc.secrets'), `SHIP=${SENTINEL.shipToken}\n`);
  launch = startCli(['launch', '--config-path', join(root, 'svc.yaml')], {
    SVC_BRIDGE_ADMIN_USER: 'root',
    SVC_BRIDGE_ADMIN_EMAIL: 'root@example.com',
    SVC_BRIDGE_ADMIN_PASSWORD: SENTINEL.password,
    BRIDGE_TOKEN: SENTINEL.bridgeToken,
    SVC_LOG_LEVEL: 'debug',
    SVC_SESSION_COMMAND: TEST_SESSION_COMMAND,
    SVC_TOKEN: undefined,
  });
  await launch.waitFor('Ctrl-C stops everything.');
}, 60_000);

afterAll(async () => {
  clearInterval(sampler);
  await launch?.stop('SIGINT');
  await removeRoot(root);
});

async function api(token: string | null, method: string, route: string, body?: unknown) {
  const reply = await call(bridgeUrl, method, route, body, token ? { authorization: `Bearer ${token}` } : {});
  bodies.push(reply.text);
  return reply;
}

describe('secrets under a full run', () => {
  it('stay out of command lines, logs and bodies; each terminal holds only its own token', async () => {
    const login = await call(bridgeUrl, 'POST', '/auth/login', { username: 'root', password: SENTINEL.password });
    const token = login.body.token as string;
    issued.push(token);
    const remote = makeRemote(root);
    expect((await api(token, 'POST', '/repos', { name: 'app', url: remote.url })).status).toBe(201);
    const mcp: string[] = [];
    for (const name of ['one', 'two']) {
      expect(
        (await api(token, 'POST', '/workspaces', { ship: 's1', repoName: 'app', name, branch: 'main' })).status,
      ).toBe(201);
      expect((await api(token, 'POST', path('app', name, '/activate'))).status).toBe(200);
      const ticket = await call(bridgeUrl, 'POST', '/auth/ws-ticket', undefined, { authorization: `Bearer ${token}` });
      issued.push(ticket.body.ticket);
      const terminal = await connectTerminal(
        `${bridgeUrl.replace(/^http/, 'ws')}${path('app', name, '/terminal')}?ticket=${ticket.body.ticket}`,
        { cols: 200, rows: 20 },
      );
      await terminal.until((screen) => /[$#] ?$/m.test(screen.text()));
      terminal.input("env | grep -E '^SVC_|SENTINEL' | sort | sed 's/^/ENV:/'; echo END-OF-ENV\r");
      await terminal.until((screen) => /^END-OF-ENV/m.test(screen.text()));
      const lines = terminal.screen
        .text()
        .split('\n')
        .filter((line) => line.startsWith('ENV:'))
        .map((line) => line.slice(4).trim());
      await terminal.close();
      expect(lines.filter((line) => line.startsWith('SVC_MCP_TOKEN='))).toHaveLength(1);
      expect(lines.join('\n')).not.toContain('SENTINEL');
      expect(lines.map((line) => line.split('=')[0]).sort()).toEqual([
        'SVC_MCP_TOKEN',
        'SVC_SHIP_URL',
        'SVC_WORKSPACE',
      ]);
      mcp.push(lines.find((line) => line.startsWith('SVC_MCP_TOKEN='))!.slice('SVC_MCP_TOKEN='.length));
    }
    expect(mcp[0]).not.toBe(mcp[1]);
    await api(token, 'GET', '/ships');
    await api(token, 'GET', '/workspaces');
    await api(token, 'GET', '/armory/ships');
    await api(token, 'GET', path('app', 'one'));
    for (const name of ['one', 'two']) await api(token, 'POST', path('app', name, '/deactivate'));
    await api(token, 'POST', '/auth/logout');
    expect(await launch.stop('SIGINT')).toBe(0);
    sample();

    const secrets = [...Object.values(SENTINEL), ...issued, ...mcp];
    const logs = launch.output();
    expect(logs.length).toBeGreaterThan(1000);
    const leaks: string[] = [];
    for (const secret of secrets) {
      if (logs.includes(secret)) leaks.push(`log: ${secret}`);
      for (const line of cmdlines) if (line.includes(secret)) leaks.push(`cmdline: ${line}`);
      for (const body of bodies) if (body.includes(secret)) leaks.push(`body: ${body.slice(0, 200)}`);
    }
    expect(leaks).toEqual([]);
    expect(cmdlines.size).toBeGreaterThan(10);
  }, 90_000);
});
