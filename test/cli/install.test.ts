// The CLI installed the way the README says (`npm install -g .` in the checkout, here under a scratch
// prefix) runs as `svc` from PATH, and every hint names the command as the user ran it: `svc …` when
// installed, `npx svc …` through npx. Completion scripts complete `svc` on PATH; under npx they say so.
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempRoot, removeRoot } from '../helpers/ship.js';
import { startNpx } from '../helpers/npx.js';
import { freePort } from '../helpers/ports.js';

const run = promisify(execFile);
const CHECKOUT = resolve(import.meta.dirname, '../..');
let root: string;
let svc: string;

beforeAll(async () => {
  root = await makeTempRoot();
  const prefix = join(root, 'global');
  await run('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', '.'], {
    cwd: CHECKOUT,
    timeout: 120_000,
  });
  svc = join(prefix, 'bin', 'svc');
}, 150_000);
afterAll(async () => {
  await removeRoot(root);
});

async function installed(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(svc, args, { timeout: 20_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the installed CLI', () => {
  it('runs as svc from the install prefix', async () => {
    expect((await installed(['--version'])).stdout.trim()).toBe('0.1.0');
  });

  it('names itself `svc` in hints when installed, `npx svc` through npx', async () => {
    const port = await freePort();
    const hint = (svc: string) =>
      `svc: cannot reach http://localhost:${port} (ECONNREFUSED): is the bridge running? start one with \`${svc} launch\` (or \`${svc} bridge\`)\n`;
    const direct = await installed(['client', '--bridge-url', String(port), 'ls']);
    expect(direct.code).toBe(1);
    expect(direct.stderr).toBe(hint('svc'));
    const viaNpx = startNpx(['client', '--bridge-url', String(port), 'ls']);
    expect(await viaNpx.exited).toBe(1);
    expect(viaNpx.output()).toContain(hint('npx svc'));
  }, 60_000);

  it('completes `svc` on PATH, and says so when generated through npx', async () => {
    const direct = await installed(['completion', 'bash']);
    expect(direct.stdout).toContain('complete -o default -F _svc_complete svc\n');
    expect(direct.stdout.split('\n')[0]).toBe('# svc completion for bash: eval "$(svc completion bash)"');
    expect(direct.stderr).toBe('');
    const viaNpx = startNpx(['completion', 'bash']);
    expect(await viaNpx.exited).toBe(0);
    expect(viaNpx.output()).toContain(
      'svc: this completes `svc` on PATH; install the CLI with `npm install -g .` in the checkout (README "Installing the CLI")\n',
    );
  }, 60_000);
});
