// What the chart renders for agents on the nodes (issue #27), through `helm template`: `ship.agentEnv`
// (keys from Secrets) set on the ship and named in its SVC_SESSION_ENV, never on the session holder and
// never an SVC_* name; `ship.agent.harness` as the ship's SVC_AGENT_HARNESS; `ship.image` for the ships, the session holders and their init containers, never the
// bridge's or the operator's; and the session-holder DaemonSet (charts/svc README, "Sessions that outlive the
// ship"): rolled only on delete, the same fleet, home and /tmp as the ship at the same paths, the ship told
// to use it, the holder's agents allowed to the ship's and the bridge's ports; none with emptyDir fleets.
import { describe, expect, it } from 'vitest';
import type { Container, PodSpec } from './kubelet.js';
import { helmAvailable, parseObjects, template, type KubeObject } from './render.js';

const haveHelm = helmAvailable('test/chart/agents-on-nodes.test.ts');

const AGENT_ENV = [
  { name: 'ANTHROPIC_API_KEY', valueFrom: { secretKeyRef: { name: 'agent-keys', key: 'anthropic' } } },
  { name: 'HTTPS_PROXY', value: 'http://proxy.internal:3128' },
];

async function render(args: string[]): Promise<KubeObject[]> {
  const run = await template(args);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return parseObjects(run.stdout).map(({ object }) => object);
}

const named = (objects: KubeObject[], kind: string, suffix: string) => {
  const found = objects.find((object) => object.kind === kind && object.metadata.name.endsWith(suffix));
  if (!found) throw new Error(`no ${kind} *${suffix}`);
  return found;
};
const podOf = (object: KubeObject) =>
  (object.spec as { template: { spec: PodSpec & { initContainers?: Container[] } } }).template.spec;
const containerOf = (object: KubeObject) => podOf(object).containers[0]!;
const argAfter = (container: Container, flag: string) => container.args![container.args!.indexOf(flag) + 1];
const mounts = (container: Container) =>
  (container.volumeMounts ?? []).map(({ mountPath, subPath }) => `${mountPath} ← ${subPath ?? ''}`).sort();

describe.skipIf(!haveHelm)('agents on the nodes', () => {
  it('sets ship.agentEnv on the ship and names it in SVC_SESSION_ENV; the session holder gets none of it', async () => {
    const objects = await render(['--set-json', `ship.agentEnv=${JSON.stringify(AGENT_ENV)}`]);
    const ship = containerOf(named(objects, 'DaemonSet', '-ship'));
    expect(ship.env).toEqual(
      expect.arrayContaining([...AGENT_ENV, { name: 'SVC_SESSION_ENV', value: 'ANTHROPIC_API_KEY,HTTPS_PROXY' }]),
    );
    const holder = containerOf(named(objects, 'DaemonSet', '-sessions'));
    expect((holder.env ?? []).map(({ name }) => name)).toEqual(['SVC_LOG_LEVEL']);
  });

  it('renders no SVC_SESSION_ENV without agentEnv, and no SVC_AGENT_HARNESS without a harness', async () => {
    const ship = containerOf(named(await render([]), 'DaemonSet', '-ship'));
    expect((ship.env ?? []).map(({ name }) => name)).not.toContain('SVC_SESSION_ENV');
    expect((ship.env ?? []).map(({ name }) => name)).not.toContain('SVC_AGENT_HARNESS');
  });

  it('has each new session wire ship.agent.harness, and refuses a harness svc does not know', async () => {
    const ship = containerOf(named(await render(['--set', 'ship.agent.harness=claude-code']), 'DaemonSet', '-ship'));
    expect(ship.env).toContainEqual({ name: 'SVC_AGENT_HARNESS', value: 'claude-code' });
    const run = await template(['--set', 'ship.agent.harness=aider']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/ship\.agent\.harness|\/ship\/agent\/harness/);
  });

  it('refuses an SVC_* name in ship.agentEnv', async () => {
    const run = await template(['--set-json', 'ship.agentEnv=[{"name":"SVC_BRIDGE_TOKEN","value":"x"}]']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/ship\.agentEnv\.0\.name|\/ship\/agentEnv\/0\/name/);
  });

  it('runs ship.image on the ships and session holders, and image on the bridge and the operator', async () => {
    const objects = await render([
      '--set',
      'image.repository=reg.example/svc,image.tag=1.2.3,ship.image.repository=reg.example/svc-agents',
    ]);
    for (const suffix of ['-ship', '-sessions']) {
      const pod = podOf(named(objects, 'DaemonSet', suffix));
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        expect((container as { image?: string }).image, `${suffix}/${container.name}`).toBe(
          'reg.example/svc-agents:1.2.3',
        );
      }
    }
    for (const suffix of ['-bridge', '-operator']) {
      expect((containerOf(named(objects, 'Deployment', suffix)) as { image?: string }).image).toBe(
        'reg.example/svc:1.2.3',
      );
    }
  });

  it("holds the sessions in a DaemonSet rolled only on delete, sharing the ship's fleet, home and /tmp", async () => {
    const objects = await render([]);
    const holderSet = named(objects, 'DaemonSet', '-sessions');
    expect((holderSet.spec as { updateStrategy: unknown }).updateStrategy).toEqual({ type: 'OnDelete' });
    expect(holderSet.metadata.labels).toMatchObject({ 'app.kubernetes.io/component': 'session-holder' });
    const holder = containerOf(holderSet);
    const ship = containerOf(named(objects, 'DaemonSet', '-ship'));
    // The same fleet as the ship; on SIGTERM it reports unpushed work to the operator before the sessions end.
    expect(holder.args).toEqual([
      'session-holder',
      '--fleet-directory',
      argAfter(ship, '--fleet-directory'),
      '--drain-report-to',
      'http://svc-operator.svc.svc:8082/drain-report',
      '--drain-report-credential',
      '/var/run/svc/holder-identity/token',
      '--drain-timeout',
      '20s',
    ]);
    expect(mounts(holder)).toEqual([
      '/home/svc ← home',
      '/tmp ← run',
      '/var/lib/svc/fleet ← fleet',
      '/var/run/svc/holder-identity ← ',
    ]);
    // The same, but for each one's own identity: the ship's projected token for the token exchange, the
    // holder's for the drain report.
    const shared = (list: string[]) => list.filter((mount) => !/^\/var\/run\/svc\/(ship|holder)-identity/.test(mount));
    expect(shared(mounts(ship))).toEqual(shared(mounts(holder)));
    const volumes = (set: KubeObject) =>
      podOf(set).volumes!.filter((volume) => !/^(ship|holder)-identity$/.test(volume.name));
    expect(volumes(holderSet)).toEqual(volumes(named(objects, 'DaemonSet', '-ship')));
    expect(ship.args).toContain('--session-holder');
    expect(argAfter(ship, '--session-url')).toBe('http://$(HOST_IP):4700');
    expect(ship.env).toContainEqual({ name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } });
    // The holder listens on nothing and holds no API token (its projected one only proves which pod it is).
    expect(holder.ports).toBeUndefined();
    expect(podOf(holderSet).automountServiceAccountToken).toBe(false);
  });

  it("lets the holder's agents reach the ship's and the bridge's ports", async () => {
    const objects = await render([]);
    for (const suffix of ['-ship', '-bridge']) {
      const policy = named(objects, 'NetworkPolicy', suffix).spec as {
        ingress: { from?: { podSelector?: { matchLabels: Record<string, string> } }[] }[];
      };
      const components = policy.ingress
        .flatMap((rule) => rule.from ?? [])
        .map((peer) => peer.podSelector?.matchLabels['app.kubernetes.io/component']);
      expect(components, suffix).toContain('session-holder');
    }
  });

  it('renders no session holder for emptyDir fleets or when turned off', async () => {
    for (const args of [
      ['--set', 'ship.fleet.mode=emptyDir'],
      ['--set', 'ship.sessionHolder.enabled=false'],
    ]) {
      const objects = await render(args);
      expect(
        objects.filter((object) => object.metadata.name.endsWith('-sessions')),
        args.join(' '),
      ).toEqual([]);
      const ship = containerOf(named(objects, 'DaemonSet', '-ship'));
      expect(ship.args).not.toContain('--session-holder');
      expect(mounts(ship)).toContain('/tmp ← ');
    }
  });
});
