// What `svc launch` says before it opens the bridge's embedded store, so the seconds PGlite takes are not
// silence before the first prompt (issue #15 item 5): creating the store on the first start takes 5-16 s,
// opening it later 2-4 s. Nothing for PostgreSQL, which answers at once.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { shownPath } from '../shown-path.js';

export function storeNotice(
  bridge: { dataDirectory: string; databaseUrl?: string },
  cwd = process.cwd(),
): string | null {
  if (bridge.databaseUrl) return null;
  const shown = shownPath(bridge.dataDirectory, cwd);
  return existsSync(join(bridge.dataDirectory, 'db'))
    ? `opening the embedded store in ${shown}…`
    : `preparing the embedded store in ${shown} (first start takes a few seconds)…`;
}
