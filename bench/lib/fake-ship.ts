// Small fake ships for the fleet benchmark (issue #18 "Fleet scale"): each speaks the ship's wire protocol as
// far as a bridge uses it, and no further, so that what a fleet benchmark measures is the bridge.
//   - WS /events: one `sync` of its workspaces on connect, then the events it is told to send;
//   - GET /workspaces (`?active=` as on a ship) and GET /workspaces/:repo/:name (a valid WorkspaceStatus);
//   - POST /agent/credentials and POST /armory/sync, which the bridge calls when a ship comes online;
//   - anything else is 404 `{error}`.
// Answers are built once and kept until a workspace changes. Many fake ships share one process (one port
// each): `startFakeFleet` forks this module, which starts them and takes commands over the IPC channel.
// Send times are `process.hrtime.bigint()` (CLOCK_MONOTONIC, the same clock in every process of the
// machine), so the benchmark can time a frame from this process's send to another process's receipt.
import { forkWorker } from './fork-worker.js';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import type WebSocket from 'ws';
import { WebSocketServer } from 'ws';
import type {
  AgentState,
  AgentStatus,
  SyncEvent,
  WorkspaceEvent,
  WorkspaceStatus,
  WorkspaceSummary,
} from '../../protocol/index.js';

const AGENT_STATES = ['planning', 'building', 'verifying', 'awaiting', 'idle'] as const;

/**
 * A plausible mix: a third of the workspaces active, most of those with an agent reporting. The first is the
 * ship's generation marker: repo `gen` (first in the bridge's key order, so a subscriber finds it in the
 * first bytes of an aggregate `sync`), branch `generation-<n>` after the ship's n-th `sync`.
 */
export function workspacesOf(ship: string, count: number): WorkspaceSummary[] {
  return Array.from({ length: count }, (_, i) => {
    if (i === 0) return { repoName: 'gen', name: ship, branch: 'generation-0', active: false, agent: null };
    const active = i % 3 === 0;
    const agent: AgentStatus | null =
      active && i % 9 !== 0
        ? {
            state: AGENT_STATES[i % AGENT_STATES.length]!,
            description: `working on task ${i} of ${ship}`,
            model: 'model-x',
            provider: 'provider-y',
            harness: 'harness-z',
          }
        : null;
    return { repoName: `repo-${i % 10}`, name: `${ship}-w${i}`, branch: `feature/${ship}-${i}`, active, agent };
  });
}

const now = () => process.hrtime.bigint();

export class FakeShip {
  private readonly server: http.Server;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly workspaces: WorkspaceSummary[];
  private readonly byKey = new Map<string, WorkspaceSummary>();
  private listing: string | null = null;
  /** When the last `sync` went out (hrtime ns), and how many have. */
  lastSyncAt = 0n;
  syncs = 0;
  requests = 0;

  constructor(
    readonly name: string,
    workspaces: number,
  ) {
    this.workspaces = workspacesOf(name, workspaces);
    for (const workspace of this.workspaces) this.byKey.set(`${workspace.repoName}/${workspace.name}`, workspace);
    this.server = http.createServer((request, response) => this.answer(request, response));
    this.server.keepAliveTimeout = 60_000;
    this.server.on('upgrade', (request, socket, head) => {
      if (new URL(request.url ?? '/', 'http://x').pathname !== '/events') return socket.destroy();
      this.wss.handleUpgrade(request, socket, head, (ws) => this.stream(ws));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  private stream(socket: WebSocket): void {
    this.workspaces[0] = { ...this.workspaces[0]!, branch: `generation-${this.syncs + 1}` };
    this.byKey.set(`gen/${this.name}`, this.workspaces[0]);
    this.listing = null;
    const sync: SyncEvent = {
      type: 'sync',
      ship: this.name,
      at: new Date().toISOString(),
      workspaces: this.workspaces,
    };
    const text = JSON.stringify(sync);
    this.lastSyncAt = now();
    this.syncs++;
    socket.send(text);
  }

  /** What an aggregate `sync` holds once it has this ship's `generation`-th sync. */
  static marker(ship: string, generation: number): string {
    return `"repoName":"gen","name":"${ship}","branch":"generation-${generation}"`;
  }

  /** An agent status change of workspace `index` (to `state`, building by default) to every open stream; returns the send time. */
  emit(index: number, description: string, state: AgentState = 'building'): bigint {
    const workspace = this.workspaces[index]!;
    workspace.active = true;
    workspace.agent = { state, description, model: 'model-x', provider: 'provider-y', harness: 'harness-z' };
    this.listing = null;
    const event: WorkspaceEvent = {
      type: 'workspace.agent_status_changed',
      ship: this.name,
      at: new Date().toISOString(),
      workspace,
    };
    const text = JSON.stringify(event);
    const sentAt = now();
    for (const client of this.wss.clients) client.send(text);
    return sentAt;
  }

  /** Drops every open `/events` stream, as a ship restart or a network blip would. */
  dropStreams(): number {
    let dropped = 0;
    for (const client of this.wss.clients) {
      client.terminate();
      dropped++;
    }
    return dropped;
  }

  get streams(): number {
    return this.wss.clients.size;
  }

  private answer(request: http.IncomingMessage, response: http.ServerResponse): void {
    this.requests++;
    const url = new URL(request.url ?? '/', 'http://x');
    const json = (status: number, text: string) => {
      response.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    };
    // Bodies (credentials, armory sync) are read and ignored.
    request.resume();
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    if (request.method === 'GET' && url.pathname === '/workspaces') {
      const active = url.searchParams.get('active');
      if (active === 'true' || active === 'false')
        return json(200, JSON.stringify(this.workspaces.filter((w) => w.active === (active === 'true'))));
      this.listing ??= JSON.stringify(this.workspaces);
      return json(200, this.listing);
    }
    if (request.method === 'GET' && parts.length === 3 && parts[0] === 'workspaces') {
      const workspace = this.byKey.get(`${parts[1]}/${parts[2]}`);
      if (!workspace) return json(404, JSON.stringify({ error: `workspace not found: ${parts[1]}/${parts[2]}` }));
      const { repoName, name, branch, agent } = workspace;
      const status: WorkspaceStatus = workspace.active
        ? {
            state: 'active',
            repoName,
            name,
            branch,
            diff: { added: 12, removed: 3, commits: 1 },
            agent,
            issue: null,
            mergeRequest: null,
            ship: this.name,
          }
        : { state: 'inactive', repoName, name, branch };
      return json(200, JSON.stringify(status));
    }
    if (request.method === 'POST' && url.pathname === '/agent/credentials') return json(200, '{"ok":true}');
    if (request.method === 'POST' && url.pathname === '/armory/sync') {
      return json(
        200,
        JSON.stringify({
          revision: null,
          bridgeUrl: null,
          syncedAt: null,
          fileCount: 0,
          install: null,
          lastError: null,
        }),
      );
    }
    json(404, JSON.stringify({ error: `not found: ${request.method} ${url.pathname}` }));
  }

  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.server.closeAllConnections();
    this.server.close();
  }
}

// ---- many fake ships in one child process, driven over IPC ----

type Command =
  | { op: 'emit'; ship: number; workspace: number; description: string; state?: AgentState }
  | { op: 'drop'; ships: number[] }
  | { op: 'syncs'; ships: number[] }
  | { op: 'stats' };

interface Request {
  id: number;
  command: Command;
}

export interface FleetHandle {
  ships: Array<{ name: string; url: string }>;
  /** Sends an agent status change (to `state`, building by default) from one ship; resolves with its send time (hrtime ns). */
  emit(ship: number, workspace: number, description: string, state?: AgentState): Promise<bigint>;
  /** Drops the `/events` streams of these ships (the bridge reconnects them). */
  drop(ships: number[]): Promise<void>;
  /** Each ship's `sync` count, last `sync` send time and open streams. */
  syncs(ships: number[]): Promise<Array<{ syncs: number; lastSyncAt: bigint; streams: number }>>;
  /** HTTP requests served by all the ships so far. */
  requests(): Promise<number>;
  pid: number;
  stop(): Promise<void>;
}

/** Forks a process holding `count` fake ships named `<prefix>-000`…, `workspaces` each. */
export async function startFakeFleet(count: number, workspaces: number, prefix = 'fake'): Promise<FleetHandle> {
  const worker = await forkWorker<Command, Array<{ name: string; url: string }>>(
    fileURLToPath(import.meta.url),
    { count, workspaces, prefix },
    'fake fleet',
  );
  const call = worker.call;
  const ships = worker.ready;
  return {
    ships,
    pid: worker.pid,
    emit: async (ship, workspace, description, state) =>
      BigInt(await call<string>({ op: 'emit', ship, workspace, description, state })),
    drop: (list) => call<void>({ op: 'drop', ships: list }),
    syncs: async (list) =>
      (await call<Array<{ syncs: number; lastSyncAt: string; streams: number }>>({ op: 'syncs', ships: list })).map(
        (s) => ({ ...s, lastSyncAt: BigInt(s.lastSyncAt) }),
      ),
    requests: () => call<number>({ op: 'stats' }),
    stop: worker.stop,
  };
}

async function main(): Promise<void> {
  const { count, workspaces, prefix } = JSON.parse(process.argv[2]!) as {
    count: number;
    workspaces: number;
    prefix: string;
  };
  const ships = Array.from(
    { length: count },
    (_, i) => new FakeShip(`${prefix}-${String(i).padStart(3, '0')}`, workspaces),
  );
  const urls = [];
  for (const ship of ships) urls.push({ name: ship.name, url: await ship.listen() });
  process.on('message', ({ id, command }: Request) => {
    const reply = (value: unknown) => process.send!({ id, reply: value });
    switch (command.op) {
      case 'emit':
        return reply(String(ships[command.ship]!.emit(command.workspace, command.description, command.state)));
      case 'drop':
        for (const index of command.ships) ships[index]!.dropStreams();
        return reply(null);
      case 'syncs':
        return reply(
          command.ships.map((index) => ({
            syncs: ships[index]!.syncs,
            lastSyncAt: String(ships[index]!.lastSyncAt),
            streams: ships[index]!.streams,
          })),
        );
      case 'stats':
        return reply(ships.reduce((sum, ship) => sum + ship.requests, 0));
    }
  });
  process.on('SIGTERM', () => {
    for (const ship of ships) ship.close();
    process.exit(0);
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ ready: urls });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
