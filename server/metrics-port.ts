// The separate metrics port of ship and bridge (`--metrics-port`, SVC_METRICS_PORT; issue #20): `GET /metrics`
// in Prometheus' text format and nothing else (every other path is 404, another method 405), without a
// credential, for a scraper inside the cluster. Plain node:http (plain-http-server.ts): one read-only route
// needs none of the servers' HTTP machinery. It binds the server's own listen address. Having no credential,
// it keeps the browser rules of docs/security.md H1 that an open server keeps: a foreign Origin or a cross-site fetch
// is 403, and a Host other than loopback, an IP literal or a configured name is 421 (a scraper reaching a
// pod by its IP passes; one using a DNS name lists it with --allowed-host).
//
// Node only: server/ holds what the servers share; protocol/ stays browser-safe.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PlainHttpServer } from './plain-http-server.js';
import { METRICS_PATH } from '../protocol/probes.js';
import { crossOriginProblem, hostAllowed, hostnameOf } from '../protocol/request-origin.js';
import { listenFailure } from './port-reservation.js';

export interface MetricsSource {
  readonly contentType: string;
  text(): Promise<string>;
}

export interface MetricsPortOptions {
  port: number;
  host: string;
  /** Host names answered besides loopback and IP literals. */
  allowedHosts: readonly string[];
  metrics: MetricsSource;
}

/** Starts the metrics port; its `close()` ends it. */
export function startMetricsPort(options: MetricsPortOptions): Promise<PlainHttpServer> {
  return PlainHttpServer.start({
    port: options.port,
    host: options.host,
    handle: (request, response) => answer(options, request, response),
    failed: (response, message) => send(response, 500, { error: message }),
    listenError: (error) => listenFailure(error, options.host, options.port, '--metrics-port'),
  });
}

async function answer(options: MetricsPortOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const host = request.headers.host ?? '';
  const crossOrigin = crossOriginProblem({
    origin: request.headers.origin,
    host,
    secFetchSite: request.headers['sec-fetch-site'] as string | undefined,
  });
  if (crossOrigin) return send(response, 403, { error: crossOrigin });
  if (!hostAllowed(host, options.allowedHosts))
    return send(response, 421, { error: `host not allowed: ${hostnameOf(host)}` });
  const path = (request.url ?? '/').split('?')[0];
  if (path !== METRICS_PATH)
    return send(response, 404, {
      error: `route not found: ${request.method} ${path} (this port serves only GET ${METRICS_PATH})`,
    });
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return send(response, 405, { error: `method not allowed: ${request.method} ${METRICS_PATH}` });
  }
  const body = await options.metrics.text();
  response.writeHead(200, {
    'content-type': options.metrics.contentType,
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

function send(response: ServerResponse, status: number, body: { error: string }): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  response.end(response.req.method === 'HEAD' ? undefined : text);
}
