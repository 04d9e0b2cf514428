// The MCP endpoint of a real `svc ship` process (issue #16), with SVC_BRIDGE_TOKEN set: a workspace is
// activated over HTTP, its SVC_MCP_TOKEN is read from the session environment through the ship's tmux socket
// (where the agent's shell gets it), and the SDK client reports status over HTTP; the change is on /events.
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { killFleetTmux, startShipCli, type RunningCli } from '../helpers/cli.js';
import { connectEvents } from '../helpers/events.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { freePort } from '../helpers/ports.js';
import { call, makeTempRoot, path, removeRoot } from '../helpers/ship.js';
import { tmuxSocketFor } from '../../ship/server.js';
import { sessionName } from '../../ship/sessions/session-names.js';

const BRIDGE_TOKEN = 'sentinel-bridge-token-mcp-process-42';
const auth = { authorization: `Bearer ${BRIDGE_TOKEN}` };
let root: string;
let fleet: string;
let ship: RunningCli | undefined;
let url: string;

beforeAll(async () => {
  root = await makeTempRoot();
  fleet = join(root, 'fleet');
  const port = await freePort();
  ship = await startShipCli(fleet, port, 'mcp-proc', { SVC_BRIDGE_TOKEN: BRIDGE_TOKEN });
  url = `http://localhost:${port}`;
}, 60_000);
afterAll(async () => {
  await ship?.stop();
  if (fleet) await killFleetTmux(fleet);
  if (root) await removeRoot(root);
});

it('an agent in a workspace of `svc ship` reports status over MCP with its session token; /events carries it', async () => {
  const remote = makeRemote(root);
  expect(
    (await call(url, 'POST', '/workspaces', { url: remote.url, repoName: 'app', name: 'w1', branch: 'main' }, auth))
      .status,
  ).toBe(201);
  expect((await call(url, 'POST', path('app', 'w1', '/activate'), undefined, auth)).status).toBe(200);

  const line = execFileSync(
    'tmux',
    [
      '-L',
      tmuxSocketFor(realpathSync(fleet)),
      'show-environment',
      '-t',
      `=${sessionName('app', 'w1')}`,
      'SVC_MCP_TOKEN',
    ],
    {
      encoding: 'utf8',
    },
  ).trim();
  const token = line.replace(/^SVC_MCP_TOKEN=/, '');
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

  const events = await connectEvents(url, auth);
  await events.waitFor(1);
  const client = new Client({ name: 'agent', version: '0.0.1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url + path('app', 'w1', '/mcp')), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  expect(client.getServerVersion()?.name).toBe('svc-agent');
  const init = { model: 'm', provider: 'p', harness: 'h' };
  expect((await client.callTool({ name: 'agent_init', arguments: init })).structuredContent).toMatchObject({
    state: 'idle',
    ...init,
  });
  const update = { state: 'building', description: 'compiling', link: 'https://forge.test/pr/1' };
  expect((await client.callTool({ name: 'agent_status', arguments: update })).structuredContent).toEqual({
    ...init,
    ...update,
  });
  const repo = await client.callTool({ name: 'repo_info', arguments: {} });
  expect(repo.isError).toBe(true);
  expect(JSON.stringify(repo.content)).toContain('no bridge has connected to this ship yet');
  await client.close();

  const [, first, second] = await events.waitFor(3);
  expect(first).toMatchObject({
    type: 'workspace.agent_status_changed',
    workspace: { repoName: 'app', name: 'w1', agent: { state: 'idle' } },
  });
  expect(second).toMatchObject({
    type: 'workspace.agent_status_changed',
    workspace: { agent: { ...init, ...update } },
  });
  await events.close();
  expect(ship!.output()).not.toContain(token);
}, 60_000);
