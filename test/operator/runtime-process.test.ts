// `svc operator` as users start it: `npx svc operator` from the checkout, against the fake Kubernetes API
// (KUBECONFIG), with a bridge URL nothing listens on (the runtime does not call the bridge itself). It
// serves /healthz and /readyz on --health-port, takes the leader Lease with --leader-elect, logs pino JSON,
// and on SIGTERM releases the Lease and exits 0. Flag errors exit non-zero with `svc: …`.
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll.js';
import { processesMatching, runNpx, startNpx, type NpxProcess } from '../helpers/npx.js';
import { startFake } from './runtime-fixture.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The bridge URL (nothing listens there), unique enough to find this test's svc process by. */
const MARKER = `http://127.0.0.1:9/operator-test-${process.pid}`;

function leaseHolder(fake: Awaited<ReturnType<typeof startFake>>['fake']): string | undefined {
  return (
    fake.read('coordination.k8s.io/v1', 'Lease', 'svc-operator', 'default')?.spec as
      | { holderIdentity?: string }
      | undefined
  )?.holderIdentity;
}

describe('svc operator (process)', () => {
  it('serves /healthz and /readyz, leads, and on SIGTERM releases the lease and exits 0', async () => {
    const { fake } = await startFake();
    cleanups.push(() => fake.close());
    const operator: NpxProcess = startNpx(
      ['operator', '--bridge-url', MARKER, '--health-port', '0', '--leader-elect', '--daemonset-grace', '1h30m'],
      {
        KUBECONFIG: fake.kubeconfigPath,
        KUBERNETES_SERVICE_HOST: '',
        SVC_LOG_LEVEL: 'info',
        POD_NAME: 'operator-test',
      },
    );
    cleanups.push(() => operator.terminateThenKill());
    const started = await operator.waitFor(/"healthPort":\d+/, 30_000);
    const port = Number(started.split(':')[1]);
    const healthz = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(healthz.status).toBe(200);
    await until(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, '/readyz 200', 10_000);
    await until(
      async () => leaseHolder(fake)?.startsWith('operator-test_') ?? false,
      'the operator to hold the lease',
      10_000,
    );
    // Logs are JSON lines.
    const startLine = operator
      .output()
      .split('\n')
      .find((line) => line.includes('svc operator starting'))!;
    // --daemonset-grace takes Go durations: 1h30m is 90 minutes.
    expect(JSON.parse(startLine)).toMatchObject({
      component: 'operator',
      kubeconfig: 'KUBECONFIG',
      namespace: 'default',
      bridgeUrl: MARKER,
      leaderElect: true,
      daemonsetGraceMs: 90 * 60_000,
    });

    // SIGTERM to the svc process itself (as a supervisor sends it to the container's process): npm exec
    // passes its exit code on.
    // The node process runs `<bin>/svc operator`; npm's own is `npm exec svc operator` (whatever the node
    // binary is called: Node 24 in CI comes from an npm package).
    const svc = processesMatching('/svc operator', MARKER).filter((pid) => pid !== operator.child.pid);
    expect(svc).toHaveLength(1);
    process.kill(svc[0]!, 'SIGTERM');
    expect(await operator.exited).toBe(0);
    expect(leaseHolder(fake)).toBeUndefined();
    expect(operator.output()).toContain('released the leader lease');
    expect(operator.output()).toContain('svc operator stopped');
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it("creates the chart's Secrets in an empty namespace with no other event: the watched one, and with --all-namespaces its own (--daemonset-grace 90s and the default read too)", async () => {
    const chartSecrets = ['svc-admin', 'svc-postgres'];
    const secretsIn = (fake: Awaited<ReturnType<typeof startFake>>['fake'], namespace?: string) =>
      fake
        .list('v1', 'Secret', namespace)
        .map((secret) => `${secret.metadata.namespace}/${secret.metadata.name}`)
        .sort();
    // Also the other --daemonset-grace forms: 90s, and the 10m default.
    for (const [args, namespace, graceMs] of [
      [['--daemonset-grace', '90s'], 'default', 90_000],
      [['--all-namespaces'], 'svc-system', 600_000],
    ] as const) {
      const { fake } = await startFake({ namespace });
      cleanups.push(() => fake.close());
      const operator = startNpx(['operator', '--bridge-url', MARKER, '--health-port', '0', ...args], {
        KUBECONFIG: fake.kubeconfigPath,
        KUBERNETES_SERVICE_HOST: '',
        SVC_LOG_LEVEL: 'info',
      });
      cleanups.push(() => operator.terminateThenKill());
      // Nothing exists and nothing changes: only the operator's start can bring them about.
      await until(
        async () => secretsIn(fake).length === chartSecrets.length,
        `the chart Secrets in ${namespace} (${args.join(' ') || 'no flags'})`,
        20_000,
      );
      expect(secretsIn(fake)).toEqual(chartSecrets.map((name) => `${namespace}/${name}`));
      // Info lines: the log is written in batches, within 100 ms (server/logger.ts).
      await operator.waitFor('created the first-admin credentials', 5000);
      expect(operator.output()).toContain(`"daemonsetGraceMs":${graceMs}`);
      await operator.terminateThenKill();
    }
  });

  it('refuses to start without a bridge URL, or with --namespace and --all-namespaces together', async () => {
    const missing = await runNpx(['operator', '--health-port', '0'], { SVC_BRIDGE_URL: '' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('svc: --bridge-url (or SVC_BRIDGE_URL) is required');
    const both = await runNpx(['operator', '--bridge-url', 'http://b', '--namespace', 'x', '--all-namespaces'], {});
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('exclude each other');
    const badGrace = await runNpx(['operator', '--bridge-url', 'http://b', '--daemonset-grace', 'ten minutes'], {});
    expect(badGrace.code).toBe(2);
    expect(badGrace.stderr).toContain('must be a duration');
    const withCredentials = await runNpx(['operator', '--bridge-url', 'http://admin:secret@b'], {});
    expect(withCredentials.code).toBe(2);
    expect(withCredentials.stderr).toContain('must not carry credentials');
  });
});
