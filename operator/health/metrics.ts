// The operator's Prometheus metrics (served at /metrics by server.ts), one registry per operator instance (no
// module-global default registry: two runtimes in one test process must not share counters). Names follow
// Prometheus conventions (`_total` counters, `_seconds` histograms) under the prefix `svc_operator_`.
// Label values are bounded: reconciler kinds, outcomes, resource plurals, restart reasons, HTTP methods,
// route templates (never a concrete path with a ship or repo name in it) and status codes.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ReconcileOutcome } from '../runtime/queue.js';
import type { WatchRestartReason } from '../runtime/watch.js';

export class OperatorMetrics {
  readonly registry = new Registry();
  private readonly reconciles: Counter<'kind' | 'result'>;
  private readonly reconcileSeconds: Histogram<'kind'>;
  private readonly watchRestarts: Counter<'resource' | 'reason'>;
  private readonly bridgeSeconds: Histogram<'method' | 'route' | 'status'>;
  private readonly leader: Gauge;
  private readonly depthSources = new Map<string, () => number>();

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.reconciles = new Counter({
      name: 'svc_operator_reconciles_total',
      help: 'Reconciles by kind and result (success, requeue, error).',
      labelNames: ['kind', 'result'],
      registers,
    });
    this.reconcileSeconds = new Histogram({
      name: 'svc_operator_reconcile_duration_seconds',
      help: 'Time one reconcile took.',
      labelNames: ['kind'],
      registers,
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    });
    const sources = this.depthSources;
    new Gauge({
      name: 'svc_operator_queue_depth',
      help: 'Keys waiting to be reconciled, by kind.',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        for (const [kind, depth] of sources) this.set({ kind }, depth());
      },
    });
    this.watchRestarts = new Counter({
      name: 'svc_operator_watch_restarts_total',
      help: 'Watches started again, by resource and reason (closed, expired, silent, error, resync).',
      labelNames: ['resource', 'reason'],
      registers,
    });
    this.bridgeSeconds = new Histogram({
      name: 'svc_operator_bridge_request_duration_seconds',
      help: "Latency of the operator's calls to the bridge API.",
      labelNames: ['method', 'route', 'status'],
      registers,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    });
    this.leader = new Gauge({
      name: 'svc_operator_leader',
      help: '1 while this replica holds the leader lease (or runs without leader election).',
      registers,
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'svc_operator_' });
  }

  reconciled(kind: string, result: ReconcileOutcome, seconds: number): void {
    this.reconciles.inc({ kind, result });
    this.reconcileSeconds.observe({ kind }, seconds);
  }

  /** The queue depth gauge reads `depth` for `kind` at each scrape. */
  trackQueue(kind: string, depth: () => number): void {
    this.depthSources.set(kind, depth);
  }

  watchRestarted(resource: string, reason: WatchRestartReason): void {
    this.watchRestarts.inc({ resource, reason });
  }

  /** For the bridge client: `route` is the route template ('/ships/:name'), never a concrete path. */
  observeBridgeCall(method: string, route: string, status: number | 'error', seconds: number): void {
    this.bridgeSeconds.observe({ method: method.toUpperCase(), route, status: String(status) }, seconds);
  }

  setLeader(leading: boolean): void {
    this.leader.set(leading ? 1 : 0);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
