// Who may reach which bridge route (spec "Principals" and the endpoint table's "Who" column), as one table
// keyed by method and route pattern, and the decision for a principal. Pure: the guard feeds it the route
// fastify matched (so `/%75sers` is judged as `/users`), and the bridge refuses to start when a route has
// no row, so a new route is never reachable by accident. A path no route matches needs a user, or the
// ship-agent under `/repos`: unknown paths are gated like known ones (rule 3).
import type { Principal } from './principal.js';

export type Access =
  /** No credential needed (the credential, if any, is still resolved: logout revokes it). */
  | 'open'
  | 'user'
  | 'admin'
  /** A user acting on their own account (`:name`), or an admin. */
  | 'self-or-admin'
  | 'user-or-ship'
  | 'user-or-agent';

export const ROUTE_ACCESS: Readonly<Record<string, Access>> = {
  'POST /auth/login': 'open',
  'GET /auth/mode': 'open',
  // The API description (bridge/http/openapi.ts): no data in it.
  'GET /openapi.json': 'open',
  // Probes (issue #20): whether the bridge serves and is ready; no data in them, and a kubelet has no credential.
  'GET /healthz': 'open',
  // The GUI's static files and the redirects to them (docs/architecture.md §7, a deliberate addition): no data in them.
  'GET /': 'open',
  'GET /ui': 'open',
  'GET /ui/*': 'open',
  'GET /readyz': 'open',
  // Prometheus metrics: any user (the unauthenticated copy is on --metrics-port, alone).
  'GET /metrics': 'user',
  'POST /auth/logout': 'open',
  'GET /auth/me': 'user',
  'POST /auth/ws-ticket': 'user',
  'GET /users': 'admin',
  'POST /users': 'admin',
  'DELETE /users/:name': 'admin',
  'POST /users/:name/role': 'admin',
  'POST /users/:name/password': 'self-or-admin',
  'POST /users/:name/email': 'self-or-admin',
  'GET /ships': 'user',
  'POST /ships': 'admin',
  'DELETE /ships/:name': 'admin',
  // The operator forwards a draining node's report of unpushed work (issue #30): it logs in as an admin.
  'POST /ships/:name/drain-report': 'admin',
  'GET /ships/:ship/system-resources': 'user',
  'GET /system-resources': 'user',
  'GET /repos': 'user-or-agent',
  'POST /repos': 'user-or-agent',
  'DELETE /repos/:name': 'user-or-agent',
  'GET /repos/:name/branches': 'user-or-agent',
  // The forge routes (docs/architecture.md §8): members and the ship-agent read, comment and review.
  'GET /repos/:name/info': 'user-or-agent',
  'GET /repos/:name/issues': 'user-or-agent',
  'GET /repos/:name/issues/:number': 'user-or-agent',
  'POST /repos/:name/issues/:number/comments': 'user-or-agent',
  'GET /repos/:name/pulls': 'user-or-agent',
  'GET /repos/:name/pulls/:number': 'user-or-agent',
  'POST /repos/:name/pulls/:number/comments': 'user-or-agent',
  'POST /repos/:name/pulls/:number/reviews': 'user-or-agent',
  'GET /repos/:name/checks': 'user-or-agent',
  'GET /repos/:name/checks/logs': 'user-or-agent',
  'GET /armory': 'user-or-ship',
  'GET /armory/file': 'user-or-ship',
  'GET /armory/ships': 'user',
  'GET /workspaces': 'user',
  'GET /workspaces/agent-history': 'user',
  'POST /workspaces': 'user',
  'POST /workspaces/sweep': 'user',
  'GET /workspaces/:repo/:name': 'user',
  'GET /workspaces/:repo/:name/diff': 'user',
  'POST /workspaces/:repo/:name/branch': 'user',
  'POST /workspaces/:repo/:name/activate': 'user',
  'POST /workspaces/:repo/:name/deactivate': 'user',
  'POST /workspaces/:repo/:name/input': 'user',
  'DELETE /workspaces/:repo/:name': 'user',
  'GET /workspaces/:repo/:name/terminal': 'user',
  'GET /events': 'user',
};

/** The table row for a route; HEAD is judged as the GET it mirrors. */
export function accessOf(method: string, pattern: string): Access | undefined {
  return ROUTE_ACCESS[`${method === 'HEAD' ? 'GET' : method} ${pattern}`];
}

export interface RequestTarget {
  method: string;
  /** The matched route pattern, or undefined when no route matches. */
  pattern: string | undefined;
  /** The request path (before `?`), for unmatched requests. */
  path: string;
  /** `:name` of the matched route, decoded. */
  nameParam?: string;
}

export type Decision = { allow: true } | { allow: false; status: 401 | 403; message: string };

const ALLOW: Decision = { allow: true };
const deny = (status: 401 | 403, message: string): Decision => ({ allow: false, status, message });
export const AUTHENTICATION_REQUIRED = 'authentication required';
export const ADMIN_REQUIRED = 'this endpoint requires an admin';
export const OWN_ACCOUNT_ONLY = 'you may only change your own account';

export function decide(principal: Principal | null, target: RequestTarget): Decision {
  const access: Access =
    target.pattern === undefined
      ? target.path === '/repos' || target.path.startsWith('/repos/')
        ? 'user-or-agent'
        : 'user'
      : (accessOf(target.method, target.pattern) ?? 'admin');
  if (access === 'open') return ALLOW;
  if (!principal) return deny(401, AUTHENTICATION_REQUIRED);
  const wrongKind = () => deny(403, `a ${principal.kind} credential may not reach ${target.method} ${target.path}`);
  if (principal.kind === 'ship') return access === 'user-or-ship' ? ALLOW : wrongKind();
  if (principal.kind === 'ship-agent') return access === 'user-or-agent' ? ALLOW : wrongKind();
  const { user } = principal;
  if (access === 'admin' && user.role !== 'admin') return deny(403, ADMIN_REQUIRED);
  if (
    access === 'self-or-admin' &&
    user.role !== 'admin' &&
    target.nameParam?.toLowerCase() !== user.username.toLowerCase()
  ) {
    return deny(403, OWN_ACCOUNT_ONLY);
  }
  return ALLOW;
}
