// The ship's one gate in front of every route, run before routing and before any WebSocket upgrade:
// 1. browsers: a foreign Origin or a cross-site fetch is refused (403), so a web page cannot drive the ship;
// 2. an open ship (no SVC_BRIDGE_TOKEN) answers only Host names that are loopback, IP literals, this host or
//    configured ones (421), which defeats DNS rebinding;
// 3. with SVC_BRIDGE_TOKEN set, every route needs `Authorization: Bearer`: the bridge token reaches all,
//    a workspace MCP token only GET/POST/DELETE of its own workspace's `/mcp` (401 otherwise); the API
//    description (`GET /openapi.json`) and the probes (`GET /healthz`, `GET /readyz`) need none. `GET /metrics`
//    needs the bridge token like any other route (the unauthenticated copy is on --metrics-port).
// 4. with a pair from the token exchange (ship/tokens/), the ship is never open, even before it has one; a
//    bearer it does not know makes it fetch its pair again (rate-limited) and look once more, so the bridge's
//    first call after a rotation gets through.
// It declares its 401 on every route but the open ones (server/route-responses.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  crossOriginProblem,
  ErrorBody,
  HEALTHZ_PATH,
  hostAllowed,
  hostnameOf,
  READYZ_PATH,
  workspaceKey,
} from '../../protocol/index.js';
import { OPENAPI_PATH } from '../../server/openapi.js';
import { answer, declareAnswers } from '../../server/route-responses.js';
import type { McpTokenRegistry } from '../agents/mcp-tokens.js';
import type { ExchangedTokens } from '../tokens/exchanged-tokens.js';

export interface GuardOptions {
  bridgeToken: string | undefined;
  tokens: McpTokenRegistry;
  /** Host names an open ship answers besides loopback, IP literals and this machine's name. */
  allowedHosts: string[];
  /** The pair from the token exchange, which replaces `bridgeToken` (the ship is then never open). */
  exchanged?: Pick<ExchangedTokens, 'bridgeToken' | 'refresh'>;
}

const MCP_METHODS = new Set(['GET', 'POST', 'DELETE']);
/**
 * Paths served without a credential: they describe the ship or say whether it serves, and hold no data
 * (ship/http/openapi.ts, server/probe-routes.ts).
 */
const OPEN_PATHS = new Set([OPENAPI_PATH, HEALTHZ_PATH, READYZ_PATH]);
const sha256 = (value: string) => createHash('sha256').update(value).digest();

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** The workspace key of a `/workspaces/:repo/:name/mcp` path, or null for any other path. */
function mcpKey(url: string): string | null {
  const path = url.split('?')[0]!;
  const parts = path.split('/');
  if (parts.length !== 5 || parts[0] !== '' || parts[1] !== 'workspaces' || parts[4] !== 'mcp') return null;
  try {
    return workspaceKey(decodeURIComponent(parts[2]!), decodeURIComponent(parts[3]!));
  } catch {
    return null;
  }
}

const UNAUTHENTICATED = answer(
  "The ship has a bridge token and the request carries neither it nor this workspace's MCP token (on /mcp).",
  ErrorBody,
);

export function installRequestGuard(app: FastifyInstance, options: GuardOptions): void {
  declareAnswers(app, (route) => (OPEN_PATHS.has(route.url) ? {} : { 401: UNAUTHENTICATED }));
  const fixed = options.bridgeToken ? sha256(options.bridgeToken) : null;
  const exchanged = options.exchanged;
  let hashed: { token: string; digest: Buffer } | undefined;
  /** The digest of the bridge token in force now (the exchanged one is re-hashed only when it changes). */
  const expectedNow = (): Buffer | null => {
    if (!exchanged) return fixed;
    const token = exchanged.bridgeToken;
    if (!token) return null;
    if (hashed?.token !== token) hashed = { token, digest: sha256(token) };
    return hashed.digest;
  };
  const closed = fixed !== null || exchanged !== undefined;

  /** Why a request is refused (status and message), or null to let it through. */
  const refusal = (request: FastifyRequest): [number, string] | null => {
    const host = request.headers.host ?? '';
    const crossOrigin = crossOriginProblem({
      origin: request.headers.origin,
      host,
      secFetchSite: request.headers['sec-fetch-site'] as string | undefined,
    });
    if (crossOrigin) return [403, crossOrigin];
    if (!closed) return hostAllowed(host, options.allowedHosts) ? null : [421, `host not allowed: ${hostnameOf(host)}`];
    if (request.method === 'GET' && OPEN_PATHS.has(request.url)) return null;
    const token = bearer(request);
    if (!token) return [401, 'authentication required'];
    const expected = expectedNow();
    if (expected && timingSafeEqual(sha256(token), expected)) return null;
    const boundKey = options.tokens.resolve(token);
    if (boundKey !== null && MCP_METHODS.has(request.method) && mcpKey(request.url) === boundKey) return null;
    return [401, 'authentication required'];
  };

  // Callback style: no promise per request on the ship's hottest path.
  app.addHook('onRequest', (request, reply: FastifyReply, done) => {
    const refused = refusal(request);
    if (!refused) return done();
    if (refused[0] !== 401 || !exchanged || !bearer(request))
      return void reply.code(refused[0]).send({ error: refused[1] });
    // An unknown bearer on an exchanged pair: perhaps a rotation this ship has not fetched yet.
    void exchanged.refresh().then(() => {
      const again = refusal(request);
      if (!again) return done();
      void reply.code(again[0]).send({ error: again[1] });
    });
  });
}
