// The operator at scale (issue #19, "Speed and scale"): 500 Ship objects (Generated tokens, as users apply
// them) against the fake Kubernetes API server, reconciled by a `svc operator` process into a `svc bridge`
// process (authentication on, the operator logging in as its admin) fronting 500 fake ships
// (bench/lib/fake-ship.ts: the ship's wire protocol, all in one process). Rows, against the targets:
//   - from the operator's start until every Ship is Ready=True (≤ 60 s): token Secrets created, every ship
//     registered, statuses written;
//   - steady state, once every Ship is Ready and the operator's Ship queue is empty: the bridge requests the
//     operator makes over one refresh period (30 s), per Ship (≤ 1), read from the operator's own
//     svc_operator_bridge_request_duration_seconds counts;
//   - the operator's RSS at the end of that window (≤ 150 MiB).
// The fake API server runs in this process (it is the cluster, not what is measured). SVC_BENCH_OPERATOR_SHIPS
// sets the count (e.g. 20 for a quick run that the targets still apply to), SVC_BENCH_VERBOSE=1 prints phases.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeKubeApi } from '../test/fakes/kube-api/index.js';
import { startFakeFleet } from './lib/fake-ship.js';
import { freePort } from './lib/ports.js';
import { rssBytes, startBridgeProcess } from './lib/processes.js';
import type { BenchRow } from './report.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MiB = 1024 * 1024;
/** One refresh period of the operator (refreshMs): every Ready Ship is looked at once within it. */
const WINDOW_MS = 30_000;
const READY_DEADLINE_MS = 180_000;
const verbose = process.env.SVC_BENCH_VERBOSE === '1';
const log = (line: string) => verbose && process.stderr.write(`operator: ${line}\n`);

/** The operator's metric lines as name{labels} → value. */
async function metrics(port: number): Promise<Array<{ name: string; labels: string; value: number }>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return [...text.matchAll(/^(\w+)(?:\{([^}]*)\})? (\S+)$/gm)].map((match) => ({
    name: match[1]!,
    labels: match[2] ?? '',
    value: Number(match[3]),
  }));
}

async function bridgeCalls(port: number): Promise<number> {
  return (await metrics(port))
    .filter((line) => line.name === 'svc_operator_bridge_request_duration_seconds_count')
    .reduce((sum, line) => sum + line.value, 0);
}

async function shipQueueDepth(port: number): Promise<number> {
  return (
    (await metrics(port)).find(
      (line) => line.name === 'svc_operator_queue_depth' && line.labels.includes('kind="Ship"'),
    )?.value ?? 0
  );
}

export async function benchOperator(): Promise<BenchRow[]> {
  const count = Number(process.env.SVC_BENCH_OPERATOR_SHIPS ?? 500);
  const directory = await mkdtemp(join(tmpdir(), 'svc-bench-operator-'));
  const fake = await startFakeKubeApi({ crds: join(ROOT, 'crds') });
  const fleet = await startFakeFleet(count, 1, 'node');
  const bridge = await startBridgeProcess(join(directory, 'bridge'), await freePort());
  const healthPort = await freePort();
  let operator: ReturnType<typeof spawn> | undefined;
  try {
    for (const ship of fleet.ships) {
      fake.create({
        apiVersion: 'svc.dev/v1alpha1',
        kind: 'Ship',
        metadata: { name: ship.name, namespace: 'default' },
        spec: { url: ship.url },
      });
    }
    log(`${count} Ship objects created`);
    const readyCount = () =>
      fake
        .list('svc.dev/v1alpha1', 'Ship', 'default')
        .filter((ship) =>
          (ship.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions?.some(
            (c) => c.type === 'Ready' && c.status === 'True',
          ),
        ).length;

    const started = performance.now();
    operator = spawn(
      process.execPath,
      [join(ROOT, 'bin/svc.js'), 'operator', '--bridge-url', bridge.url, '--health-port', String(healthPort)],
      {
        env: {
          ...process.env,
          KUBECONFIG: fake.kubeconfigPath,
          KUBERNETES_SERVICE_HOST: '',
          SVC_LOG_LEVEL: 'warn',
          SVC_OPERATOR_USERNAME: 'bench',
          SVC_OPERATOR_PASSWORD: 'bench-password-1',
          SVC_TOKEN: '',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    for (let ready = readyCount(); ready < count; ready = readyCount()) {
      if (operator.exitCode !== null) throw new Error(`svc operator exited with ${operator.exitCode}`);
      if (performance.now() - started > READY_DEADLINE_MS)
        throw new Error(`only ${ready} of ${count} Ships Ready after ${READY_DEADLINE_MS / 1000} s`);
      await sleep(100);
    }
    const readySeconds = (performance.now() - started) / 1000;
    log(`all ${count} Ready after ${readySeconds.toFixed(1)} s`);

    // Steady state: the Ready writes' own watch events reconciled, nothing queued.
    while ((await shipQueueDepth(healthPort)) > 0) await sleep(200);
    const before = await bridgeCalls(healthPort);
    await sleep(WINDOW_MS);
    const calls = (await bridgeCalls(healthPort)) - before;
    const rssMiB = rssBytes(operator.pid!) / MiB;
    log(`${calls} bridge requests in ${WINDOW_MS / 1000} s; RSS ${rssMiB.toFixed(0)} MiB`);
    if (verbose) {
      // Where the RSS is: V8's heap (used, and what it holds), memory outside it (buffers, WebAssembly).
      const memory = (await metrics(healthPort)).filter((line) =>
        /heap_size|external_memory|heap_space_size_used/.test(line.name),
      );
      for (const line of memory) log(`  ${line.name}{${line.labels}} ${(line.value / MiB).toFixed(1)} MiB`);
    }
    if (readyCount() !== count) throw new Error('a Ship left Ready during the steady-state window');

    return [
      { name: `operator: ${count} Ships Ready from start`, value: readySeconds, unit: 's', absoluteLimit: 60 },
      {
        name: `operator: steady bridge requests per Ship per ${WINDOW_MS / 1000} s (${count} Ships)`,
        value: calls / count,
        unit: 'req',
        absoluteLimit: 1,
      },
      { name: `operator: RSS with ${count} Ships`, value: rssMiB, unit: 'MiB', absoluteLimit: 150 },
    ];
  } finally {
    if (operator && operator.exitCode === null) {
      const exited = new Promise((done) => operator!.once('exit', done));
      operator.kill('SIGTERM');
      await exited;
    }
    await fleet.stop();
    await bridge.stop();
    await fake.close();
    await rm(directory, { recursive: true, force: true });
  }
}
