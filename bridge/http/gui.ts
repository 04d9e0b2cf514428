// Serves the GUI (docs/architecture.md §1, §7): the static build of web/ (dist/web) at /ui/, with `GET /` and `GET /ui`
// redirecting there. These paths are open in the access policy (they hold no data); everything else stays
// default-deny. A path under /ui/ that names a built file gets that file (hashed assets cached for a year,
// the rest revalidated); any other path gets index.html, so the GUI's client routes load on a reload. Only
// files listed at start-up are ever served, so no request path reaches the file system. @fastify/static
// does the serving (content types, ETag, ranges, HEAD). Every answer carries the GUI's security headers
// (docs/security.md H21). It owns nothing about the API: the GUI calls the same routes as the CLI.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GUI_PREFIX = '/ui/';

/**
 * `connect-src 'self'` covers the same-origin `ws:`/`wss:` sockets in CSP Level 3 browsers (Chromium checks
 * this in test/web). Styles fall back to default-src 'self': the build has no inline style or script.
 */
export const GUI_CSP =
  "default-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const GUI_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': GUI_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/**
 * dist/web of the checkout or image this module runs from (source under tsx/vitest, or compiled dist/), by
 * its real path: dist is a link to the build in use (bin/build.js), and a bridge keeps serving the build it
 * started with when a new one is swapped in.
 */
export function defaultWebDirectory(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  const web = join(directory, 'dist', 'web');
  return existsSync(web) ? realpathSync(web) : web;
}

/** Every file under `root`, as a `/`-separated relative path. */
function builtFiles(root: string): Set<string> {
  const files = new Set<string>();
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.add(relative(root, path).split(sep).join('/'));
    }
  };
  walk(root);
  return files;
}

function withGuiHeaders(reply: FastifyReply): FastifyReply {
  return reply.headers(GUI_HEADERS);
}

export async function installGui(app: FastifyInstance, webDirectory: string): Promise<void> {
  const built = existsSync(join(webDirectory, 'index.html')) && statSync(webDirectory).isDirectory();
  const files = built ? builtFiles(webDirectory) : new Set<string>();
  if (built) await app.register(fastifyStatic, { root: webDirectory, serve: false, cacheControl: false });

  const redirect = (_request: unknown, reply: FastifyReply) => withGuiHeaders(reply).redirect(GUI_PREFIX, 302);
  app.get('/', { schema: { hide: true } }, redirect);
  app.get('/ui', { schema: { hide: true } }, redirect);
  app.get(`${GUI_PREFIX}*`, { schema: { hide: true } }, (request, reply) => {
    withGuiHeaders(reply);
    if (!built) {
      return reply.code(503).send({ error: 'the GUI is not built: run `npm run build` in the checkout' });
    }
    const path = (request.params as { '*': string })['*'];
    if (files.has(path) && path !== 'index.html') {
      reply.header('cache-control', path.startsWith('assets/') ? IMMUTABLE : REVALIDATE);
      return reply.sendFile(path);
    }
    // A hashed asset that is not there is a stale page asking for an old build: 404, never index.html.
    if (path.startsWith('assets/')) return reply.code(404).send({ error: `not found: ${GUI_PREFIX}${path}` });
    reply.header('cache-control', REVALIDATE);
    return reply.sendFile('index.html');
  });
}
