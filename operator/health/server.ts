// The operator's probe and metrics server on --health-port (default 8081), apart from anything else:
// GET /healthz — 200 while the process serves (liveness: the event loop answers);
// GET /readyz  — 200 once every cache has completed its first list, else 503 (a replica that is not the
//                leader is ready too: it is a warm standby, and a Deployment rollout must be able to proceed);
// GET /metrics — Prometheus text format.
// Anything else is 404, any other method 405. Plain node:http: three read-only routes carry no credentials
// and need none of the bridge's HTTP machinery; it binds all interfaces because the kubelet probes the pod IP.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PlainHttpServer } from '../../server/plain-http-server.js';
import type { OperatorMetrics } from './metrics.js';

export interface HealthServerOptions {
  port: number;
  host?: string;
  metrics: OperatorMetrics;
  /** Why the operator is not ready, or undefined when it is. */
  notReady(): string | undefined;
}

/** Starts the probe port; its `close()` ends it. */
export function startHealthServer(options: HealthServerOptions): Promise<PlainHttpServer> {
  return PlainHttpServer.start({
    port: options.port,
    host: options.host ?? '0.0.0.0',
    handle: (request, response) => answer(options, request, response),
    failed: (response, message) => send(response, 500, `${message}\n`),
  });
}

async function answer(options: HealthServerOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (!['/healthz', '/readyz', '/metrics'].includes(path)) return send(response, 404, 'not found\n');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    return send(response, 405, 'method not allowed\n');
  }
  if (path === '/healthz') return send(response, 200, 'ok\n');
  if (path === '/readyz') {
    const reason = options.notReady();
    return reason ? send(response, 503, `not ready: ${reason}\n`) : send(response, 200, 'ok\n');
  }
  const body = await options.metrics.text();
  return send(response, 200, body, options.metrics.contentType);
}

function send(response: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  response.writeHead(status, {
    'Content-Type': contentType,
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}
