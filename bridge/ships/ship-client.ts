// HTTP calls from the bridge to one ship over kept-alive connections (node:http: fetch costs the routed
// path more than the ship's own work): the bridge token as bearer, no redirects followed (docs/security.md
// F9: a ship must not bounce a call elsewhere; a 3xx becomes a 502), a deadline per call. A transport failure
// is ShipUnreachable; whatever status the ship answers is returned as is. An idle connection is dropped a
// second before the ship's keep-alive ends (Node honours the ship's `Keep-Alive: timeout` hint only when the
// agent has a timeout of its own), and a GET that finds its reused connection already closed by the ship is
// sent once more on a fresh one: that race is not the ship being unreachable. A call still in flight when the
// client is closed (the ship removed, the bridge stopping) fails as ShipClientClosed, which says so.
import http from 'node:http';
import https from 'node:https';
import { HTTP_LIMITS } from '../../protocol/index.js';

/** Idle kept-alive connections are let go before the ship's server closes them. */
const IDLE_SOCKET_MS = HTTP_LIMITS.keepAliveTimeoutMs - 1_000;
/** What a connection the peer closed while it sat idle fails with, on its next use. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE']);

export class ShipUnreachable extends Error {}

/** The call was cut short by this client's close (the ship was removed or the bridge is stopping). */
export class ShipClientClosed extends ShipUnreachable {}

export interface ShipReply {
  status: number;
  contentType: string;
  text: string;
}

export interface ShipCall {
  method: string;
  path: string;
  body?: unknown;
  timeoutMs?: number;
}

export class ShipClient {
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;
  private readonly target: { hostname: string; port: string };
  private closed = false;

  constructor(
    readonly url: string,
    private readonly bridgeToken: string | null,
  ) {
    const parsed = new URL(url);
    const secure = parsed.protocol === 'https:';
    this.target = { hostname: parsed.hostname.replace(/^\[|\]$/g, ''), port: parsed.port };
    this.transport = secure ? https : http;
    const agentOptions = { keepAlive: true, maxSockets: 64, timeout: IDLE_SOCKET_MS };
    this.agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  /** The bridge token this ship expects (for the terminal proxy's upstream socket). */
  get token(): string | null {
    return this.bridgeToken;
  }

  call(request: ShipCall): Promise<ShipReply> {
    return this.send(request, request.method === 'GET');
  }

  private send(request: ShipCall, retryOnStaleConnection: boolean): Promise<ShipReply> {
    const headers: Record<string, string> = {};
    if (this.bridgeToken) headers.authorization = `Bearer ${this.bridgeToken}`;
    const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const outgoing = this.transport.request(
        {
          ...this.target,
          path: request.path,
          method: request.method,
          headers,
          agent: this.agent,
          timeout: request.timeoutMs ?? 10_000,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error) => reject(new ShipUnreachable(error.message)));
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            if (status >= 300 && status < 400) {
              resolve({
                status: 502,
                contentType: 'application/json',
                text: JSON.stringify({
                  error: `ship at ${this.url} answered a redirect (${status}), which the bridge does not follow`,
                }),
              });
              return;
            }
            resolve({
              status,
              contentType: response.headers['content-type'] ?? '',
              text: Buffer.concat(chunks).toString('utf8'),
            });
          });
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${request.timeoutMs ?? 10_000} ms`)));
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (this.closed)
          reject(new ShipClientClosed(`call to ${this.url} abandoned: the ship was removed or the bridge is stopping`));
        else if (retryOnStaleConnection && outgoing.reusedSocket && STALE_CONNECTION_CODES.has(error.code ?? ''))
          resolve(this.send(request, false));
        else reject(new ShipUnreachable(error.message));
      });
      outgoing.end(payload);
    });
  }

  close(): void {
    this.closed = true;
    this.agent.destroy();
  }
}

/** The ship's JSON body, or null when it is not JSON. */
export function parseJson(reply: ShipReply): unknown {
  try {
    return JSON.parse(reply.text);
  } catch {
    return null;
  }
}
