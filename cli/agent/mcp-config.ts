// `svc agent mcp-config`: the action behind the command (agent-command.ts loads it on use). Discovers the
// workspace and its ship, then per harness prints the entry, merges it into the harness's file (`--write`),
// and/or connects as the harness would (`--check`). Which file and entry each harness gets: harnesses.ts.
import { execFile } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { jsonFragment, mergeJsonc, mergeToml, tomlFragment } from './config-files.js';
import { HARNESSES, planFor, type Harness, type HarnessPlan } from './harnesses.js';
import { checkHarness } from './mcp-check.js';
import { findWorkspace, type WorkspaceLocation } from './workspace-discovery.js';
import { writeFileAtomic } from '../../server/atomic-file.js';

export interface McpConfigOptions {
  harness: Harness | 'all';
  write: boolean;
  check: boolean;
}

export async function runMcpConfig(
  options: McpConfigOptions,
  io: { cwd: string; env: NodeJS.ProcessEnv; out: (text: string) => void },
): Promise<void> {
  const workspace = findWorkspace(io.cwd, io.env.SVC_SHIP_URL);
  const home = io.env.HOME || homedir();
  const context = {
    home,
    configHome: io.env.XDG_CONFIG_HOME || join(home, '.config'),
    workspaceDir: workspace.dir,
    mcpUrl: workspace.mcpUrl,
  };
  const plans = (options.harness === 'all' ? HARNESSES : [options.harness]).map((harness) => planFor(harness, context));
  for (const plan of plans) {
    if (options.write) await writePlan(plan, workspace, io.out);
    else if (!options.check) io.out(printed(plan));
  }
  if (options.check) {
    for (const plan of plans) {
      const tools = await checkHarness(plan, workspace, io.env);
      io.out(`${plan.harness}: ok, ${tools.length} tools: ${tools.join(', ')}\n`);
    }
  }
}

export function printed(plan: HarnessPlan): string {
  const { file } = plan;
  const body = file.format === 'json' ? jsonFragment(file.entries) : tomlFragment(file.table, file.value);
  return `# ${plan.harness}: ${file.path}, ${plan.scope}\n${body.endsWith('\n') ? body : `${body}\n`}\n`;
}

async function writePlan(plan: HarnessPlan, workspace: WorkspaceLocation, out: (text: string) => void): Promise<void> {
  const { file } = plan;
  const existing = await readFile(file.path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  const text = existing ?? '';
  const merged =
    file.format === 'json'
      ? mergeJsonc(text, file.entries, file.path)
      : mergeToml(text, file.table, file.value, file.path);
  if (plan.inWorkspace) await excludeFromGit(workspace.dir, file.path, out);
  if (existing !== null && merged === existing) {
    out(`${plan.harness}: ${file.path} is up to date\n`);
    return;
  }
  await writeAtomically(file.path, merged);
  out(`${plan.harness}: wrote ${file.path} (${plan.scope})\n`);
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Keep the mode of a file that exists (these files may hold other secrets); a new one is the owner's only.
  const mode = await stat(path).then(
    (info) => info.mode & 0o777,
    () => 0o600,
  );
  await writeFileAtomic(path, text, mode);
}

/** Adds `path` (inside the workspace) to the clone's .git/info/exclude, once. */
async function excludeFromGit(workspaceDir: string, path: string, out: (text: string) => void): Promise<void> {
  const { stdout } = await promisify(execFile)('git', ['rev-parse', '--git-path', 'info/exclude'], {
    cwd: workspaceDir,
  });
  const exclude = resolve(workspaceDir, stdout.trim());
  const pattern = `/${relative(workspaceDir, path).split('\\').join('/')}`;
  const current = await readFile(exclude, 'utf8').catch(() => '');
  if (current.split('\n').some((line) => line.trim() === pattern)) return;
  await mkdir(dirname(exclude), { recursive: true });
  await writeFile(exclude, `${current}${current === '' || current.endsWith('\n') ? '' : '\n'}${pattern}\n`);
  out(`added ${pattern} to ${exclude}\n`);
}
