// What `svc client attach` checks before it takes over the screen: the workspace exists (else the API's 404)
// and is active (else one line saying how to activate it). Without this the terminal socket's `exit 1` for
// a missing or inactive workspace flashed the alternate screen and left the user with nothing but exit 1.
import type { ApiClient } from '../api/api-client.js';
import { svcCommand } from '../invocation.js';
import { workspacePath } from './workspace-key.js';

/**
 * Throws unless `repo/name` is active. `target` is the connection flags as the user gave them (`--url 4701`,
 * `--bridge-url …`), repeated in the hint so its command reaches the same server.
 */
export async function ensureAttachable(api: ApiClient, repo: string, name: string, target: string[]): Promise<void> {
  const status = await api.call<{ state?: unknown }>('GET', workspacePath(repo, name));
  if (status.state === 'active') return;
  const activate = [svcCommand(), 'client', ...target, 'activate', repo, name].join(' ');
  throw new Error(`${repo}/${name} is not active; run \`${activate}\` first`);
}
