// The ship's MCP endpoint across the stops supervisors and crashes make (issue #16), with `npx svc ship`
// started the way users start it (helpers/npx.ts: the `npm exec` leader of its own process group) on a fixed
// port and driven over HTTP only: an agent reports status with the SDK client and the token its session got,
// then the ship is stopped by SIGTERM to the group (SIGKILL to what is left once the leader exits), by SIGKILL
// to the group, or by SIGKILL to the svc process alone, and started again on the same fleet directory.
//
// What the spec asks after a restart: agent status is in-memory runtime state, dropped on ship restart, so
// the workspace has no status and `agent_status` wants `agent_init` again. The MCP token is not dropped: its
// binding is deleted on deactivate or delete only, and it lives in the session's environment, which outlives
// the ship (tmux is no child of it) and is adopted, token re-bound, by the next ship. So the agent in that
// session keeps working with its token; a fresh activation (deactivate, activate) is what voids it (401) and
// hands the new session a token that works. Nothing of the stopped ship stays behind: its processes, its
// spawn helper (a process group of its own, so no group signal reaches it) and its tmux control client.
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { killFleetTmux } from '../helpers/cli.js';
import { makeRemote } from '../helpers/git-fixtures.js';
import { processesMatching, startNpx, type NpxProcess } from '../helpers/npx.js';
import { until } from '../helpers/poll.js';
import { freePort } from '../helpers/ports.js';
import { call, makeTempRoot, path, removeRoot } from '../helpers/ship.js';
import { HELPER_MARKER } from '../../ship/processes/spawn-helper/helper-script.js';
import { tmuxSocketFor } from '../../ship/server.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { Tmux } from '../../ship/sessions/tmux.js';

const BRIDGE_TOKEN = 'sentinel-bridge-token-mcp-npx-7';
const auth = { authorization: `Bearer ${BRIDGE_TOKEN}` };
const INIT = { model: 'm', provider: 'p', harness: 'h' };
/** What agent_init answers: idle, described by when it started. */
const initialised = () => ({
  state: 'idle',
  ...INIT,
  description: expect.stringMatching(/^Created session at \d{4}-\d\d-\d\dT/),
});
const SESSION = sessionName('app', 'w1');

let root: string;
let fleet: string;
let port: number;
let url: string;
let socket: string;
let tmux: Tmux;
let ship: NpxProcess | undefined;

async function startShip(): Promise<NpxProcess> {
  const started = startNpx(['ship', '--port', String(port), '--name', 'mcp-npx', '--fleet-directory', fleet], {
    SVC_BRIDGE_TOKEN: BRIDGE_TOKEN,
  });
  await started.waitFor('ship listening', 60_000);
  return started;
}

/** The token the workspace's session got, read from tmux where the agent's shell reads it. */
const sessionToken = async () => (await tmux.sessionVariables(SESSION)).SVC_MCP_TOKEN!;

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'agent', version: '0.0.1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url + path('app', 'w1', '/mcp')), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** A raw MCP initialize with `token`: the status and body the endpoint answers. */
async function initializeWith(token: string) {
  const response = await fetch(url + path('app', 'w1', '/mcp'), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }),
  });
  return { status: response.status, body: await response.text() };
}

/** Pids of `parent`'s children whose command line carries `marker`. */
function childrenOf(parent: number, marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (
        state !== 'Z' &&
        Number(ppid) === parent &&
        readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(marker)
      )
        found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Whether `pid` is a live process (not gone, not a zombie). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

/** The ship's own processes: the `svc ship` node process, its spawn helper, its tmux control client. */
async function shipProcesses(): Promise<{ svc: number; helper: number; control: number }> {
  return until(
    async () => {
      const svc = processesMatching('/.bin/svc ship', fleet);
      if (svc.length !== 1) return null;
      const helper = childrenOf(svc[0]!, HELPER_MARKER);
      const control = processesMatching(`tmux -L ${socket} -C attach-session`);
      return helper.length === 1 && control.length === 1
        ? { svc: svc[0]!, helper: helper[0]!, control: control[0]! }
        : null;
    },
    'the ship, its spawn helper and its tmux control client',
    15_000,
  );
}

beforeAll(async () => {
  root = await makeTempRoot();
  fleet = join(root, 'fleet');
  port = await freePort();
  url = `http://localhost:${port}`;
  ship = await startShip();
  socket = tmuxSocketFor(realpathSync(fleet));
  tmux = new Tmux(socket);
  const remote = makeRemote(root);
  expect(
    (await call(url, 'POST', '/workspaces', { url: remote.url, repoName: 'app', name: 'w1', branch: 'main' }, auth))
      .status,
  ).toBe(201);
  expect((await call(url, 'POST', path('app', 'w1', '/activate'), undefined, auth)).status).toBe(200);
}, 90_000);
afterAll(async () => {
  await ship?.terminateThenKill();
  if (fleet) await killFleetTmux(fleet);
  if (root) await removeRoot(root);
});

const STOPS: Array<[string, (stopped: NpxProcess, svcPid: number) => Promise<void>]> = [
  ['SIGTERM to the group, then SIGKILL to what is left', (stopped) => stopped.terminateThenKill()],
  [
    'SIGKILL to the group',
    async (stopped) => {
      stopped.signalGroup('SIGKILL');
      await stopped.exited;
    },
  ],
  [
    'SIGKILL to the svc process alone',
    async (stopped, svcPid) => {
      process.kill(svcPid, 'SIGKILL');
      await stopped.exited;
    },
  ],
];

it.each(STOPS)(
  '%s: nothing of the ship stays; the session and its token carry over; status is gone; re-activation voids the token',
  async (_stop, stop) => {
    const token = await sessionToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const agent = await mcpClient(token);
    expect((await agent.callTool({ name: 'agent_init', arguments: INIT })).structuredContent).toEqual(initialised());
    expect(
      (await agent.callTool({ name: 'agent_status', arguments: { state: 'building', description: 'compiling' } }))
        .structuredContent,
    ).toEqual({
      ...INIT,
      state: 'building',
      description: 'compiling',
    });
    await agent.close();

    const before = await shipProcesses();
    await stop(ship!, before.svc);
    ship = undefined;
    await until(
      async () =>
        processesMatching('svc', 'ship', fleet).length === 0 &&
        !alive(before.helper) &&
        processesMatching(`tmux -L ${socket} -C`).length === 0,
      `the stopped ship's processes to end (svc: ${processesMatching('svc', 'ship', fleet)}, helper ${before.helper}, control client ${before.control})`,
      10_000,
    );
    // The tmux server is not the ship's: the session, and with it the agent and its token, live on.
    expect((await tmux.listSessions()).has(SESSION)).toBe(true);

    ship = await startShip();
    const after = await shipProcesses();
    expect(after.svc).not.toBe(before.svc);
    const adopted = await call(url, 'GET', path('app', 'w1'), undefined, auth);
    expect(adopted.status).toBe(200);
    expect(adopted.body).toMatchObject({ repoName: 'app', name: 'w1', state: 'active', agent: null });
    expect(await sessionToken()).toBe(token);

    // The agent in the adopted session: same token, no status until it initialises again.
    const again = await mcpClient(token);
    expect((await again.callTool({ name: 'agent_status_get', arguments: {} })).structuredContent).toEqual({
      agent: null,
    });
    const uninitialised = await again.callTool({
      name: 'agent_status',
      arguments: { state: 'building', description: 'resuming' },
    });
    expect(uninitialised.isError).toBe(true);
    expect(uninitialised.content).toEqual([{ type: 'text', text: 'agent not initialized: app/w1' }]);
    const reinitialised = (await again.callTool({ name: 'agent_init', arguments: INIT })).structuredContent;
    expect(reinitialised).toEqual(initialised());
    await again.close();
    expect((await call(url, 'GET', path('app', 'w1', '/agent/status'), undefined, auth)).body).toEqual(reinitialised);

    // A fresh activation mints a new token; the old one is refused from then on.
    expect((await call(url, 'POST', path('app', 'w1', '/deactivate'), undefined, auth)).status).toBe(200);
    expect((await call(url, 'POST', path('app', 'w1', '/activate'), undefined, auth)).status).toBe(200);
    const fresh = await sessionToken();
    expect(fresh).not.toBe(token);
    expect(await initializeWith(token)).toEqual({
      status: 401,
      body: JSON.stringify({ error: 'authentication required' }),
    });
    const renewed = await mcpClient(fresh);
    expect((await renewed.callTool({ name: 'agent_status_get', arguments: {} })).structuredContent).toEqual({
      agent: null,
    });
    await renewed.close();
  },
  120_000,
);
