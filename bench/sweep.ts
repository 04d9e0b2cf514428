// The ephemeral sweep benchmark (issue #17's speed bar): one pass over 500 ephemeral records on 5 ships
// across 10 repos, against a fake forge in its own process (bench/lib/sweep-forge.ts) that counts every
// call. What is measured is the real code: a `svc bridge` process (authentication on) running POST
// /workspaces/sweep against 5 `svc ship` processes and the forge.
// Seeding is not the bridge's create path: its forge calls are GraphQL mutations, which the provider's
// request policy spaces at least a second apart per process, so 500 creates would take over 8 minutes.
// Instead the 500 workspaces are cloned through each ship's own POST /workspaces (the issue branches
// already on the remote, as the forge's createLinkedBranch leaves them), and the records are written to the
// bridge's store as the intent rows a create writes before it calls the ship; the restarted bridge's own
// reconcile at each ship's sync turns them `watching`, and the benchmark waits until all 500 show.
// Per repo, 50 records over 45 issues (issues 1–5 have two workspaces each, sharing a branch): 35 watched
// with no pull request, 6 with an open pull request, 4 with a merged one (destroyed), 4 with no pull
// request and the issue closed (destroyed), and 1 like those but holding a commit no remote has (blocked).
// Rows: the first pass's duration (≤ 2 s), forge calls per record (≤ 2) and per (repo, branch) (≤ 1); then
// the routed GET /workspaces/:r/:n p99 under a steady 100 requests/s while passes over the remaining 420
// records run back to back, against windows of the same load with no sweep, interleaved (≤ 1.2×).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { issueBranchName } from '../bridge/ephemeral/issue-branch.js';
import { GitHubProvider } from '../bridge/providers/github.js';
import { openStore } from '../bridge/store/store.js';
import { cpuMs } from './lib/cpu.js';
import { git } from './lib/fixtures.js';
import { median, percentile, timedRequest } from './lib/load.js';
import { freePort } from './lib/ports.js';
import { startShipProcess, type Child } from './lib/processes.js';
import type { ForgeCalls, ForgeIssue, ForgePull, ForgeState } from './lib/sweep-forge.js';
import type { BenchRow } from './report.js';

const ROOT = resolve(import.meta.dirname, '../..');
const OWNER = 'acme';
const FORGE_HOST = 'https://github.example';
const REPOS = 10;
const SHIPS = 5;
const ISSUES_PER_REPO = 45;
/** Issues 1..SHARED have two workspaces each. */
const SHARED = 5;
const TOKEN = 'ghp_sweep_bench_token';
const ADMIN = { username: 'bench', email: 'bench@example.com', password: 'bench-password-1' };
const GET_RATE = 100;
/**
 * Windows of each kind, interleaved: 8 of 6 s give 4,800 GETs a side, so the p99 is the 48th slowest (with 4
 * of 4 s it was the 16th, and the no-sweep p99 alone moved too much from run to run: bench/RESULTS.md).
 */
const WINDOW_MS = 6000;
const WINDOWS = 8;

type Outcome = 'watching' | 'pull-open' | 'pull-merged' | 'issue-closed' | 'blocked';
interface Planned {
  repo: string;
  name: string;
  ship: string;
  issue: number;
  branch: string;
  outcome: Outcome;
}

function outcomeOf(issue: number): Outcome {
  if (issue >= 6 && issue <= 11) return 'pull-open';
  if (issue >= 12 && issue <= 15) return 'pull-merged';
  if (issue >= 16 && issue <= 19) return 'issue-closed';
  if (issue === 20) return 'blocked';
  return 'watching';
}

/** The records and the forge state behind them. */
function plan(): { records: Planned[]; forge: ForgeState } {
  const records: Planned[] = [];
  const forge: ForgeState = { owner: OWNER, repos: {} };
  for (let r = 0; r < REPOS; r++) {
    const repo = `r${r}`;
    const issues: ForgeIssue[] = [];
    const pulls: ForgePull[] = [];
    for (let issue = 1; issue <= ISSUES_PER_REPO; issue++) {
      const title = `Sweep bench issue ${issue}`;
      const branch = issueBranchName(issue, title);
      const outcome = outcomeOf(issue);
      issues.push({
        number: issue,
        title,
        state: outcome === 'issue-closed' || outcome === 'blocked' ? 'closed' : 'open',
      });
      if (outcome === 'pull-open' || outcome === 'pull-merged')
        pulls.push({ number: 100 + issue, head: branch, state: outcome === 'pull-open' ? 'open' : 'closed' });
      for (const name of issue <= SHARED ? [`w${issue}`, `w${issue}-b`] : [`w${issue}`]) {
        records.push({ repo, name, ship: `ship-${records.length % SHIPS}`, issue, branch, outcome });
      }
    }
    forge.repos[repo] = { issues, pulls };
  }
  return { records, forge };
}

/** A child that prints its port on stdout once listening. */
async function startPortChild(script: string, args: string[] = []): Promise<{ process: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolvePort, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolvePort(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { process: child, port };
}

const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolveStop) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
    child.once('exit', () => resolveStop());
    child.kill('SIGTERM');
  });

/** `svc bridge` with authentication on, no sweep timer, the forge from the environment; and an admin session. */
async function startBridge(dataDirectory: string, port: number, forgeUrl: string): Promise<Child & { token: string }> {
  // SVC_BENCH_BRIDGE_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles a run by hand, as in bench/lib/processes.ts.
  const nodeArgs = (process.env.SVC_BENCH_BRIDGE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      join(ROOT, 'bin/svc.js'),
      'bridge',
      '--port',
      String(port),
      '--data-directory',
      dataDirectory,
      '--sweep-interval-ms',
      '0',
    ],
    {
      env: {
        ...process.env,
        SVC_LOG_LEVEL: 'warn',
        SVC_BRIDGE_ADMIN_USER: ADMIN.username,
        SVC_BRIDGE_ADMIN_EMAIL: ADMIN.email,
        SVC_BRIDGE_ADMIN_PASSWORD: ADMIN.password,
        SVC_GITHUB_API_URL: forgeUrl,
        SVC_GITHUB_TOKEN: TOKEN,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      const login = await fetch(`${url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: ADMIN.username, password: ADMIN.password }),
      });
      if (login.ok)
        return {
          process: child,
          url,
          token: ((await login.json()) as { token: string }).token,
          stop: () => stopChild(child),
        };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`svc bridge exited with ${child.exitCode}`);
    await sleep(50);
  }
  throw new Error('svc bridge did not start');
}

async function json<T>(url: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(url, {
    ...init,
    headers: {
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.headers as Record<string, string>),
    },
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

/** Milliseconds of CPU time all of the machine's cores have spent busy so far (Linux /proc/stat). */
function machineBusyMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3]! + fields[4]!;
  return ((fields.reduce((a, b) => a + b, 0) - idle) * 1000) / 100;
}

/** User + system CPU milliseconds of a process and of its children it has waited for (a ship's git processes). */
function cpuWithChildrenMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** Runs `task` over `items`, `limit` at a time. */
async function pool<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
    }),
  );
}

/** Routed GETs that did not answer 200, by message: counted (and shown) rather than ending the run. */
const failedGets = new Map<string, number>();

/** Latencies of GETs sent at a steady `rate` for `durationMs` (open loop: a slow answer does not delay the next send). */
async function steadyGets(
  urls: readonly string[],
  headers: Record<string, string>,
  rate: number,
  durationMs: number,
): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  const fail = (message: string) => void failedGets.set(message, (failedGets.get(message) ?? 0) + 1);
  const sent: Array<Promise<void>> = [];
  const started = performance.now();
  for (let i = 0; ; i++) {
    const at = (i * 1000) / rate;
    if (at >= durationMs) break;
    const wait = started + at - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(
      timedRequest(agent, new URL(urls[i % urls.length]!), 'GET', undefined, headers).then(
        (result) => {
          if (result.status === 200) latencies.push(result.ms);
          else fail(`${result.status}: ${result.text.replace(/r\d+\/w[\w-]+/g, '<r>/<w>')}`);
        },
        (error: Error) => fail(error.message),
      ),
    );
  }
  await Promise.all(sent);
  agent.destroy();
  return latencies;
}

/**
 * CPU per forge call in this process: the bridge's GitHub provider (its transport, reads and request
 * policy) asking for a branch's pull requests, against a plain fetch of the same URL, `count` calls each at
 * `concurrency`, alternating blocks so both see the same machine.
 */
async function providerCallCost(
  forgeUrl: string,
  branches: readonly string[],
  count = 400,
  concurrency = 8,
): Promise<{ provider: number; fetch: number }> {
  const provider = new GitHubProvider({ token: TOKEN, baseUrl: forgeUrl });
  const repo = { name: 'r0', url: `${FORGE_HOST}/${OWNER}/r0.git`, provider: 'github' };
  const calls = {
    provider: (branch: string) => provider.pullsForBranch(repo, branch),
    fetch: async (branch: string) => {
      const response = await fetch(
        `${forgeUrl}/repos/${OWNER}/r0/pulls?head=${encodeURIComponent(`${OWNER}:${branch}`)}&state=all&per_page=100`,
        {
          headers: { authorization: `token ${TOKEN}`, accept: 'application/vnd.github.v3+json' },
        },
      );
      return ((await response.json()) as Array<{ number: number; state: string; html_url: string }>).map((pull) => ({
        number: pull.number,
        state: pull.state,
        url: pull.html_url,
      }));
    },
  };
  const micros = { provider: [] as number[], fetch: [] as number[] };
  for (let round = 0; round < 4; round++) {
    for (const kind of ['provider', 'fetch'] as const) {
      const items = Array.from({ length: count }, (_, i) => branches[i % branches.length]!);
      const before = process.cpuUsage();
      await pool(items, concurrency, async (branch) => void (await calls[kind](branch)));
      const used = process.cpuUsage(before);
      // The first round warms both paths up.
      if (round > 0) micros[kind].push((used.user + used.system) / count);
    }
  }
  return { provider: median(micros.provider), fetch: median(micros.fetch) };
}

export async function benchSweep(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-sweep-'));
  const children: Array<{ stop(): Promise<void> }> = [];
  const rows: BenchRow[] = [];
  try {
    const { records, forge: forgeState } = plan();

    // The remotes: one tiny repository copied per repo, with every issue branch on it; the ships clone the
    // forge URLs from them through an `insteadOf` in their HOME.
    const work = join(root, 'work');
    mkdirSync(work);
    git(work, 'init', '--quiet');
    writeFileSync(join(work, 'README.md'), '# sweep bench\n');
    git(work, 'add', '.');
    git(work, 'commit', '--quiet', '-m', 'first');
    const head = git(work, 'rev-parse', 'HEAD').trim();
    const template = join(root, 'template.git');
    git(root, 'clone', '--quiet', '--bare', work, template);
    const remotes = join(root, 'remotes');
    for (let r = 0; r < REPOS; r++) {
      const bare = join(remotes, `r${r}.git`);
      cpSync(template, bare, { recursive: true });
      const branches = [...new Set(records.filter((record) => record.repo === `r${r}`).map((record) => record.branch))];
      execFileSync('git', ['--git-dir', bare, 'update-ref', '--stdin'], {
        input: branches.map((branch) => `create refs/heads/${branch} ${head}\n`).join(''),
      });
    }
    const home = join(root, 'home');
    mkdirSync(home);
    writeFileSync(
      join(home, '.gitconfig'),
      `[url "file://${remotes}/"]\n\tinsteadOf = ${FORGE_HOST}/${OWNER}/\n[user]\n\tname = bench\n\temail = bench@svc.invalid\n`,
    );

    const forgeChild = await startPortChild(join(import.meta.dirname, 'lib/sweep-forge.js'));
    children.push({ stop: () => stopChild(forgeChild.process) });
    const forgeUrl = `http://127.0.0.1:${forgeChild.port}`;
    if ((await json(`${forgeUrl}/_state`, { method: 'PUT', body: JSON.stringify(forgeState) })).status !== 200)
      throw new Error('forge state refused');

    const ships = new Map<string, Child & { fleet: string }>();
    for (let s = 0; s < SHIPS; s++) {
      const fleet = join(root, `fleet-${s}`);
      const ship = await startShipProcess(fleet, `ship-${s}`, { env: { HOME: home } });
      children.push(ship);
      ships.set(`ship-${s}`, { ...ship, fleet });
    }
    const cloneStarted = performance.now();
    await pool(records, 8, async (record) => {
      const ship = ships.get(record.ship)!;
      const created = await json(`${ship.url}/workspaces`, {
        method: 'POST',
        body: JSON.stringify({
          url: `${FORGE_HOST}/${OWNER}/${record.repo}.git`,
          repoName: record.repo,
          name: record.name,
          branch: record.branch,
        }),
      });
      if (created.status !== 201)
        throw new Error(
          `create ${record.repo}/${record.name} on ${record.ship}: ${created.status} ${JSON.stringify(created.body)}`,
        );
    });
    for (const record of records.filter((r) => r.outcome === 'blocked')) {
      const dir = join(ships.get(record.ship)!.fleet, record.repo, record.name);
      writeFileSync(join(dir, 'unpushed.txt'), 'work no remote has\n');
      git(dir, 'add', '.');
      git(dir, 'commit', '--quiet', '-m', 'unpushed work');
    }
    process.stderr.write(
      `sweep bench: ${records.length} workspaces cloned on ${SHIPS} ships in ${((performance.now() - cloneStarted) / 1000).toFixed(1)} s\n`,
    );

    // The bridge: ships and repos registered, then stopped while the intent rows are written, and started
    // again so that each ship's sync settles them.
    const dataDirectory = join(root, 'bridge');
    const port = await freePort();
    let bridge = await startBridge(dataDirectory, port, forgeUrl);
    let auth = { authorization: `Bearer ${bridge.token}` };
    for (const [name, ship] of ships) {
      const registered = await json(`${bridge.url}/ships`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ url: ship.url }),
      });
      if (registered.status !== 201)
        throw new Error(`register ${name}: ${registered.status} ${JSON.stringify(registered.body)}`);
    }
    for (let r = 0; r < REPOS; r++) {
      const repo = await json(`${bridge.url}/repos`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ name: `r${r}`, url: `${FORGE_HOST}/${OWNER}/r${r}.git`, provider: 'github' }),
      });
      if (repo.status !== 201) throw new Error(`repo r${r}: ${repo.status} ${JSON.stringify(repo.body)}`);
    }
    await bridge.stop();
    const store = await openStore({ dataDirectory });
    try {
      for (const record of records)
        await store.ephemeral.insertPending({
          repoName: record.repo,
          name: record.name,
          ship: record.ship,
          issueNumber: record.issue,
          branch: record.branch,
        });
    } finally {
      await store.close();
    }
    bridge = await startBridge(dataDirectory, port, forgeUrl);
    children.push(bridge);
    auth = { authorization: `Bearer ${bridge.token}` };
    type Listed = { repoName: string; name: string; ephemeral: { cleanup: string } | null };
    for (let i = 0; ; i++) {
      const listed = (await json<Listed[]>(`${bridge.url}/workspaces`, { headers: auth })).body;
      const watching = listed.filter((w) => w.ephemeral?.cleanup === 'watching').length;
      if (watching === records.length) break;
      if (i > 600) throw new Error(`only ${watching} of ${records.length} records watching after the ships' syncs`);
      await sleep(100);
    }

    // The pass with work to do: destroys, refusals, pull requests to record.
    await json(`${forgeUrl}/_calls`, { method: 'DELETE' });
    const shipsCpuMs = () => [...ships.values()].reduce((sum, ship) => sum + cpuWithChildrenMs(ship.process.pid!), 0);
    const cpuBefore = {
      bridge: cpuMs(bridge.process.pid!),
      forge: cpuMs(forgeChild.process.pid!),
      ships: shipsCpuMs(),
      machine: machineBusyMs(),
    };
    const passStarted = performance.now();
    const first = await json<Record<string, number>>(`${bridge.url}/workspaces/sweep`, {
      method: 'POST',
      headers: auth,
    });
    const firstMs = performance.now() - passStarted;
    const cpuDuring = {
      bridge: cpuMs(bridge.process.pid!) - cpuBefore.bridge,
      forge: cpuMs(forgeChild.process.pid!) - cpuBefore.forge,
      ships: shipsCpuMs() - cpuBefore.ships,
      machine: machineBusyMs() - cpuBefore.machine,
    };
    const expected = {
      checked: records.length,
      destroyed: records.filter((r) => r.outcome === 'pull-merged' || r.outcome === 'issue-closed').length,
      blocked: records.filter((r) => r.outcome === 'blocked').length,
      skipped: 0,
      forgotten: 0,
    };
    if (first.status !== 200 || JSON.stringify(first.body) !== JSON.stringify(expected))
      throw new Error(
        `first pass: ${first.status} ${JSON.stringify(first.body)}, expected ${JSON.stringify(expected)}`,
      );
    const calls = (await json<ForgeCalls>(`${forgeUrl}/_calls`)).body;
    const pullLists = Object.values(calls.pulls);
    const issueReads = Object.values(calls.issues);
    const total = pullLists.reduce((a, b) => a + b, 0) + issueReads.reduce((a, b) => a + b, 0) + calls.other;
    const branches = new Set(records.map((r) => `${r.repo}:${r.branch}`)).size;
    rows.push({
      name: `sweep pass over ${records.length} ephemeral records, ${SHIPS} ships × ${REPOS} repos (${expected.destroyed} destroyed, ${expected.blocked} blocked)`,
      value: firstMs,
      unit: 'ms',
      absoluteLimit: 2000,
    });
    rows.push({
      name: `  forge calls per record in that pass (${total} calls: ${pullLists.length} pull lists for ${branches} branches, ${issueReads.length} issue reads)`,
      value: total / records.length,
      unit: 'calls',
      absoluteLimit: 2,
    });
    rows.push({
      name: '  pull-request lists per (repo, branch), most',
      value: Math.max(...pullLists),
      unit: 'calls',
      absoluteLimit: 1,
    });
    rows.push({
      name: '  issue reads per (repo, issue), most',
      value: Math.max(...issueReads),
      unit: 'calls',
      absoluteLimit: 1,
    });
    rows.push({
      name: '  bridge CPU during that pass vs its length',
      value: cpuDuring.bridge,
      reference: firstMs,
      unit: 'ms',
    });
    rows.push({
      name: '  forge process CPU during that pass vs its length',
      value: cpuDuring.forge,
      reference: firstMs,
      unit: 'ms',
    });
    rows.push({
      name: `  the ${SHIPS} ship processes' CPU during that pass, with their git children, vs its length`,
      value: cpuDuring.ships,
      reference: firstMs,
      unit: 'ms',
    });
    rows.push({
      name: `  CPU busy on all ${availableParallelism()} cores during that pass vs their time`,
      value: cpuDuring.machine,
      reference: firstMs * availableParallelism(),
      unit: 'ms',
    });

    // Routed GETs at a steady rate, over watched workspaces of every ship, in windows with passes over the
    // remaining records running back to back and windows without, interleaved (quiet first, then alternating).
    const targets = records
      .filter((r) => r.outcome === 'watching')
      .filter((_, i) => i % 7 === 0)
      .map((r) => `${bridge.url}/workspaces/${r.repo}/${r.name}`);
    await steadyGets(targets, auth, GET_RATE, 1000);
    const quiet: number[] = [];
    const sweeping: number[] = [];
    const passes: number[] = [];
    const passCpu: number[] = [];
    const passShipsCpu: number[] = [];
    /** Passes that did not check every record (a ship offline for a moment): counted, not timed. */
    const incomplete: string[] = [];
    for (let window = 0; window < 2 * WINDOWS; window++) {
      if (window % 2 === 0) {
        quiet.push(...(await steadyGets(targets, auth, GET_RATE, WINDOW_MS)));
        continue;
      }
      let running = true;
      const sweeps = (async () => {
        while (running) {
          const started = performance.now();
          const cpu = cpuMs(bridge.process.pid!);
          const shipsCpu = shipsCpuMs();
          const pass = await json<Record<string, number>>(`${bridge.url}/workspaces/sweep`, {
            method: 'POST',
            headers: auth,
          });
          if (pass.status !== 200) throw new Error(`pass during the load: ${pass.status} ${JSON.stringify(pass.body)}`);
          if (pass.body.checked !== records.length - expected.destroyed) {
            incomplete.push(JSON.stringify(pass.body));
            continue;
          }
          passes.push(performance.now() - started);
          passCpu.push(cpuMs(bridge.process.pid!) - cpu);
          passShipsCpu.push(shipsCpuMs() - shipsCpu);
        }
      })();
      sweeping.push(...(await steadyGets(targets, auth, GET_RATE, WINDOW_MS)));
      running = false;
      await sweeps;
    }
    const failed = [...failedGets.values()].reduce((a, b) => a + b, 0);
    for (const [message, count] of failedGets)
      process.stderr.write(`sweep bench: ${count} routed GETs failed: ${message}\n`);
    for (const counters of incomplete)
      process.stderr.write(`sweep bench: a pass during the load did not check every record: ${counters}\n`);
    rows.push({
      name: `routed GET /workspaces/:r/:n p99 at ${GET_RATE}/s, sweeps back to back vs none (${passes.length} passes)`,
      value: percentile(sweeping, 99),
      reference: percentile(quiet, 99),
      unit: 'ms',
      target: 1.2,
    });
    rows.push({ name: '  the same, p50', value: median(sweeping), reference: median(quiet), unit: 'ms' });
    rows.push({
      name: '  routed GETs that did not answer 200 (all windows)',
      value: failed,
      unit: 'requests',
      absoluteLimit: 0,
    });
    rows.push({
      name: '  passes during the load that did not check every record (not in the rows below)',
      value: incomplete.length,
      unit: 'passes',
      absoluteLimit: 0,
    });
    rows.push({
      name: `  sweep pass over the remaining ${records.length - expected.destroyed} records while serving the GETs, p50`,
      value: median(passes),
      unit: 'ms',
    });
    rows.push({
      name: '  bridge CPU per such pass vs its length, p50',
      value: median(passCpu),
      reference: median(passes),
      unit: 'ms',
    });
    rows.push({
      name: `  the ${SHIPS} ship processes' CPU per such pass (with their git children: the blocked records' guarded deletes), p50`,
      value: median(passShipsCpu),
      reference: median(passes),
      unit: 'ms',
    });
    const cost = await providerCallCost(forgeUrl, [
      ...new Set(records.filter((r) => r.repo === 'r0').map((r) => r.branch)),
    ]);
    rows.push({
      name: "  CPU per forge call in one process: the GitHub provider's pullsForBranch vs a plain fetch of the same URL",
      value: cost.provider,
      reference: cost.fetch,
      unit: 'µs',
    });
  } finally {
    for (const child of children.reverse()) await child.stop().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
  return rows;
}
