// The ship's Prometheus metrics (issue #20), served at GET /metrics (behind the same guard as every other
// route) and on the optional --metrics-port: the families every server has (server/server-metrics.ts:
// process, HTTP, WebSocket connections by kind) and the ship's own, all named `svc_ship_…`:
//   workspaces by state (read from the workspace service at each scrape);
//   terminal frames sent (grid, patch) and resyncs clients asked for;
//   git processes by subcommand and result, with their latency.
// Label values are bounded: `active`/`inactive`, frame types, git subcommands (written in the ship's code,
// never taken from a request), results; the repo caches' URLs (without credentials). Never a repo or
// workspace name. The components that count hold the
// small observer interfaces they declare, not this class.
import { Counter, Gauge, Histogram } from 'prom-client';
import { ServerMetrics } from '../../server/server-metrics.js';
import type { SpawnRequest, SpawnResult, Spawner } from '../processes/spawner.js';
import type { TerminalMetrics } from '../terminal/terminal-connection.js';
import type { RepoCacheInfo, RepoCacheObserver } from '../workspaces/repo-cache.js';

/** Seconds: a `rev-parse` takes milliseconds, a clone may take the ten minutes the ship allows. */
const GIT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600];

type GitResult = 'ok' | 'failed' | 'timeout' | 'error';

export class ShipMetrics extends ServerMetrics {
  private readonly frames: Counter<'type'>;
  private readonly frameCounters: Record<'grid' | 'patch', { inc(): void }>;
  private readonly resyncs: Counter;
  private readonly gitSpawns: Counter<'command' | 'result'>;
  private readonly gitSeconds: Histogram<'command'>;
  private workspaces: (() => Promise<ReadonlyArray<{ active: boolean }>>) | null = null;
  private repoCaches: (() => Promise<ReadonlyArray<RepoCacheInfo>>) | null = null;
  private readonly cacheUses: Counter<'result'>;

  constructor(options: { processMetrics?: boolean } = {}) {
    super('svc_ship_', options);
    const registers = [this.registry];
    this.frames = new Counter({
      name: 'svc_ship_terminal_frames_total',
      help: 'Terminal frames sent to clients, by type (grid, patch).',
      labelNames: ['type'],
      registers,
    });
    // Bound once: a frame is counted without prom-client hashing a label object on the terminal's hot path.
    this.frameCounters = { grid: this.frames.labels('grid'), patch: this.frames.labels('patch') };
    this.resyncs = new Counter({
      name: 'svc_ship_terminal_resyncs_total',
      help: 'Resyncs terminal clients asked for (each answered with a full grid).',
      registers,
    });
    this.gitSpawns = new Counter({
      name: 'svc_ship_git_spawns_total',
      help: 'git processes run, by subcommand and result (ok, failed: non-zero exit, timeout, error: could not start).',
      labelNames: ['command', 'result'],
      registers,
    });
    this.gitSeconds = new Histogram({
      name: 'svc_ship_git_duration_seconds',
      help: 'How long each git process ran, by subcommand.',
      labelNames: ['command'],
      buckets: GIT_BUCKETS,
      registers,
    });
    // The repo caches (issue #29): one series per cache, labelled by its URL without credentials (bounded
    // by the repos this ship has cloned, removed with the cache).
    this.cacheUses = new Counter({
      name: 'svc_repo_cache_uses_total',
      help: 'Creates through a repo cache, by result (hit: found it; miss: filled it).',
      labelNames: ['result'],
      registers,
    });
    const caches = () => this.repoCaches?.() ?? Promise.resolve([]);
    new Gauge({
      name: 'svc_repo_cache_bytes',
      help: 'Disk used by each repo cache (hard-linked files counted once).',
      labelNames: ['url'],
      registers,
      async collect() {
        this.reset();
        for (const cache of await caches()) this.set({ url: cache.url }, cache.bytes);
      },
    });
    new Gauge({
      name: 'svc_repo_cache_last_use_seconds',
      help: 'When a create last used each repo cache (Unix time).',
      labelNames: ['url'],
      registers,
      async collect() {
        this.reset();
        for (const cache of await caches()) this.set({ url: cache.url }, Math.floor(cache.lastUse / 1000));
      },
    });
    const list = () => this.workspaces?.() ?? Promise.resolve([]);
    new Gauge({
      name: 'svc_ship_workspaces',
      help: 'Workspaces on this ship by state (active, inactive).',
      labelNames: ['state'],
      registers,
      async collect() {
        const workspaces = await list();
        const active = workspaces.filter((workspace) => workspace.active).length;
        this.set({ state: 'active' }, active);
        this.set({ state: 'inactive' }, workspaces.length - active);
      },
    });
  }

  /** The repo caches are read through `list` at each scrape (svc_repo_cache_bytes, _last_use_seconds). */
  watchRepoCaches(list: () => Promise<ReadonlyArray<RepoCacheInfo>>): void {
    this.repoCaches = list;
  }

  /** Counts the creates that found their repo's cache (hit) or filled it (miss). */
  readonly repoCache: RepoCacheObserver = {
    hit: () => this.cacheUses.inc({ result: 'hit' }),
    miss: () => this.cacheUses.inc({ result: 'miss' }),
  };

  /** The workspaces are read through `list` at each scrape. */
  watchWorkspaces(list: () => Promise<ReadonlyArray<{ active: boolean }>>): void {
    this.workspaces = list;
  }

  /** For each terminal connection (terminal/terminal-connection.ts). */
  readonly terminal: TerminalMetrics = {
    frameSent: (type) => this.frameCounters[type].inc(),
    resyncRequested: () => this.resyncs.inc(),
  };

  /** `spawner` with every process it runs counted and timed as a git call (give it to the GitRunner only). */
  timedGit(spawner: Spawner): Spawner {
    const observe = (request: SpawnRequest, start: number, result: GitResult) => {
      const command = gitSubcommand(request);
      this.gitSpawns.inc({ command, result });
      this.gitSeconds.observe({ command }, (performance.now() - start) / 1000);
    };
    return {
      start: spawner.start?.bind(spawner),
      close: () => spawner.close(),
      async run(request, abort): Promise<SpawnResult> {
        const start = performance.now();
        try {
          const result = await spawner.run(request, abort);
          observe(request, start, result.timedOut ? 'timeout' : result.code === 0 ? 'ok' : 'failed');
          return result;
        } catch (error) {
          observe(request, start, 'error');
          throw error;
        }
      },
    };
  }
}

/** `clone` of the runner's `what: 'git clone'`; anything unexpected is `other` (the label stays bounded). */
function gitSubcommand(request: SpawnRequest): string {
  const what = request.what ?? '';
  const command = what.startsWith('git ') ? what.slice(4) : '';
  return /^[a-z][a-z-]{0,30}$/.test(command) ? command : 'other';
}
