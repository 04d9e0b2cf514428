// The bridge's browser guard, before routing and before any upgrade (docs/security.md H1): foreign Origins and
// cross-site fetches are refused (403); while authentication is off, so is a Host that is not loopback, an
// IP literal or configured (421, DNS rebinding). Authentication plugs in after it as its own hook.
import type { FastifyInstance } from 'fastify';
import { crossOriginProblem, hostAllowed, hostnameOf } from '../../protocol/index.js';

export interface BrowserGuardOptions {
  /** Origins besides the request's own (the public URL's origin). */
  allowedOrigins: string[];
  /** Host names an unauthenticated bridge answers besides loopback and IP literals. */
  allowedHosts: string[];
  authenticated: boolean;
}

export function installBrowserGuard(app: FastifyInstance, options: BrowserGuardOptions): void {
  app.addHook('onRequest', (request, reply, done) => {
    const host = request.headers.host ?? '';
    const problem = crossOriginProblem({
      origin: request.headers.origin,
      host,
      secFetchSite: request.headers['sec-fetch-site'] as string | undefined,
      allowedOrigins: options.allowedOrigins,
    });
    if (problem) return void reply.code(403).send({ error: problem });
    if (!options.authenticated && !hostAllowed(host, options.allowedHosts)) {
      return void reply.code(421).send({ error: `host not allowed: ${hostnameOf(host)}` });
    }
    done();
  });
}
