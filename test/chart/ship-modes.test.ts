// The ship modes of issue #30 under `helm template` (pinned helm): where a ship is registered (node IP
// through hostPort/hostNetwork, or pod IP through the headless Service), where its workspaces live (hostPath,
// emptyDir, one claim per node, a node's directory of one shared claim) with their quota and disk guard, the Pod Security level each combination
// meets (checked field by field by pod-security.ts, since admission needs a cluster) and the one the chart
// labels its namespace with, and the default-deny egress policy for the pods the agents run in, evaluated
// for the addresses that matter: the cloud metadata address, the bridge, DNS, the allowlists. And the repo
// cache's place on the fleet volume (issue #29). And `ship.sessionUser` (docs/security.md H24): root with six
// capabilities, the flag and one shared TMUX_TMPDIR on both containers, and the level that costs.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHIP_ADDRESS_ANNOTATION } from '../../operator/reconcile/names.js';
import { helmAvailable, NAMESPACE, parseObjects, template, valuesFile, type KubeObject } from './render.js';
import {
  baselineViolations,
  podSecurityLevel,
  podSpecOf,
  restrictedViolations,
  type PodSecurityLevel,
} from './pod-security.js';

type Json = Record<string, any>;

const haveHelm = helmAvailable('test/chart/ship-modes.test.ts');

async function render(args: string[]): Promise<KubeObject[]> {
  const run = await template(args);
  if (run.code !== 0) throw new Error(`helm template exited ${run.code}: ${run.stderr}`);
  return parseObjects(run.stdout).map(({ object }) => object);
}
const renderCase = (name: string, ...set: string[]) =>
  render(['--values', valuesFile(name), ...set.flatMap((value) => ['--set', value])]);
const find = (objects: KubeObject[], kind: string, name: string) =>
  objects.find((object) => object.kind === kind && object.metadata.name === name);
const shipSet = (objects: KubeObject[]) => find(objects, 'DaemonSet', 'svc-ship')!;
const shipPod = (objects: KubeObject[]) => podSpecOf(shipSet(objects))!;
const shipArgs = (objects: KubeObject[]) => shipPod(objects).containers[0].args as string[];
/** The session holders' DaemonSet, where the values run one. */
const holderSet = (objects: KubeObject[]) => find(objects, 'DaemonSet', 'svc-sessions');
const holderPod = (objects: KubeObject[]) => podSpecOf(holderSet(objects)!)!;
const flag = (args: string[], name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

async function refusal(set: string[], setJson: string[] = []): Promise<string> {
  const run = await template([
    ...set.flatMap((value) => ['--set', value]),
    ...setJson.flatMap((value) => ['--set-json', value]),
  ]);
  expect(run.code, run.stdout.slice(0, 200)).not.toBe(0);
  return run.stderr;
}

describe.skipIf(!haveHelm)('where the bridge reaches a ship, and the Pod Security level that takes', () => {
  const modes: {
    values: string;
    registration: string;
    hostPort: boolean;
    hostNetwork: boolean;
    hostPath: boolean;
    meets: PodSecurityLevel;
    enforced: PodSecurityLevel;
  }[] = [
    {
      values: 'defaults',
      registration: 'nodeIP',
      hostPort: true,
      hostNetwork: false,
      hostPath: true,
      meets: 'privileged',
      enforced: 'privileged',
    },
    {
      values: 'ships-emptydir',
      registration: 'nodeIP',
      hostPort: true,
      hostNetwork: false,
      hostPath: false,
      meets: 'privileged',
      enforced: 'privileged',
    },
    {
      values: 'ships-hostnetwork',
      registration: 'nodeIP',
      hostPort: false,
      hostNetwork: true,
      hostPath: true,
      meets: 'privileged',
      enforced: 'privileged',
    },
    {
      values: 'ships-podip',
      registration: 'podIP',
      hostPort: false,
      hostNetwork: false,
      hostPath: false,
      meets: 'restricted',
      enforced: 'baseline',
    },
    {
      values: 'ships-volumeclaim',
      registration: 'podIP',
      hostPort: false,
      hostNetwork: false,
      hostPath: false,
      meets: 'restricted',
      enforced: 'baseline',
    },
    {
      values: 'ships-sharedclaim',
      registration: 'podIP',
      hostPort: false,
      hostNetwork: false,
      hostPath: false,
      meets: 'restricted',
      enforced: 'baseline',
    },
    {
      values: 'ships-sharedclaim-held',
      registration: 'nodeIP',
      hostPort: true,
      hostNetwork: false,
      hostPath: true,
      meets: 'privileged',
      enforced: 'privileged',
    },
  ];

  it.each(modes)(
    '$values: registered at the $registration, the ship pods meet $meets and the namespace enforces $enforced',
    async (mode) => {
      const objects = await renderCase(mode.values, 'namespace.create=true');
      const daemonSet = shipSet(objects);
      expect(daemonSet.metadata.annotations?.[SHIP_ADDRESS_ANNOTATION]).toBe(mode.registration);
      const pod = shipPod(objects);
      expect(
        pod.containers[0].ports.some((port: Json) => port.hostPort),
        'hostPort',
      ).toBe(mode.hostPort);
      expect(pod.hostNetwork === true, 'hostNetwork').toBe(mode.hostNetwork);
      expect(
        (pod.volumes as Json[]).some((volume) => volume.hostPath),
        'hostPath',
      ).toBe(mode.hostPath);
      expect(podSecurityLevel(pod), [...baselineViolations(pod), ...restrictedViolations(pod)].join('; ')).toBe(
        mode.meets,
      );
      // Every pod of the release, the session holders' included, is admitted at the enforced level.
      const rank = { privileged: 0, baseline: 1, restricted: 2 };
      for (const object of objects) {
        const spec = podSpecOf(object);
        if (spec)
          expect(rank[podSecurityLevel(spec)], `${object.kind}/${object.metadata.name}`).toBeGreaterThanOrEqual(
            rank[mode.enforced],
          );
      }
      const namespace = find(objects, 'Namespace', NAMESPACE)!;
      expect(namespace.metadata.labels).toMatchObject({
        'pod-security.kubernetes.io/enforce': mode.enforced,
        'pod-security.kubernetes.io/warn': mode.enforced === 'privileged' ? 'baseline' : 'restricted',
        'pod-security.kubernetes.io/audit': mode.enforced === 'privileged' ? 'baseline' : 'restricted',
      });
    },
  );

  it('the bridge, the operator and the bundled PostgreSQL meet restricted in every mode', async () => {
    for (const object of await renderCase('postgresql-bundled')) {
      const spec = podSpecOf(object);
      if (spec && !['svc-ship', 'svc-sessions'].includes(object.metadata.name))
        expect(
          restrictedViolations(spec).concat(baselineViolations(spec)),
          `${object.kind}/${object.metadata.name}`,
        ).toEqual([]);
    }
  });

  it('podIP: a headless Service publishes every ship pod (ready or not) on its http port; the sessions stay in the ship', async () => {
    const objects = await renderCase('ships-podip');
    const service = find(objects, 'Service', 'svc-ship')!;
    expect(service.spec).toEqual({
      clusterIP: 'None',
      publishNotReadyAddresses: true,
      selector: (shipSet(objects).spec as Json).selector.matchLabels,
      ports: [{ name: 'http', port: 4700, targetPort: 'http', protocol: 'TCP' }],
    });
    expect(shipPod(objects).containers[0].ports).toContainEqual({ name: 'http', containerPort: 4700, protocol: 'TCP' });
    expect(holderSet(objects)).toBeUndefined();
    expect(shipArgs(objects)).not.toContain('--session-holder');
    // nodeIP renders no such Service.
    expect(find(await renderCase('defaults'), 'Service', 'svc-ship')).toBeUndefined();
  });

  // Issue #30: "Document which modes need which level". Each row of the README's Pod Security table, rendered
  // with the values it names (every fleet mode it lists), labels the namespace with the level the row says.
  it("README's Pod Security table: each row's level is the one the chart enforces for the values it names", async () => {
    const readme = readFileSync(new URL('../../charts/svc/README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Pod Security\n'));
    const rows = section
      .split('\n')
      .filter((line) => /^\| `(nodeIP|podIP)`/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    expect(rows).toHaveLength(7);
    const fleetModes = ['hostPath', 'emptyDir', 'volumeClaim', 'sharedClaim'];
    const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    for (const [, registrationCell, modeCell, , levelCell] of rows as string[][]) {
      const registration = ticked(registrationCell!)[0]!;
      const network = registrationCell!.includes('hostNetwork') ? 'hostNetwork' : 'hostPort';
      const sessionUser = registrationCell!.includes('ship.sessionUser') ? ['ship.sessionUser.uid=10002'] : [];
      const modes = modeCell === 'any' ? fleetModes : ticked(modeCell!).filter((mode) => fleetModes.includes(mode));
      const level = ticked(levelCell!)[0];
      expect(modes.length, modeCell).toBeGreaterThan(0);
      for (const mode of modes) {
        const claim =
          mode === 'volumeClaim' || mode === 'sharedClaim'
            ? ['ship.fleet.size=1Ti', 'ship.fleet.storageClassName=nfs']
            : [];
        const set = [`ship.registration=${registration}`, `ship.fleet.mode=${mode}`, ...claim, ...sessionUser];
        if (registration === 'nodeIP') set.push(`ship.network=${network}`);
        const objects = await render(['--set', 'namespace.create=true', ...set.flatMap((value) => ['--set', value])]);
        expect(
          find(objects, 'Namespace', NAMESPACE)!.metadata.labels?.['pod-security.kubernetes.io/enforce'],
          set.join(' '),
        ).toBe(level);
      }
    }
  });

  it('podSecurity.enforce stricter than the ships meet is refused, naming the way out; restricted is accepted with podIP', async () => {
    expect(await refusal(['podSecurity.enforce=baseline'])).toContain(
      'podSecurity.enforce=baseline would refuse the ship pods, which need privileged with ship.fleet.mode=hostPath and ship.registration=nodeIP (hostPath, hostPort or hostNetwork; README "Pod Security"): use ship.registration=podIP with fleet.mode emptyDir, volumeClaim or sharedClaim, or enforce privileged',
    );
    expect(await refusal(['podSecurity.enforce=restricted', 'ship.fleet.mode=emptyDir'])).toContain(
      'podSecurity.enforce=restricted would refuse the ship pods',
    );
    for (const values of ['ships-podip', 'ships-sharedclaim']) {
      const objects = await renderCase(values, 'podSecurity.enforce=restricted');
      expect(find(objects, 'Namespace', NAMESPACE)!.metadata.labels, values).toMatchObject({
        'pod-security.kubernetes.io/enforce': 'restricted',
        'pod-security.kubernetes.io/warn': 'restricted',
      });
    }
  });

  it('values.schema.json refuses podIP with hostNetwork, naming the value', async () => {
    expect(await refusal(['ship.registration=podIP', 'ship.network=hostNetwork'])).toMatch(
      /\/ship\/network': value must be 'hostPort'/,
    );
    expect(await refusal(['ship.registration=nodePort'])).toMatch(
      /\/ship\/registration': value must be one of 'nodeIP', 'podIP'/,
    );
  });
});

describe.skipIf(!haveHelm)('where the workspaces live: quota and disk guard', () => {
  it('volumeClaim renders one claim per ship pod, so one per node: the size as the quota, its class, mounted above the fleet', async () => {
    const objects = await renderCase('ships-volumeclaim');
    const pod = shipPod(objects);
    const fleet = (pod.volumes as Json[]).find((volume) => volume.name === 'fleet')!;
    // A DaemonSet runs one pod per node and each pod gets its own claim from this template.
    expect(fleet.ephemeral.volumeClaimTemplate.spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'fast',
      resources: { requests: { storage: '100Gi' } },
    });
    expect(fleet.ephemeral.volumeClaimTemplate.metadata.labels).toMatchObject({
      'app.kubernetes.io/component': 'ship',
    });
    expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'fleet', mountPath: '/var/lib/svc' });
    expect(flag(shipArgs(objects), '--fleet-directory')).toBe('/var/lib/svc/fleet');
    expect(flag(shipArgs(objects), '--max-disk-fill')).toBe('0.9');
    // The claim template's storage class is the only one: no PVC object of its own, no StatefulSet.
    expect(
      objects.filter(
        (object) =>
          object.kind === 'StatefulSet' ||
          (object.kind === 'PersistentVolumeClaim' && object.metadata.name.includes('ship')),
      ),
    ).toEqual([]);
  });

  it('volumeClaim without a size is refused by values.schema.json', async () => {
    expect(await refusal(['ship.fleet.mode=volumeClaim'])).toMatch(/\/ship\/fleet\/size': minLength/);
  });

  it("emptyDir: the size is the fleet volume's sizeLimit; none given, none set", async () => {
    const limited = (shipPod(await renderCase('ships-podip')).volumes as Json[]).find(
      (volume) => volume.name === 'fleet',
    );
    expect(limited).toEqual({ name: 'fleet', emptyDir: { sizeLimit: '20Gi' } });
    const open = (shipPod(await renderCase('ships-emptydir')).volumes as Json[]).find(
      (volume) => volume.name === 'fleet',
    );
    expect(open).toEqual({ name: 'fleet', emptyDir: {} });
  });

  it('the ship gets --max-disk-fill 0.85 by default, the value given, and no flag for null', async () => {
    expect(flag(shipArgs(await renderCase('defaults')), '--max-disk-fill')).toBe('0.85');
    expect(flag(shipArgs(await renderCase('defaults', 'ship.fleet.maxFill=0.7')), '--max-disk-fill')).toBe('0.7');
    expect(
      shipArgs(await render(['--values', valuesFile('defaults'), '--set-json', 'ship.fleet.maxFill=null'])),
    ).not.toContain('--max-disk-fill');
    expect(await refusal(['ship.fleet.maxFill=90'])).toMatch(/\/ship\/fleet\/maxFill'/);
    expect(await refusal(['ship.fleet.maxFill=0'])).toMatch(/\/ship\/fleet\/maxFill'/);
  });

  it('the repo cache sits on the fleet volume by default; its path and idle time are values, and it can be switched off', async () => {
    const defaults = shipArgs(await renderCase('defaults'));
    expect(flag(defaults, '--repo-cache')).toBe('/var/lib/svc/fleet/.svc-ship/repo-cache');
    expect(flag(defaults, '--repo-cache-max-idle')).toBe('14d');
    const moved = shipArgs(
      await renderCase('defaults', 'ship.repoCache.path=/var/lib/svc/fleet/.caches', 'ship.repoCache.maxIdle=0'),
    );
    expect(flag(moved, '--repo-cache')).toBe('/var/lib/svc/fleet/.caches');
    expect(flag(moved, '--repo-cache-max-idle')).toBe('0');
    const off = shipArgs(await renderCase('defaults', 'ship.repoCache.enabled=false'));
    expect(off).toContain('--no-repo-cache');
    expect(off).not.toContain('--repo-cache');
    // Off the fleet's volume, workspaces could not hard-link the cache's objects; a visible name could be a repo's.
    expect(await refusal(['ship.repoCache.path=/tmp/cache'])).toMatch(/\/ship\/repoCache\/path'/);
    expect(await refusal(['ship.repoCache.path=/var/lib/svc/fleet/cache'])).toMatch(/\/ship\/repoCache\/path'/);
    expect(await refusal(['ship.repoCache.maxIdle=two weeks'])).toMatch(/\/ship\/repoCache\/maxIdle'/);
  });
});

describe.skipIf(!haveHelm)('sharedClaim: one ReadWriteMany claim, a directory per node that outlives every pod', () => {
  /** Every pod of the release that mounts the fleet: the ships and, where they run, the session holders. */
  const fleetPods = (objects: KubeObject[]) =>
    [shipSet(objects), holderSet(objects)].filter((set): set is KubeObject => !!set).map((set) => podSpecOf(set)!);
  const NODE_NAME = { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } };

  it('renders the claim once: ReadWriteMany, the size and class given, kept by helm uninstall', async () => {
    const claims = (await renderCase('ships-sharedclaim')).filter(
      (object) =>
        object.kind === 'PersistentVolumeClaim' && object.metadata.labels?.['app.kubernetes.io/component'] === 'ship',
    );
    expect(claims).toHaveLength(1);
    expect(claims[0]!.metadata.name).toBe('svc-fleet');
    expect(claims[0]!.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    expect(claims[0]!.spec).toEqual({
      accessModes: ['ReadWriteMany'],
      storageClassName: 'nfs',
      resources: { requests: { storage: '1Ti' } },
    });
  });

  it.each(['ships-sharedclaim', 'ships-sharedclaim-held'])(
    "%s: every ship and holder pod mounts its node's directory of the claim (subPathExpr $(NODE_NAME) from spec.nodeName), fleet and home alike",
    async (values) => {
      const objects = await renderCase(values);
      const claimName = values === 'ships-sharedclaim' ? 'svc-fleet' : 'team-workspaces';
      const pods = fleetPods(objects);
      expect(pods).toHaveLength(values === 'ships-sharedclaim' ? 1 : 2);
      for (const pod of pods) {
        expect(pod.volumes).toContainEqual({ name: 'fleet', persistentVolumeClaim: { claimName } });
        const container = pod.containers[0];
        expect(container.volumeMounts).toContainEqual({
          name: 'fleet',
          mountPath: '/var/lib/svc/fleet',
          subPathExpr: '$(NODE_NAME)/fleet',
        });
        expect(container.volumeMounts).toContainEqual({
          name: 'fleet',
          mountPath: '/home/svc',
          subPathExpr: '$(NODE_NAME)/home',
        });
        expect(container.env).toContainEqual(NODE_NAME);
        // No workspace or home on the node's disk: a hostPath, where there is one, is mounted at /tmp alone.
        const hostPathVolumes = (pod.volumes as Json[])
          .filter((volume) => volume.hostPath)
          .map((volume) => volume.name);
        for (const mount of container.volumeMounts as Json[])
          if (hostPathVolumes.includes(mount.name))
            expect(mount).toEqual({ name: 'host', mountPath: '/tmp', subPath: 'run' });
      }
      expect(flag(shipArgs(objects), '--fleet-directory')).toBe('/var/lib/svc/fleet');
      expect(flag(shipArgs(objects), '--max-disk-fill')).toBe('0.85');
    },
  );

  it('podIP: no hostPath, no init container, no session holder (a held agent would keep the old pod IP)', async () => {
    const objects = await renderCase('ships-sharedclaim');
    const pod = shipPod(objects);
    expect((pod.volumes as Json[]).filter((volume) => volume.hostPath)).toEqual([]);
    expect(pod.initContainers).toBeUndefined();
    expect(holderSet(objects)).toBeUndefined();
    expect(shipArgs(objects)).not.toContain('--session-holder');
    expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
  });

  it("nodeIP: the session holder runs, sharing the ship's claim directories and the node's run/ (hostPath) as /tmp", async () => {
    const objects = await renderCase('ships-sharedclaim-held');
    const [ship, holder] = fleetPods(objects) as [Json, Json];
    expect(shipArgs(objects)).toContain('--session-holder');
    const shared = (pod: Json) =>
      (pod.containers[0].volumeMounts as Json[]).filter((mount) => !/-identity$/.test(mount.name));
    expect(shared(ship)).toEqual(shared(holder));
    expect(shared(ship)).toContainEqual({ name: 'host', mountPath: '/tmp', subPath: 'run' });
    for (const pod of [ship, holder]) {
      expect(pod.volumes).toContainEqual({
        name: 'host',
        hostPath: { path: '/var/lib/svc', type: 'DirectoryOrCreate' },
      });
      // The init container hands run/ alone to the ship's user; the claim is never chowned.
      expect(pod.initContainers.map((init: Json) => init.command.at(-1))).toEqual([
        'mkdir -p /host/run && chown 10001:10001 /host /host/run',
      ]);
      expect(pod.initContainers[0].volumeMounts).toEqual([{ name: 'host', mountPath: '/host' }]);
    }
    // An existing claim: the release renders none of its own.
    expect(
      objects.filter((object) => object.kind === 'PersistentVolumeClaim' && object.metadata.name === 'svc-fleet'),
    ).toEqual([]);
    // With a session user, run/ is opened for its socket directory, as in hostPath mode.
    const withUser = fleetPods(await renderCase('ships-sharedclaim-held', 'ship.sessionUser.uid=10002'));
    for (const pod of withUser)
      expect(pod.initContainers[0].command.at(-1)).toBe(
        'mkdir -p /host/run && chown 10001:10001 /host /host/run && chmod 1777 /host/run',
      );
  });

  it('refuses a claim without size or class, and an existingClaim the values would ignore, naming them', async () => {
    expect(await refusal(['ship.fleet.mode=sharedClaim', 'ship.fleet.storageClassName=nfs'])).toMatch(
      /\/ship\/fleet\/size': minLength/,
    );
    expect(await refusal(['ship.fleet.mode=sharedClaim', 'ship.fleet.size=1Ti'])).toMatch(
      /\/ship\/fleet\/storageClassName': minLength/,
    );
    expect(
      await refusal(['ship.fleet.mode=volumeClaim', 'ship.fleet.size=1Ti', 'ship.fleet.existingClaim=team']),
    ).toContain(
      'ship.fleet.existingClaim is the claim of ship.fleet.mode=sharedClaim only, and the mode is volumeClaim: set the mode to sharedClaim, or leave existingClaim empty',
    );
    for (const extra of ['ship.fleet.size=1Ti', 'ship.fleet.storageClassName=nfs'])
      expect(await refusal(['ship.fleet.mode=sharedClaim', 'ship.fleet.existingClaim=team', extra]), extra).toContain(
        'ship.fleet.existingClaim brings its own size and storage class: leave ship.fleet.size and ship.fleet.storageClassName empty with it',
      );
    expect(await refusal(['ship.fleet.mode=sharedClaim', 'ship.fleet.existingClaim=Team_Work'])).toMatch(
      /\/ship\/fleet\/existingClaim'/,
    );
  });
});

// --- A NetworkPolicy egress evaluator: which rules of the policies selecting a pod let a connection out. ---

interface Destination {
  ip?: string;
  pod?: { labels: Record<string, string>; namespace: string; namespaceLabels: Record<string, string> };
  port: number;
  protocol?: 'TCP' | 'UDP';
}

function ipv4(ip: string): number {
  return ip.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}
function inCidr(ip: string, cidr: string): boolean {
  if (cidr.includes(':') || ip.includes(':')) return cidr.includes(':') && ip.includes(':') && cidr.endsWith('/0');
  const [base, bits] = cidr.split('/') as [string, string];
  const block = 2 ** (32 - Number(bits));
  return Math.floor(ipv4(ip) / block) === Math.floor(ipv4(base) / block);
}
function selects(selector: Json | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  const matchLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const matchExpressions = (selector.matchExpressions ?? []).every((expression: Json) =>
    expression.operator === 'In'
      ? expression.values.includes(labels[expression.key])
      : expression.operator === 'Exists'
        ? expression.key in labels
        : false,
  );
  return matchLabels && matchExpressions;
}
function peerMatches(peer: Json, policyNamespace: string, to: Destination): boolean {
  if (peer.ipBlock)
    return (
      !!to.ip &&
      inCidr(to.ip, peer.ipBlock.cidr) &&
      !(peer.ipBlock.except ?? []).some((except: string) => inCidr(to.ip!, except))
    );
  if (!to.pod) return false;
  const namespaceOk = peer.namespaceSelector
    ? selects(peer.namespaceSelector, to.pod.namespaceLabels)
    : to.pod.namespace === policyNamespace;
  return namespaceOk && selects(peer.podSelector, to.pod.labels);
}
/** Whether the egress policies selecting a pod with `from` labels let a connection to `to` out (none selecting: open). */
function egressAllows(objects: KubeObject[], from: Record<string, string>, to: Destination): boolean {
  const policies = objects.filter(
    (object) =>
      object.kind === 'NetworkPolicy' &&
      ((object.spec as Json).policyTypes ?? []).includes('Egress') &&
      selects((object.spec as Json).podSelector, from),
  );
  if (!policies.length) return true;
  return policies.some((policy) =>
    ((policy.spec as Json).egress ?? []).some((rule: Json) => {
      const peers = rule.to ?? [];
      const portOk =
        !rule.ports ||
        rule.ports.some((port: Json) => port.port === to.port && (port.protocol ?? 'TCP') === (to.protocol ?? 'TCP'));
      return (
        portOk && (peers.length === 0 || peers.some((peer: Json) => peerMatches(peer, policy.metadata.namespace!, to)))
      );
    }),
  );
}

describe.skipIf(!haveHelm)('ship.egress.restrict: default-deny egress for the pods the agents run in', () => {
  const SHIP = {
    'app.kubernetes.io/name': 'svc',
    'app.kubernetes.io/instance': 'svc',
    'app.kubernetes.io/component': 'ship',
  };
  const HOLDER = { ...SHIP, 'app.kubernetes.io/component': 'session-holder' };
  const BRIDGE = { ...SHIP, 'app.kubernetes.io/component': 'bridge' };
  const inNamespace = (labels: Record<string, string>, namespace = NAMESPACE) => ({
    labels,
    namespace,
    namespaceLabels: { 'kubernetes.io/metadata.name': namespace },
  });
  const KUBE_DNS = inNamespace({ 'k8s-app': 'kube-dns' }, 'kube-system');

  it('off (the default) renders no egress policy: egress stays open', async () => {
    const objects = await renderCase('defaults');
    expect(
      objects.filter(
        (object) => object.kind === 'NetworkPolicy' && ((object.spec as Json).policyTypes ?? []).includes('Egress'),
      ),
    ).toEqual([]);
    expect(egressAllows(objects, SHIP, { ip: '169.254.169.254', port: 80 })).toBe(true);
  });

  it("on with no allowlist: the metadata address and the internet are refused; DNS, the bridge and the ships' port are allowed", async () => {
    const objects = await renderCase('defaults', 'ship.egress.restrict=true');
    for (const pod of [SHIP, HOLDER]) {
      expect(egressAllows(objects, pod, { ip: '169.254.169.254', port: 80 })).toBe(false);
      expect(egressAllows(objects, pod, { ip: '8.8.8.8', port: 443 })).toBe(false);
      expect(egressAllows(objects, pod, { pod: inNamespace(BRIDGE), port: 4800 })).toBe(true);
      expect(egressAllows(objects, pod, { pod: inNamespace(BRIDGE), port: 22 })).toBe(false);
      expect(egressAllows(objects, pod, { pod: KUBE_DNS, port: 53, protocol: 'UDP' })).toBe(true);
      expect(
        egressAllows(objects, pod, {
          pod: inNamespace({ 'app.kubernetes.io/name': 'nginx' }, 'ingress-nginx'),
          port: 443,
        }),
      ).toBe(true);
      expect(egressAllows(objects, pod, { pod: inNamespace(SHIP), port: 4700 })).toBe(true);
      // Another team's pod in the namespace is no exception.
      expect(egressAllows(objects, pod, { pod: inNamespace({ app: 'payments' }), port: 443 })).toBe(false);
    }
    // The bridge and the operator are not selected: their egress is unchanged.
    expect(egressAllows(objects, BRIDGE, { ip: '8.8.8.8', port: 443 })).toBe(true);
  });

  it('with allowlists: the forge and model API ranges on their ports, the metadata address excepted even from 0.0.0.0/0', async () => {
    const objects = await renderCase('ships-egress');
    expect(egressAllows(objects, SHIP, { ip: '140.82.112.3', port: 22 })).toBe(true);
    expect(egressAllows(objects, SHIP, { ip: '140.82.112.3', port: 443 })).toBe(true);
    expect(egressAllows(objects, SHIP, { ip: '8.8.8.8', port: 443 })).toBe(true);
    expect(egressAllows(objects, SHIP, { ip: '8.8.8.8', port: 80 })).toBe(false);
    expect(egressAllows(objects, SHIP, { ip: '10.20.0.5', port: 3128 })).toBe(true);
    for (const port of [80, 443]) expect(egressAllows(objects, HOLDER, { ip: '169.254.169.254', port })).toBe(false);
    expect(egressAllows(objects, SHIP, { pod: inNamespace(BRIDGE), port: 4800 })).toBe(true);
    const policy = find(objects, 'NetworkPolicy', 'svc-ship-egress')!;
    const everywhere = ((policy.spec as Json).egress as Json[])
      .flatMap((rule) => rule.to ?? [])
      .find((peer: Json) => peer.ipBlock?.cidr === '0.0.0.0/0');
    expect(everywhere.ipBlock.except).toEqual(['169.254.169.254/32']);
  });

  it("a range holding the metadata address gets it excepted, IPv6 ::/0 AWS's; a range without it none", async () => {
    const objects = await render([
      '--set',
      'ship.egress.restrict=true',
      '--set-json',
      'ship.egress.modelApis=[{"cidr":"169.254.0.0/16","ports":[443]},{"cidr":"160.0.0.0/4","ports":[443]},{"cidr":"10.0.0.0/8","ports":[443]},{"cidr":"::/0","ports":[443]}]',
    ]);
    const blocks = ((find(objects, 'NetworkPolicy', 'svc-ship-egress')!.spec as Json).egress as Json[])
      .flatMap((rule) => rule.to ?? [])
      .filter((peer: Json) => peer.ipBlock)
      .map((peer: Json) => peer.ipBlock);
    expect(blocks).toEqual([
      { cidr: '169.254.0.0/16', except: ['169.254.169.254/32'] },
      { cidr: '160.0.0.0/4', except: ['169.254.169.254/32'] },
      { cidr: '10.0.0.0/8' },
      { cidr: '::/0', except: ['fd00:ec2::254/128'] },
    ]);
    expect(egressAllows(objects, SHIP, { ip: '169.254.1.1', port: 443 })).toBe(true);
    expect(egressAllows(objects, SHIP, { ip: '169.254.169.254', port: 443 })).toBe(false);
  });

  it('refuses the metadata address as an allowlist entry, hostNetwork ships, and entries without ports', async () => {
    expect(
      await refusal(['ship.egress.restrict=true'], ['ship.egress.forge=[{"cidr":"169.254.169.254/32","ports":[80]}]']),
    ).toContain(
      "ship.egress: 169.254.169.254/32 is the cloud metadata address; the ships' egress policy never allows it",
    );
    expect(await refusal(['ship.egress.restrict=true', 'ship.network=hostNetwork'])).toContain(
      'ship.egress.restrict does not apply to ship.network=hostNetwork',
    );
    expect(await refusal([], ['ship.egress.forge=[{"cidr":"140.82.112.0/20"}]'])).toMatch(
      /\/ship\/egress\/forge\/0': missing property 'ports'/,
    );
    expect(await refusal([], ['ship.egress.forge=[{"cidr":"github.com","ports":[443]}]'])).toMatch(
      /\/ship\/egress\/forge\/0\/cidr': 'github.com' does not match pattern/,
    );
  });
});

describe.skipIf(!haveHelm)('ship.sessionUser: sessions as another user (docs/security.md H24)', () => {
  const ROOT_WITH_SIX = {
    runAsNonRoot: false,
    runAsUser: 0,
    runAsGroup: 0,
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ['ALL'], add: ['SETUID', 'SETGID', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'KILL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
  const envOf = (container: Json) =>
    Object.fromEntries((container.env as Json[]).map((entry) => [entry.name, entry.value]));

  it('off (the default): no flag, no TMUX_TMPDIR, and every container of the release runs as a non-root user', async () => {
    for (const name of ['defaults', 'ships-podip']) {
      const objects = await renderCase(name);
      for (const object of objects) {
        const spec = podSpecOf(object);
        for (const container of spec?.containers ?? []) {
          expect(container.args ?? [], `${object.metadata.name}/${container.name}`).not.toContain('--session-user');
          expect(
            envOf({ env: container.env ?? [] }).TMUX_TMPDIR,
            `${object.metadata.name}/${container.name}`,
          ).toBeUndefined();
          expect(container.securityContext.runAsUser, `${object.metadata.name}/${container.name}`).toBe(10001);
          expect(container.securityContext.capabilities).toEqual({ drop: ['ALL'] });
        }
      }
    }
  });

  it('on: ship and session holder run as root with the six capabilities only, both pass --session-user and share TMUX_TMPDIR', async () => {
    const objects = await renderCase('ships-session-user');
    const ship = shipPod(objects).containers[0];
    const holder = holderPod(objects).containers[0];
    for (const container of [ship, holder]) {
      expect(container.securityContext, container.name).toEqual(ROOT_WITH_SIX);
      expect(flag(container.args, '--session-user'), container.name).toBe('10002:10002');
      expect(envOf(container).TMUX_TMPDIR, container.name).toBe('/tmp');
      // The same directory of the node in both pods: the holder's socket is where the ship looks.
      expect(container.volumeMounts, container.name).toContainEqual({
        name: 'host',
        mountPath: '/tmp',
        subPath: 'run',
      });
    }
    // The node's run/ is opened (sticky, world-writable) so the session user reaches its socket directory.
    for (const pod of [shipPod(objects), holderPod(objects)]) {
      const init = pod.initContainers[0];
      expect(init.command.at(-1)).toMatch(/&& chmod 1777 \/host\/run$/);
      expect(init.securityContext.capabilities).toEqual({ drop: ['ALL'], add: ['CHOWN', 'FOWNER'] });
    }
    // No fsGroup on either pod: with every container root, the kubelet writes their projected tokens 0600
    // root:root (an fsGroup would make them 0640 to it). test/chart/service-e2e.test.ts runs them.
    for (const pod of [shipPod(objects), holderPod(objects)]) {
      expect(pod.securityContext).toEqual({
        runAsNonRoot: true,
        runAsUser: 10001,
        runAsGroup: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      });
    }
    // The bridge and the operator are unchanged.
    for (const name of ['svc-bridge', 'svc-operator']) {
      expect(podSpecOf(find(objects, 'Deployment', name)!)!.containers[0].securityContext.runAsUser, name).toBe(10001);
      expect(podSpecOf(find(objects, 'Deployment', name)!)!.securityContext.fsGroup, name).toBe(10001);
    }
  });

  it("refuses the image's user or group (10001) as the session user's, naming the option", async () => {
    for (const set of [['ship.sessionUser.uid=10001'], ['ship.sessionUser.uid=10002', 'ship.sessionUser.gid=10001']]) {
      expect(await refusal(set), set.join(' ')).toContain(
        "ship.sessionUser: uid and gid must not be 10001, the image's user: it owns the node's fleet and home directories",
      );
    }
  });

  it('the gid defaults to the uid', async () => {
    const objects = await renderCase('defaults', 'ship.sessionUser.uid=10003');
    expect(flag(shipArgs(objects), '--session-user')).toBe('10003:10003');
    expect(flag(holderPod(objects).containers[0].args, '--session-user')).toBe('10003:10003');
  });

  it.each([
    { values: 'ships-podip', meets: 'baseline', enforced: 'baseline' },
    { values: 'ships-volumeclaim', meets: 'baseline', enforced: 'baseline' },
    { values: 'ships-sharedclaim', meets: 'baseline', enforced: 'baseline' },
    { values: 'defaults', meets: 'privileged', enforced: 'privileged' },
  ] as const)(
    '$values with a session user: the ship pods meet $meets, the namespace enforces $enforced',
    async ({ values, meets, enforced }) => {
      const objects = await renderCase(values, 'namespace.create=true', 'ship.sessionUser.uid=10002');
      const pod = shipPod(objects);
      expect(podSecurityLevel(pod), [...baselineViolations(pod), ...restrictedViolations(pod)].join('; ')).toBe(meets);
      expect(find(objects, 'Namespace', NAMESPACE)!.metadata.labels).toMatchObject({
        'pod-security.kubernetes.io/enforce': enforced,
      });
    },
  );

  it('refuses restricted with a session user, naming the option; accepts baseline', async () => {
    expect(
      await refusal([
        'podSecurity.enforce=restricted',
        'ship.registration=podIP',
        'ship.fleet.mode=emptyDir',
        'ship.sessionUser.uid=10002',
      ]),
    ).toContain(
      'podSecurity.enforce=restricted would refuse the ship pods, which need baseline with ship.sessionUser set (root with the capabilities SETUID, SETGID, CHOWN, DAC_OVERRIDE, FOWNER and KILL; README "Pod Security"): enforce baseline, or leave ship.sessionUser empty',
    );
    const objects = await renderCase('ships-podip', 'podSecurity.enforce=baseline', 'ship.sessionUser.uid=10002');
    expect(find(objects, 'Namespace', NAMESPACE)!.metadata.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'baseline',
    });
  });

  it('values.schema.json refuses root, a name and a missing uid', async () => {
    expect(await refusal(['ship.sessionUser.uid=0'])).toMatch(/\/ship\/sessionUser/);
    expect(await refusal(['ship.sessionUser.uid=10002', 'ship.sessionUser.gid=0'])).toMatch(/\/ship\/sessionUser/);
    expect(await refusal(['ship.sessionUser.uid=agent'])).toMatch(/\/ship\/sessionUser/);
    expect(await refusal(['ship.sessionUser.gid=10002'])).toMatch(/\/ship\/sessionUser/);
  });
});
