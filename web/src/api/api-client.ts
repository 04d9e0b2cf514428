// The GUI's one client of the bridge API, typed with protocol/ shapes: every HTTP call and every WebSocket
// the GUI opens goes through here (pages and hooks never call fetch or WebSocket themselves). It presents
// the stored session token, turns error bodies into ApiError, and on any 401 forgets the token and tells
// the app to show the sign-in gate (spec "Clients": any 401 returns to the gate). WebSockets take a fresh
// single-use ticket from POST /auth/ws-ticket immediately before each connect (30 s, spec rule 5).
import type { AuthMode, CreateUserRequest, LoginResponse, Role, User, WsTicket } from '../../../protocol/auth.js';
import type { ArmoryFile, ArmoryManifest, ShipArmoryState } from '../../../protocol/armory.js';
import type { IssueSummary } from '../../../protocol/forge.js';
import type {
  BridgeCreateWorkspaceRequest,
  BridgeWorkspaceStatus,
  BridgeWorkspaceSummary,
  CreateRepoRequest,
  RegisterShipRequest,
  Repo,
  RepoBranch,
  ShipInfo,
  ShipSystemResources,
} from '../../../protocol/bridge.js';
import type { AgentHistoryList } from '../../../protocol/agent-history.js';
import type { DiffQuery } from '../../../protocol/workspace.js';
import { workspacePath } from '../../../protocol/workspace-path.js';
import { ApiError, messageOf } from './api-error.js';
import type { TokenStore } from './token-store.js';

/** The spec's diff options the GUI offers (DiffQuery): a path list repeats `paths`. */
export type DiffOptions = Pick<DiffQuery, 'stat' | 'staged' | 'includeUntracked' | 'range' | 'paths'>;

interface RequestOptions {
  body?: unknown;
  /** An array repeats its key. */
  query?: Record<string, string | boolean | readonly string[] | undefined>;
  /** The answer is text (the diff), not JSON. */
  text?: boolean;
  /** A 401 here means bad input (login), not a lost session. */
  expectUnauthorized?: boolean;
}

export interface ApiClientOptions {
  tokens: TokenStore;
  /** Called after a 401 forgot the token: show the sign-in gate. */
  onUnauthorized: () => void;
  /** Origin of the bridge (default: the page's own). */
  origin?: string;
  fetch?: typeof fetch;
}

const segment = encodeURIComponent;

export class ApiClient {
  private readonly origin: string;
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: ApiClientOptions) {
    this.origin = options.origin ?? window.location.origin;
    this.fetcher = options.fetch ?? window.fetch.bind(window);
  }

  get signedIn(): boolean {
    return this.options.tokens.get() !== null;
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(path, this.origin);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, item);
      else if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = {
      accept: options.text ? 'text/plain, application/json' : 'application/json',
    };
    const token = this.options.tokens.get();
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.fetcher(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        credentials: 'omit',
        cache: 'no-store',
        redirect: 'error',
      });
    } catch (error) {
      throw new ApiError(0, `the bridge did not answer: ${error instanceof Error ? error.message : String(error)}`);
    }
    const raw = await response.text();
    if (!response.ok) {
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        // not JSON: the status line says it
      }
      const error = new ApiError(response.status, messageOf(body, `${response.status} ${response.statusText}`.trim()));
      if (response.status === 401 && !options.expectUnauthorized) {
        this.options.tokens.clear();
        this.options.onUnauthorized();
      }
      throw error;
    }
    if (options.text) return raw as T;
    return (raw === '' ? null : JSON.parse(raw)) as T;
  }

  // --- authentication (docs/architecture.md §7) ---
  mode(): Promise<AuthMode> {
    return this.request('GET', '/auth/mode');
  }

  async login(username: string, password: string): Promise<User> {
    const answer = await this.request<LoginResponse>('POST', '/auth/login', {
      body: { username, password },
      expectUnauthorized: true,
    });
    this.options.tokens.set(answer.token);
    return answer.user;
  }

  async logout(): Promise<void> {
    try {
      await this.request('POST', '/auth/logout', { expectUnauthorized: true });
    } finally {
      this.options.tokens.clear();
    }
  }

  me(): Promise<User> {
    return this.request('GET', '/auth/me');
  }

  wsTicket(): Promise<WsTicket> {
    return this.request('POST', '/auth/ws-ticket');
  }

  /** A WebSocket to `path` on the bridge, with a ticket minted just now. */
  async openSocket(path: string): Promise<WebSocket> {
    const { ticket } = await this.wsTicket();
    const url = new URL(path, this.origin);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('ticket', ticket);
    return new WebSocket(url);
  }

  // --- workspaces ---
  workspaces(): Promise<BridgeWorkspaceSummary[]> {
    return this.request('GET', '/workspaces');
  }

  /** What the bridge remembers of each agent's recent past (GET /workspaces/agent-history). */
  agentHistory(): Promise<AgentHistoryList> {
    return this.request('GET', '/workspaces/agent-history');
  }

  workspace(repo: string, name: string): Promise<BridgeWorkspaceStatus> {
    return this.request('GET', workspacePath(repo, name));
  }

  diff(repo: string, name: string, options: DiffOptions): Promise<string> {
    return this.request('GET', `${workspacePath(repo, name)}/diff`, {
      text: true,
      query: {
        stat: options.stat || undefined,
        staged: options.staged || undefined,
        includeUntracked: options.includeUntracked || undefined,
        range: options.range || undefined,
        paths: options.paths?.length ? options.paths : undefined,
      },
    });
  }

  createWorkspace(request: BridgeCreateWorkspaceRequest): Promise<BridgeWorkspaceSummary> {
    return this.request('POST', '/workspaces', { body: request });
  }

  activate(repo: string, name: string): Promise<{ ok: true }> {
    return this.request('POST', `${workspacePath(repo, name)}/activate`);
  }

  deactivate(repo: string, name: string): Promise<{ ok: true }> {
    return this.request('POST', `${workspacePath(repo, name)}/deactivate`);
  }

  switchBranch(repo: string, name: string, branch: string): Promise<{ ok: true }> {
    return this.request('POST', `${workspacePath(repo, name)}/branch`, { body: { branch } });
  }

  /** Pastes `text` into the workspace's session, then Enter (`POST …/input`). */
  sendInput(repo: string, name: string, text: string): Promise<{ ok: true }> {
    return this.request('POST', `${workspacePath(repo, name)}/input`, { body: { text } });
  }

  deleteWorkspace(repo: string, name: string): Promise<{ ok: true }> {
    return this.request('DELETE', workspacePath(repo, name));
  }

  terminalPath(repo: string, name: string): string {
    return `${workspacePath(repo, name)}/terminal`;
  }

  // --- ships, repos, resources, armory ---
  ships(): Promise<ShipInfo[]> {
    return this.request('GET', '/ships');
  }

  registerShip(request: RegisterShipRequest): Promise<ShipInfo> {
    return this.request('POST', '/ships', { body: request });
  }

  removeShip(name: string): Promise<{ ok: true }> {
    return this.request('DELETE', `/ships/${segment(name)}`);
  }

  repos(): Promise<Repo[]> {
    return this.request('GET', '/repos');
  }

  addRepo(request: CreateRepoRequest): Promise<Repo> {
    return this.request('POST', '/repos', { body: request });
  }

  removeRepo(name: string): Promise<{ ok: true }> {
    return this.request('DELETE', `/repos/${segment(name)}`);
  }

  branches(repo: string): Promise<RepoBranch[]> {
    return this.request('GET', `/repos/${segment(repo)}/branches`);
  }

  /** The repo's open issues, from its forge (GET /repos/:name/issues; pull requests are not among them). */
  issues(repo: string): Promise<IssueSummary[]> {
    return this.request('GET', `/repos/${segment(repo)}/issues`, { query: { state: 'open' } });
  }

  resources(): Promise<ShipSystemResources[]> {
    return this.request('GET', '/system-resources');
  }

  armory(): Promise<ArmoryManifest> {
    return this.request('GET', '/armory');
  }

  armoryShips(): Promise<ShipArmoryState[]> {
    return this.request('GET', '/armory/ships');
  }

  /** One armory file: UTF-8 text as text, anything else base64 (GET /armory/file). */
  armoryFile(path: string): Promise<ArmoryFile> {
    return this.request('GET', '/armory/file', { query: { path } });
  }

  // --- users (docs/architecture.md §7) ---
  users(): Promise<User[]> {
    return this.request('GET', '/users');
  }

  addUser(request: CreateUserRequest): Promise<User> {
    return this.request('POST', '/users', { body: request });
  }

  removeUser(name: string): Promise<{ ok: true }> {
    return this.request('DELETE', `/users/${segment(name)}`);
  }

  setRole(name: string, role: Role): Promise<User> {
    return this.request('POST', `/users/${segment(name)}/role`, { body: { role } });
  }

  /** Self or admin (POST /users/:name/email); answers the updated user. */
  setEmail(name: string, email: string): Promise<User> {
    return this.request('POST', `/users/${segment(name)}/email`, { body: { email } });
  }

  setPassword(name: string, password: string): Promise<{ ok: true }> {
    return this.request('POST', `/users/${segment(name)}/password`, { body: { password } });
  }
}
