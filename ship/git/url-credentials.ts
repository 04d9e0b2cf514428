// Keeps credentials embedded in a clone URL (`https://user:token@host/…`) out of argv, which every local
// user can read in /proc/<pid>/cmdline (security notes F6): git (and the git-remote-http it spawns) is
// handed the URL without them, and a credential helper configured through GIT_CONFIG_* variables answers
// with them from the environment (owner-only). Other helpers are reset for that call, so the token is
// never stored in the user's credential store. After the clone, the workspace's own `origin` URL gets the
// credentials back (in its 0600 config file), so pushes from the workspace authenticate as the user chose.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SplitUrl {
  /** The URL git sees in argv. */
  url: string;
  /** Environment that lets git restore the credentials; empty when the URL carries none. */
  env: Record<string, string>;
  /** The original URL, when it carried credentials. */
  credentialed: string | null;
}

const HELPER = `!f() { test "$1" = get && printf 'username=%s\\npassword=%s\\n' "$SVC_GIT_USERNAME" "$SVC_GIT_PASSWORD"; }; f`;

export function splitUrlCredentials(raw: string): SplitUrl {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { url: raw, env: {}, credentialed: null };
  }
  if (!/^https?:$/.test(parsed.protocol) || (parsed.username === '' && parsed.password === '')) {
    return { url: raw, env: {}, credentialed: null };
  }
  const username = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return {
    url: parsed.toString(),
    env: {
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'credential.helper',
      GIT_CONFIG_VALUE_0: '',
      GIT_CONFIG_KEY_1: 'credential.helper',
      GIT_CONFIG_VALUE_1: HELPER,
      SVC_GIT_USERNAME: username,
      SVC_GIT_PASSWORD: password,
    },
    credentialed: raw,
  };
}

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
