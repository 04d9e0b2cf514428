// The bridge's authentication hook: runs on every request after the browser guard and before any route
// handler or WebSocket upgrade. It resolves the principal (a `?ticket=` on a genuine upgrade, else the
// bearer header), asks the access policy, and answers 401/403 itself; routes never check auth. With
// `--insecure-no-auth` every request is an admin before any header is read (spec "Disabled authentication").
// It declares its 401 and 403 on every route it gates (server/route-responses.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorBody } from '../../protocol/index.js';
import { answer, declareAnswers } from '../../server/route-responses.js';
import { AUTHENTICATION_REQUIRED, accessOf, decide, type Access } from './access-policy.js';
import type { Authenticator } from './authenticator.js';
import { INSECURE_ADMIN, type Principal } from './principal.js';
import type { TicketBook } from './tickets.js';

export interface GuardOptions {
  insecureNoAuth: boolean;
  authenticator: Authenticator;
  tickets: TicketBook;
}

/** A real WebSocket handshake: tickets are honoured on nothing else (a plain GET neither uses nor spends one). */
export function isUpgrade(request: FastifyRequest): boolean {
  const headers = request.raw.headers;
  return (
    request.method === 'GET' &&
    headers.upgrade?.toLowerCase() === 'websocket' &&
    typeof headers['sec-websocket-key'] === 'string'
  );
}

function ticketOf(url: string): string | null {
  const query = url.indexOf('?');
  if (query < 0) return null;
  return new URLSearchParams(url.slice(query + 1)).get('ticket');
}

/** The bearer token, '' for a malformed or ambiguous header, or null for none. */
function bearerOf(request: FastifyRequest): string | null {
  const raw = request.raw.rawHeaders;
  let value: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'authorization') continue;
    if (value !== null) return ''; // two Authorization headers: refuse rather than pick one
    value = raw[i + 1]!;
  }
  if (value === null) return null;
  const match = /^bearer +(\S+)\s*$/i.exec(value);
  return match ? match[1]! : '';
}

const UNAUTHENTICATED = answer('No credential, or one the bridge does not know.', ErrorBody);
/** Who is refused a route of each access (access-policy.ts), as its 403 says. */
const FORBIDDEN: Record<Exclude<Access, 'open'>, string> = {
  user: 'A ship or ship-agent credential: the route is for users.',
  admin: 'A member, or a ship or ship-agent credential: the route is for admins.',
  'self-or-admin': 'A member changing another account, or a ship or ship-agent credential.',
  'user-or-ship': 'A ship-agent credential.',
  'user-or-agent': 'A ship credential.',
};

/** The guard's answers on a route: none on an open one. */
function guardAnswers(method: string, url: string) {
  const access = accessOf(method, url);
  if (access === undefined || access === 'open') return {};
  return { 401: UNAUTHENTICATED, 403: answer(FORBIDDEN[access], ErrorBody) };
}

/** Installs the guard on the routes registered after it. */
export function installAuthGuard(app: FastifyInstance, options: GuardOptions): void {
  app.decorateRequest('principal', null);
  // Default-deny at start-up too: every route must have a row in the access table.
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      if (!accessOf(method, route.url)) throw new Error(`route ${method} ${route.url} has no row in the access policy`);
  });
  declareAnswers(app, (route) => guardAnswers([route.method].flat()[0]!, route.url));

  const refuse = (reply: FastifyReply, status: number, message: string) =>
    void reply.code(status).send({ error: message });
  const judge = (request: FastifyRequest, reply: FastifyReply, principal: Principal | null, done: () => void) => {
    request.principal = principal;
    const path = request.url.split('?')[0]!;
    const params = request.params as { name?: string } | undefined;
    const decision = decide(principal, {
      method: request.method,
      pattern: request.routeOptions.url,
      path,
      nameParam: params?.name,
    });
    if (!decision.allow) return refuse(reply, decision.status, decision.message);
    done();
  };

  app.addHook('onRequest', (request, reply, done) => {
    if (options.insecureNoAuth) {
      request.principal = INSECURE_ADMIN;
      return done();
    }
    const ticket = isUpgrade(request) ? ticketOf(request.url) : null;
    if (ticket !== null) {
      const principal = options.tickets.redeem(ticket);
      if (!principal || (principal.sessionHash && options.authenticator.sessionExpired(principal.sessionHash))) {
        return refuse(reply, 401, AUTHENTICATION_REQUIRED);
      }
      return judge(request, reply, principal, done);
    }
    const token = bearerOf(request);
    if (token === null) return judge(request, reply, null, done);
    const cached = options.authenticator.cached(token);
    if (cached !== undefined) return judge(request, reply, cached, done);
    options.authenticator.resolve(token).then(
      (principal) => judge(request, reply, principal, done),
      (error: Error) => {
        request.log.error({ err: error }, 'credential lookup failed');
        void reply.header('retry-after', '2');
        refuse(reply, 503, 'credential store unavailable; retry shortly');
      },
    );
  });
}
