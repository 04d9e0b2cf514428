// The bridge's Prometheus metrics (issue #20), served at GET /metrics (needs a user credential) and on the
// optional --metrics-port: the families every server has (server/server-metrics.ts: process, HTTP,
// WebSocket connections by kind) and the bridge's own, all named `svc_bridge_…`:
//   events relayed to `/events` subscribers (by event type) and subscribers dropped for falling behind;
//   ships by status and workspaces by state (read from the registry at each scrape);
//   store query latency; login failures.
// Label values are bounded: event types, `online`/`offline`, `active`/`inactive`, `ok`/`error`. Never a
// ship, repo, workspace or user name. The components that count hold the small observer interfaces below,
// not this class, so they do not depend on prom-client.
import { Counter, Gauge, Histogram } from 'prom-client';
import { ServerMetrics } from '../../server/server-metrics.js';

export interface FleetView {
  /** The registered ships with their status. */
  ships(): ReadonlyArray<{ status: 'online' | 'offline' }>;
  /** The aggregate's workspaces. */
  workspaces(): ReadonlyArray<{ active: boolean }>;
}

/** Seconds: an indexed read on a local store takes well under a millisecond; the client's deadline is 10 s. */
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class BridgeMetrics extends ServerMetrics {
  private readonly relayed: Counter<'type'>;
  private readonly dropped: Counter;
  private readonly querySeconds: Histogram<'outcome'>;
  private readonly loginFailures: Counter;
  private fleet: FleetView | null = null;

  constructor(options: { processMetrics?: boolean } = {}) {
    super('svc_bridge_', options);
    const registers = [this.registry];
    this.relayed = new Counter({
      name: 'svc_bridge_events_relayed_total',
      help: 'Events sent on to /events subscribers (one per broadcast, whatever the number of subscribers), by type.',
      labelNames: ['type'],
      registers,
    });
    this.dropped = new Counter({
      name: 'svc_bridge_event_subscribers_dropped_total',
      help: '/events subscribers closed (1009) because too much waited for them.',
      registers,
    });
    this.querySeconds = new Histogram({
      name: 'svc_bridge_store_query_duration_seconds',
      help: 'Store queries (and transactions), how long each took, by outcome (ok, error).',
      labelNames: ['outcome'],
      buckets: QUERY_BUCKETS,
      registers,
    });
    this.loginFailures = new Counter({
      name: 'svc_bridge_login_failures_total',
      help: 'POST /auth/login answered 401 (wrong username or password).',
      registers,
    });
    const fleet = () => this.fleet;
    new Gauge({
      name: 'svc_bridge_ships',
      help: 'Registered ships by status (online, offline).',
      labelNames: ['status'],
      registers,
      collect() {
        const ships = fleet()?.ships() ?? [];
        const online = ships.filter((ship) => ship.status === 'online').length;
        this.set({ status: 'online' }, online);
        this.set({ status: 'offline' }, ships.length - online);
      },
    });
    new Gauge({
      name: 'svc_bridge_workspaces',
      help: "Workspaces of the aggregate (every ship's, as last reported) by state (active, inactive).",
      labelNames: ['state'],
      registers,
      collect() {
        const workspaces = fleet()?.workspaces() ?? [];
        const active = workspaces.filter((workspace) => workspace.active).length;
        this.set({ state: 'active' }, active);
        this.set({ state: 'inactive' }, workspaces.length - active);
      },
    });
  }

  /** Ships and workspaces are read from `fleet` at each scrape; so is the number of ship links (online ships). */
  watchFleet(fleet: FleetView): void {
    this.fleet = fleet;
    // A ship is online while its event stream to the bridge is open and has synced: one WebSocket each.
    this.countSocketsOf('ship', () => fleet.ships().filter((ship) => ship.status === 'online').length);
  }

  /** For the event hub (events/event-hub.ts). */
  readonly events = {
    relayed: (type: string) => this.relayed.inc({ type }),
    dropped: () => this.dropped.inc(),
  };

  /** For the store (store/timed-database.ts). */
  readonly queried = (seconds: number, outcome: 'ok' | 'error') => this.querySeconds.observe({ outcome }, seconds);

  /** For the accounts (auth/accounts.ts). */
  readonly loginFailed = () => this.loginFailures.inc();
}
