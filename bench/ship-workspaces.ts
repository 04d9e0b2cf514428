// Ship workspace benchmarks (issue: the ship): create against a plain `git clone`, GET /workspaces over 200
// workspaces, and GET /workspaces/:repo/:name of an inactive workspace at concurrency 16, each against a
// bare node:http server answering the same body, measured in the same run and interleaved.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import http from 'node:http';
import { join } from 'node:path';
import { makeBenchRemote } from './lib/fixtures.js';
import { interleavedLoad, median, overallRate, percentile, sequential, timedRequest } from './lib/load.js';
import { startBareServer, startShipProcess } from './lib/processes.js';
import type { BenchRow } from './report.js';

function plainClone(url: string, dir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('git', ['clone', '--quiet', url, dir], { stdio: 'ignore' });
    child.on('exit', (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - started) / 1e6)
        : reject(new Error(`git clone exited ${code}`)),
    );
  });
}

export async function benchShipWorkspaces(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const rows: BenchRow[] = [];
  const { url } = makeBenchRemote(root);
  const fleet = join(root, 'fleet');
  const ship = await startShipProcess(fleet);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // Create vs plain clone, interleaved; the first round of each warms caches and is dropped.
    const creates: number[] = [];
    const clones: number[] = [];
    for (let round = 0; round < 16; round++) {
      const body = JSON.stringify({ url, repoName: 'bench', name: `w${round}`, branch: 'main' });
      const created = await timedRequest(agent, new URL(`${ship.url}/workspaces`), 'POST', body);
      if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
      const cloned = await plainClone(url, join(root, `plain${round}`));
      if (round > 0) {
        creates.push(created.ms);
        clones.push(cloned);
      }
    }
    rows.push({
      name: 'POST /workspaces (400-file repo) vs git clone, median',
      value: median(creates),
      reference: median(clones),
      unit: 'ms',
      target: 1.1,
    });

    // Fill the fleet to 200 workspaces with plain clones (the ship reads them from disk).
    for (let i = 16; i < 200; i++) await plainClone(url, join(fleet, 'bench', `w${i}`));
    const listUrl = `${ship.url}/workspaces`;
    const listBody = (await timedRequest(agent, new URL(listUrl))).text;
    if (JSON.parse(listBody).length !== 200) throw new Error('expected 200 workspaces in the listing');
    const bodyFile = join(root, 'list.json');
    await writeFile(bodyFile, listBody);
    const bareList = await startBareServer(bodyFile);
    const shipList: number[] = [];
    const refList: number[] = [];
    for (let round = 0; round < 4; round++) {
      shipList.push(...(await sequential(listUrl, 50)));
      refList.push(...(await sequential(bareList.url, 50)));
    }
    await bareList.stop();
    rows.push({
      name: 'GET /workspaces, 200 workspaces, p50',
      value: median(shipList),
      reference: median(refList),
      unit: 'ms',
      absoluteLimit: 50,
    });
    rows.push({
      name: 'GET /workspaces, 200 workspaces, p99',
      value: percentile(shipList, 99),
      reference: percentile(refList, 99),
      unit: 'ms',
    });

    // Inactive status at concurrency 16 against the bare server answering the same body.
    const statusUrl = `${ship.url}/workspaces/bench/w7`;
    await writeFile(bodyFile, (await timedRequest(agent, new URL(statusUrl))).text);
    const bareStatus = await startBareServer(bodyFile);
    const { subject: shipRuns, reference: bareRuns } = await interleavedLoad(statusUrl, bareStatus.url, {
      concurrency: 16,
      durationMs: 2000,
      rounds: 2,
    });
    await bareStatus.stop();
    const errors = shipRuns.reduce((sum, r) => sum + r.errors, 0);
    if (errors > 0) throw new Error(`${errors} status requests failed`);
    rows.push({
      name: 'GET /workspaces/:r/:n inactive, c16, p50 latency',
      value: median(shipRuns.map((r) => r.p50)),
      reference: median(bareRuns.map((r) => r.p50)),
      unit: 'ms',
      target: 2,
    });
    rows.push({
      name: 'GET /workspaces/:r/:n inactive, c16, throughput',
      value: overallRate(shipRuns),
      reference: overallRate(bareRuns),
      unit: 'req/s',
      higherIsBetter: true,
      absoluteLimit: 2000,
    });
  } finally {
    agent.destroy();
    await ship.stop();
    await rm(root, { recursive: true, force: true });
  }
  return rows;
}
