// After a clone whose URL carried credentials (split off for the clone by protocol/url-credentials.ts, so
// they never reached argv), gives the workspace's own `origin` URL the credentials back, in its 0600 config
// file, so pushes from the workspace authenticate as the user chose.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SplitUrl } from '../../protocol/index.js';

const quote = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** Puts the credentialed URL back as the clone's `origin` URL, editing the config file (never argv). */
export async function persistUrlCredentials(workTree: string, split: SplitUrl): Promise<void> {
  if (split.credentialed) await rewriteOrigin(workTree, split.credentialed);
}

/**
 * Makes the requested URL the clone's `origin` (credentials included, in the 0600 config file): for a clone
 * made from another source, the ship's repo cache. A clone without an origin is an error here.
 */
export async function setOriginUrl(workTree: string, split: SplitUrl): Promise<void> {
  if (!(await rewriteOrigin(workTree, split.credentialed ?? split.url)))
    throw new Error(`${join(workTree, '.git', 'config')} names no origin`);
}

/** Writes `url` as origin's URL in one read and one write of the config file; false when it has no origin. */
async function rewriteOrigin(workTree: string, url: string): Promise<boolean> {
  const configPath = join(workTree, '.git', 'config');
  const config = await readFile(configPath, 'utf8');
  const section = /(\[remote "origin"\][^[]*?\n\s*url = )([^\n]*)/;
  if (!section.test(config)) return false;
  await chmod(configPath, 0o600);
  await writeFile(
    configPath,
    config.replace(section, (_match, head: string) => `${head}${quote(url)}`),
  );
  return true;
}
