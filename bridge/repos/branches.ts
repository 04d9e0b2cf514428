// GET /repos/:name/branches: the branches a remote advertises, by `git ls-remote --heads` against the clone
// URL (never the provider's API). Non-interactive: no credential or host-key prompt, an http transfer that
// stalls for 15 s is aborted (low-speed limit) and the probe is abandoned after 20 s. Credentials in the URL
// reach git through its environment, never argv, and are redacted from every message.
import { spawn } from 'node:child_process';
import { gitEnvironment, redactUrlCredentials, splitUrlCredentials, type RepoBranch } from '../../protocol/index.js';

export const LS_REMOTE_STALL_SECONDS = 15;
export const LS_REMOTE_DEADLINE_MS = 20_000;

export class BranchListingError extends Error {}

export function parseHeads(output: string): RepoBranch[] {
  const branches: RepoBranch[] = [];
  for (const line of output.split('\n')) {
    const [sha, ref] = line.split('\t');
    if (!sha || !ref?.startsWith('refs/heads/')) continue;
    branches.push({ name: ref.slice('refs/heads/'.length), sha });
  }
  return branches.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export interface BranchProbeLimits {
  /** Abort an http transfer that moves nothing for this long. */
  stallSeconds?: number;
  /** Abandon the whole probe after this long. */
  deadlineMs?: number;
}

export function listBranches(
  url: string,
  options: { allowLocalRepos: boolean } & BranchProbeLimits,
): Promise<RepoBranch[]> {
  const split = splitUrlCredentials(url);
  const env: Record<string, string> = {
    ...gitEnvironment(process.env, { allowLocalRepos: options.allowLocalRepos }),
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o StrictHostKeyChecking=yes',
    ...split.env,
  };
  const args = [
    '-c',
    'http.lowSpeedLimit=1',
    '-c',
    `http.lowSpeedTime=${options.stallSeconds ?? LS_REMOTE_STALL_SECONDS}`,
    '-c',
    'credential.interactive=never',
    'ls-remote',
    '--heads',
    '--',
    split.url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const deadline = options.deadlineMs ?? LS_REMOTE_DEADLINE_MS;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new BranchListingError(`no answer within ${deadline / 1000} s`));
    }, deadline);
    // Error listener before touching stdio: a start that fails for lack of descriptors (EMFILE) leaves the
    // child without stdio.
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new BranchListingError(error.message));
    });
    let out = '';
    let err = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(parseHeads(out));
      else
        reject(
          new BranchListingError(
            redactUrlCredentials(
              err
                .split(/\r?\n/)
                .map((line) => line.trim())
                .filter(Boolean)
                .join(' ') || `git exited with code ${code}`,
            ),
          ),
        );
    });
  });
}
