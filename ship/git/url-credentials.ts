// Keeps credentials embedded in a clone URL (`https://user:token@host/…`) out of argv, which every local
// user can read in /proc/<pid>/cmdline (security notes F6): git (and the git-remote-http it spawns) is
// handed the URL without them, and a credential helper configured through GIT_CONFIG_* variables answers
// with them from the environment (owner-only). Other helpers are reset for that call, so the token is
// never stored in the user's credential store. After the clone, the workspace's own `origin` URL gets the
// credentials back (in its 0600 config file), so pushes from the workspace authenticate as the user chose.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SplitUrl } from '../../protocol/index.js';

export { splitUrlCredentials, type SplitUrl } from '../../protocol/index.js';

const quote = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** Puts the credentialed URL back as the clone's `origin` URL, editing the config file (never argv). */
export async function persistUrlCredentials(workTree: string, split: SplitUrl): Promise<void> {
  if (!split.credentialed) return;
  const configPath = join(workTree, '.git', 'config');
  const config = await readFile(configPath, 'utf8');
  const section = /(\[remote "origin"\][^[]*?\n\s*url = )([^\n]*)/;
  if (!section.test(config)) return;
  await chmod(configPath, 0o600);
  await writeFile(configPath, config.replace(section, (_match, head: string) => `${head}${quote(split.credentialed!)}`));
}
