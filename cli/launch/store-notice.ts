// What `svc launch` says before it opens the bridge's embedded store, so the seconds PGlite takes are not
// silence before the first prompt (issue #15 item 5): creating the store on the first start takes 5-16 s,
// opening it later 2-4 s. Nothing for PostgreSQL, which answers at once. The path is shown as the user
// would type it: relative to the working directory when it lies inside it.
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';

export function storeNotice(bridge: { dataDirectory: string; databaseUrl?: string }, cwd = process.cwd()): string | null {
  if (bridge.databaseUrl) return null;
  const inside = relative(cwd, bridge.dataDirectory);
  const shown = inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? bridge.dataDirectory : `./${inside}`;
  return existsSync(join(bridge.dataDirectory, 'db'))
    ? `opening the embedded store in ${shown}…`
    : `preparing the embedded store in ${shown} (first start takes a few seconds)…`;
}
