// The pinned outside tools some tests drive as black boxes (kubectl, helm, the agent harness CLIs), where
// to find them, and what happens when one is missing: outside CI the test is skipped with a notice saying
// how to install it; under CI=true it fails, because `.ci/run` installs every one of them and a CI run
// that silently skipped them would pass having tested nothing.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';

// The suite replaces HOME (global-setup.ts): the cache lives under the real one.
export const CI_CACHE = process.env.SVC_CI_CACHE || join(userInfo().homedir, '.cache', 'svc-ci');
const K8S_TOOLS = join(CI_CACHE, 'k8s-tools-v33-2.2.2');

export const KUBECTL_VERSION = 'v1.33.9';
export const KUBECTL = process.env.SVC_KUBECTL || join(K8S_TOOLS, 'kubectl');
export const HELM = process.env.SVC_HELM || join(K8S_TOOLS, 'helm');
export const K8S_TOOLS_HINT = 'install them with `bash test/kube/install-kubectl.sh` (or set SVC_KUBECTL / SVC_HELM)';

/**
 * Whether the tool at `path` is there. When it is not: under CI=true this throws (the test file fails);
 * otherwise it prints `who: skipped: …` with `hint` and returns false, for `describe.skipIf(!found)`.
 */
export function toolAvailable(path: string, who: string, hint: string): boolean {
  if (existsSync(path)) return true;
  const message = `${who}: ${path} not found; ${hint}`;
  if (process.env.CI === 'true')
    throw new Error(`CI=true but a pinned tool is missing (.ci/run installs it): ${message}`);
  console.warn(`${who}: skipped: ${message}`);
  return false;
}
