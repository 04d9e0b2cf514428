// What ship and bridge measure alike (issue #20), one registry per server instance (no module-global default
// registry: two servers in one test process must not share counters): the process metrics prom-client
// collects, HTTP requests by route pattern and status with their latency, and open WebSocket connections by
// kind. Each server adds its own families to `registry` (bridge/metrics, ship/metrics).
//
// Cardinality: label values are route patterns (`/workspaces/:repo/:name`, never a concrete path, so never a
// repo, workspace or user name), one `unmatched` for every request no route matched, HTTP methods (Node's
// parser admits a fixed set) and status codes. Hot path: the observer of a route is made when the route is
// registered and knows its pattern; it reads fastify's own `reply.elapsedTime` (no timer of ours, no
// `request.routeOptions`, which builds an object per read) and keeps the labelled child of each method and
// status it has seen, so a request costs a map lookup and prom-client's `observe`.
//
// Node only: server/ holds what the servers share; protocol/ stays browser-safe.
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { WebSocket, WebSocketServer } from 'ws';

/** The route label of a request no route matched (404s, and requests refused before routing found none). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Seconds: from a cached read (sub-millisecond) to a clone (the ship allows ten minutes). */
const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

type SocketKind = string;

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requestSeconds: Histogram<'method' | 'route' | 'status'>;
  private readonly openSockets = new Map<SocketKind, number>();
  private readonly socketSources = new Map<SocketKind, () => number>();

  /** `prefix`: `svc_bridge_` or `svc_ship_`, in front of every family name. */
  constructor(
    readonly prefix: string,
    options: { processMetrics?: boolean } = {},
  ) {
    const registers = [this.registry];
    this.requestSeconds = new Histogram({
      name: `${prefix}http_request_duration_seconds`,
      help: 'HTTP requests by method, route pattern and status, and how long each took to answer (its _count is the request count).',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    const open = this.openSockets;
    const sources = this.socketSources;
    new Gauge({
      name: `${prefix}websocket_connections`,
      help: 'Open WebSocket connections by kind.',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        for (const [kind, count] of open) this.set({ kind }, count);
        for (const [kind, count] of sources) this.set({ kind }, count());
      },
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix });
  }

  /**
   * Observes every request `app` answers. Call before any route is registered: each route gets its observer
   * as it is added (the `onRoute` hook applies to routes registered after it).
   */
  observeHttp(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const observe = this.observer(route.url);
      route.onResponse = [...[route.onResponse ?? []].flat(), observe];
    });
    // Requests no route matched carry no route hooks; `is404` is a plain flag read (no allocation).
    const unmatched = this.observer(UNMATCHED_ROUTE);
    app.addHook('onResponse', (request, reply, done) => {
      if (request.is404) return unmatched.call(app, request, reply, done);
      done();
    });
  }

  private observer(route: string): onResponseHookHandler {
    const children = new Map<string, Map<number, ReturnType<Histogram<'method' | 'route' | 'status'>['labels']>>>();
    const histogram = this.requestSeconds;
    return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      let byStatus = children.get(request.method);
      if (!byStatus) {
        byStatus = new Map();
        children.set(request.method, byStatus);
      }
      let child = byStatus.get(reply.statusCode);
      if (!child) {
        child = histogram.labels(request.method, route, String(reply.statusCode));
        byStatus.set(reply.statusCode, child);
      }
      child.observe(reply.elapsedTime / 1000);
      done();
    };
  }

  /** Counts the WebSocket connections `server` accepts (`/events`, terminals), by kind. */
  countClientSockets(server: WebSocketServer): void {
    for (const kind of CLIENT_SOCKET_KINDS) this.openSockets.set(kind, 0);
    server.on('connection', (socket: WebSocket, request: { url?: string }) => {
      const url = request.url ?? '/';
      const query = url.indexOf('?');
      const kind = webSocketKind(query < 0 ? url : url.slice(0, query));
      this.openSockets.set(kind, (this.openSockets.get(kind) ?? 0) + 1);
      socket.once('close', () => this.openSockets.set(kind, this.openSockets.get(kind)! - 1));
    });
  }

  /** Connections of `kind` counted elsewhere (the bridge's links to its ships), read at each scrape. */
  countSocketsOf(kind: SocketKind, count: () => number): void {
    this.socketSources.set(kind, count);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

const CLIENT_SOCKET_KINDS = ['events', 'terminal'];

/** The kind of a WebSocket served at `path`: `events`, `terminal`, or `other`. */
function webSocketKind(path: string): SocketKind {
  if (path === '/events') return 'events';
  if (path.endsWith('/terminal')) return 'terminal';
  return 'other';
}
