// The chart's configuration runs (issue #20, "Tests"): `helm template` with service-e2e.values.yaml (the
// defaults, an external PostgreSQL through a Secret of the user's), and the bridge Deployment's, the ship
// DaemonSet's and the operator Deployment's containers run as processes on this machine exactly as
// rendered, through kubelet.ts (which lists the few things one machine cannot keep: ports, volume paths,
// cluster DNS, the entrypoint's path, the service-account mount). Real PostgreSQL (a fresh schema); the fake
// Kubernetes API server with the chart's CRDs stands for the cluster, authorizing the operator by the
// chart's own Role and RoleBinding; this test plays the DaemonSet controller and the kubelet (one node: it
// makes the ship pod, starts its container, probes it and marks it Ready).
// What must follow from the configuration alone: the operator creates the ship token Secret, the bridge
// starts on PostgreSQL with the first admin, the operator turns the ready ship pod into the node's Ship and
// registers it (Ready=True, online on the bridge), and a workspace created through the bridge on that ship
// answers on its terminal. The repository is served by `git daemon`: the chart's `--no-local-repos` and
// GIT_ALLOW_PROTOCOL refuse file:// clones.
// A fresh install: no Secret but the database's exists beforehand; the operator creates the first-admin
// Secret (and logs in with it, read through the API), and the bridge's container waits for it as a kubelet does.
// Agents on the node (issue #27): the session-holder DaemonSet's container runs too, the workspace's shell is
// its process (not the ship's) and sees `ship.agentEnv`'s key from a Secret, and a ship replaced by a pod of
// a new image tag adopts the session: the workspace stays active with the same shell. `ship.agent.harness`
// has the session write its agent's MCP configuration, pointing at the ship through the node's address.
// Per-node token pairs (issue #30): a second node runs its own holder and ship; each ship fetches its own
// node's pair from the operator's token exchange with its pod's projected token (the fake API server
// answers the TokenReview), refuses the other node's bridge token, and follows a rotation of its pair.
// The drain report (issue #30): the session holder, given SIGTERM as tini forwards it (to its own process),
// reports the workspace with a local commit and a changed file in an Event on its node's Ship and a line in
// the bridge's log before its sessions end; a clean workspace beside it is not named.
// Sessions as another user (issue #30, docs/security.md H24): a third node runs the holder and ship pods of
// the chart rendered with `ship.sessionUser` (their init container too, which opens the node's run/), as
// root like the chart's containers then. Its workspace's shell runs as that uid, not the ship's, and cannot
// read the ship's /proc/<pid>/environ, the ship's projected token (audience svc.dev/ship-tokens) or the
// holder's (svc.dev/drain-report), written with the mode and owner the kubelet gives them (kubelet.ts). The
// uid switch needs root: that node is left out, with a warning, when the test does not run as root.
import { randomBytes, randomInt } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECONCILE_DEFAULTS } from '../../operator/reconcile/names.js';
import { tmuxSocketFor } from '../../ship/sessions/tmux-socket.js';
import { startFakeKubeApi, type FakeKubeApi, type KubeObject as FakeObject } from '../fakes/kube-api/index.js';
import { kubeconfigYaml } from '../fakes/kube-api/kubeconfig.js';
import type { RequestAttributes } from '../fakes/kube-api/server.js';
import { killFleetTmux } from '../helpers/cli.js';
import { postgresSchema } from '../helpers/databases.js';
import { git, makeRemote } from '../helpers/git-fixtures.js';
import { until } from '../helpers/poll.js';
import { freePort } from '../helpers/ports.js';
import { call, makeTempRoot, path, removeRoot } from '../helpers/ship.js';
import { connectTerminal } from '../helpers/terminal.js';
import {
  fieldOf,
  forwardHostPorts,
  groupMembers,
  imageOf,
  launchOf,
  podPorts,
  runInitContainers,
  serviceRoutes,
  startContainer,
  waitReady,
  type Container,
  type ContainerProcess,
  type Launch,
  type Placement,
  type Pod,
  type PodSpec,
} from './kubelet.js';
import { CHART, helmAvailable, NAMESPACE, parseObjects, ROOT, template, type KubeObject } from './render.js';

const hasPostgres = !!process.env.TEST_DATABASE_URL;
if (!hasPostgres) {
  if (process.env.CI === 'true')
    throw new Error('CI=true but TEST_DATABASE_URL is not set: the chart end-to-end test needs PostgreSQL');
  console.warn('test/chart/service-e2e.test.ts: skipped: TEST_DATABASE_URL is not set (the bridge runs on PostgreSQL)');
}

const VALUES = join(import.meta.dirname, 'service-e2e.values.yaml');
const DATABASE_SECRET = { name: 'e2e-database', key: 'url' };
const NODE = 'e2e-node-1';
// The node's address: somewhere on 127.0.0.0/8, so its hostPort 4700 (fixed in the chart and the operator)
// is unlikely to meet another listener.
const HOST_IP = `127.${randomInt(1, 128)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
// A second node, with its own holder and ship.
const NODE_2 = 'e2e-node-2';
const HOST_IP_2 = `127.${randomInt(128, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
// A third node, whose pods come from the chart rendered with ship.sessionUser (root only).
const NODE_3 = 'e2e-node-3';
const HOST_IP_3 = `127.0.${randomInt(1, 256)}.${randomInt(1, 255)}`;
const SESSION_UID = 10002;
const AS_ROOT = process.getuid?.() === 0;
if (!AS_ROOT)
  console.warn(
    `test/chart/service-e2e.test.ts: node ${NODE_3} (ship.sessionUser) left out: switching the sessions' user needs root`,
  );
const HOSTS: Record<string, string> = { [NODE]: HOST_IP, [NODE_2]: HOST_IP_2, [NODE_3]: HOST_IP_3 };
const CONVERGE_MS = 60_000;
const AGENT_KEY = { secret: 'e2e-agent-keys', key: 'model', value: `model-key-${randomBytes(6).toString('hex')}` };

/**
 * Everything in which a process may differ from its rendered container (kubelet.ts says why each one):
 * any other difference, or one of these missing, fails the test.
 */
const SUBSTITUTED: Record<string, string[]> = {
  bridge: [
    'entrypoint',
    'arg --port',
    'arg --data-directory',
    'arg --public-url',
    'arg --metrics-port',
    'env HOME',
    'env PATH (added)',
    'env TMPDIR (added)',
    'env TMUX_TMPDIR (added)',
  ],
  ship: [
    'entrypoint',
    'arg --port',
    'arg --fleet-directory',
    'arg --repo-cache',
    'arg --bridge-url',
    'arg --tokens-from',
    'arg --tokens-credential',
    'arg --metrics-port',
    'env HOME',
    'env PATH (added)',
    'env TMPDIR (added)',
    'env TMUX_TMPDIR (added)',
  ],
  sessions: [
    'entrypoint',
    'arg --fleet-directory',
    'arg --drain-report-to',
    'arg --drain-report-credential',
    'env HOME',
    'env PATH (added)',
    'env TMPDIR (added)',
    'env TMUX_TMPDIR (added)',
  ],
  operator: [
    'entrypoint',
    'arg --health-port',
    'arg --token-exchange-port',
    'env SVC_BRIDGE_URL',
    'env HOME',
    'env PATH (added)',
    'env TMPDIR (added)',
    'env TMUX_TMPDIR (added)',
    'env KUBECONFIG (added)',
  ],
};

type Json = Record<string, any>;

function decode(data: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]),
  );
}

/**
 * The API server's authorizer for the chart's RBAC: a service account may do what the rendered Roles and
 * ClusterRoles bound to it allow (RoleBindings in their namespace, ClusterRoleBindings everywhere); the
 * fake's default user (this test) may do anything. Refusals are recorded.
 */
function renderedRbac(objects: KubeObject[], refused: string[]): (request: RequestAttributes) => boolean {
  const role = (kind: string, name: string, namespace?: string) =>
    objects.find(
      (object) =>
        object.kind === kind &&
        object.metadata.name === name &&
        (kind === 'ClusterRole' || object.metadata.namespace === namespace),
    );
  return (request) => {
    if (request.user === 'admin') return true;
    const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
    const allowed = objects
      .filter((object) => object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding')
      .some((binding: Json) => {
        if (binding.kind === 'RoleBinding' && binding.metadata.namespace !== request.namespace) return false;
        if (
          !binding.subjects.some(
            (subject: Json) =>
              request.user === `system:serviceaccount:${subject.namespace}:${subject.name}` &&
              subject.kind === 'ServiceAccount',
          )
        )
          return false;
        const rules =
          (role(binding.roleRef.kind, binding.roleRef.name, binding.metadata.namespace) as Json | undefined)?.rules ??
          [];
        return rules.some(
          (rule: Json) =>
            ['apiGroups', 'resources', 'verbs'].every((field) => {
              const wanted = { apiGroups: request.group, resources: resource, verbs: request.verb }[field]!;
              return rule[field].includes('*') || rule[field].includes(wanted);
            }) &&
            (!rule.resourceNames?.length || rule.resourceNames.includes(request.name)),
        );
      });
    if (!allowed)
      refused.push(`${request.user} ${request.verb} ${resource} ${request.namespace ?? ''}/${request.name ?? ''}`);
    return allowed;
  };
}

describe.skipIf(!helmAvailable('test/chart/service-e2e.test.ts') || !hasPostgres)(
  'the rendered chart, run as processes',
  () => {
    const image = imageOf(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    const refused: string[] = [];
    const running: ContainerProcess[] = [];
    const launches: Record<string, { launch: Launch; container: Container; placement: Placement }> = {};
    /** Every process's argv, by its name (`<component>@<node>` off the first node). */
    const argvs: Record<string, string[]> = {};
    /** The third node's own root: traversable (0711), so only a file's own mode keeps the session user out. */
    let sessionUserRoot: string | undefined;
    const closers: Array<() => Promise<unknown>> = [];
    let objects: KubeObject[];
    let root: string;
    let fake: FakeKubeApi;
    let bridgeUrl: string;
    let serviceAccount: string;
    let freshInstallOperator: Launch | { waiting: string };

    const workload = (kind: string, component: string) => {
      const found = objects.find(
        (object) => object.kind === kind && object.metadata.labels?.['app.kubernetes.io/component'] === component,
      );
      if (!found) throw new Error(`the chart rendered no ${kind} for the ${component}`);
      return found as KubeObject & { spec: { template: { metadata: Json; spec: PodSpec } } };
    };
    const secret = (name: string) => {
      const found = fake.read('v1', 'Secret', name, NAMESPACE);
      return found && decode(found.data as Record<string, string>);
    };
    const ship = (node = NODE) =>
      fake.read('svc.dev/v1alpha1', 'Ship', node, NAMESPACE) as
        | (FakeObject & { spec: Json; status?: Json })
        | undefined;
    const admin = () => secret(RECONCILE_DEFAULTS.adminSecret)!;
    const asAdmin = async () => {
      const login = await call(bridgeUrl, 'POST', '/auth/login', {
        username: admin().username,
        password: admin().password,
      });
      if (login.status !== 200) throw new Error(`login as the chart's first admin: ${login.status} ${login.text}`);
      const token = (login.body as { token: string }).token;
      return (method: string, route: string, body?: unknown) =>
        call(bridgeUrl, method, route, body, { authorization: `Bearer ${token}` });
    };

    /**
     * Starts a container as the kubelet would once its Secrets exist, and waits for its readiness probe. The
     * second node's processes are named `<component>@<node>` and not compared with their containers (the
     * first node's are).
     */
    const runContainer = async (component: string, pod: Pod, placement: Placement) => {
      const node = pod.spec.nodeName ?? NODE;
      const name = node === NODE ? component : `${component}@${node}`;
      const container = pod.spec.containers[0]!;
      let launch = launchOf(image, container, placement);
      const startable = () => {
        launch = launchOf(image, container, placement);
        return !('waiting' in launch) && launch;
      };
      const waitingFor = () =>
        `the ${component} container to start: it waits for ${'waiting' in launch && launch.waiting}`;
      launch = await until(startable, waitingFor, CONVERGE_MS, 100);
      if (node === NODE) launches[component] = { launch, container, placement };
      argvs[name] = launch.argv;
      const started = startContainer(name, launch);
      running.push(started);
      await waitReady(started, container, pod.spec, placement.ports);
      return launch;
    };

    let startHolderPod: (
      node: string,
      holderSet?: KubeObject & { spec: { template: { metadata: Json; spec: PodSpec } } },
    ) => Promise<void>;
    let startShipPod: (
      shipSet: KubeObject & { spec: { template: { metadata: Json; spec: PodSpec } } },
      node?: string,
    ) => Promise<string>;

    beforeAll(async () => {
      const rendered = await template(['--values', VALUES]);
      if (rendered.code !== 0) throw new Error(`helm template exited ${rendered.code}: ${rendered.stderr}`);
      objects = parseObjects(rendered.stdout).map(({ object }) => object);
      const holderSet = workload('DaemonSet', 'session-holder');
      const bridge = workload('Deployment', 'bridge');
      const shipSet = workload('DaemonSet', 'ship');
      const operator = workload('Deployment', 'operator');
      const bridgeService = objects.find(
        (object) => object.kind === 'Service' && object.metadata.name === 'svc-bridge',
      )!;
      const operatorService = objects.find(
        (object) => object.kind === 'Service' && object.metadata.name === 'svc-operator',
      )!;
      // The same release with ship.sessionUser: the third node's holder and ship pods.
      let apart: { holderSet: typeof holderSet; shipSet: typeof shipSet } | undefined;
      if (AS_ROOT) {
        const run = await template(['--values', VALUES, '--set', `ship.sessionUser.uid=${SESSION_UID}`]);
        if (run.code !== 0) throw new Error(`helm template (ship.sessionUser) exited ${run.code}: ${run.stderr}`);
        const rendered = parseObjects(run.stdout).map(({ object }) => object);
        const of = (component: string) =>
          rendered.find(
            (object) =>
              object.kind === 'DaemonSet' && object.metadata.labels?.['app.kubernetes.io/component'] === component,
          ) as typeof shipSet;
        apart = { holderSet: of('session-holder'), shipSet: of('ship') };
        // Outside the run's temp directory (0700, root's), which the session user could not traverse.
        sessionUserRoot = await mkdtemp('/tmp/svc-chart-session-user-');
        chmodSync(sessionUserRoot, 0o711);
        const made = sessionUserRoot;
        closers.push(() => removeRoot(made));
      }

      root = await makeTempRoot('svc-test-chart-e2e-');
      closers.push(() => removeRoot(root));
      const schema = await postgresSchema();
      closers.push(() => schema.drop());
      fake = await startFakeKubeApi({
        crds: join(CHART, 'crds'),
        namespace: NAMESPACE,
        authorize: renderedRbac(objects, refused),
      });
      closers.push(() => fake.close());
      // The operator's service-account token, as a kubeconfig (the fake names its own files after the user,
      // whose colons would split KUBECONFIG).
      const serviceAccountToken = randomBytes(24).toString('base64url');
      serviceAccount = `system:serviceaccount:${NAMESPACE}:${operator.spec.template.spec.serviceAccountName}`;
      fake.addToken(serviceAccountToken, serviceAccount);
      const serviceAccountKubeconfig = join(root, 'service-account.kubeconfig');
      writeFileSync(
        serviceAccountKubeconfig,
        kubeconfigYaml({ server: fake.url, caPem: fake.caPem, token: serviceAccountToken, namespace: NAMESPACE }),
        { mode: 0o600 },
      );

      const ports = {
        bridge: await podPorts(bridge.spec.template.spec),
        operator: await podPorts(operator.spec.template.spec),
      };
      // The ships and the holders: one pod each per node, each pod its own ports.
      const nodePorts: Record<string, { ship: Map<number, number>; sessions: Map<number, number> }> = {};
      for (const node of AS_ROOT ? [NODE, NODE_2, NODE_3] : [NODE, NODE_2])
        nodePorts[node] = {
          ship: await podPorts(shipSet.spec.template.spec),
          sessions: await podPorts(holderSet.spec.template.spec),
        };
      const services = new Map([
        ...serviceRoutes(bridgeService, bridge.spec.template.spec, ports.bridge),
        ...serviceRoutes(operatorService, operator.spec.template.spec, ports.operator),
      ]);
      const podOf = (component: string, spec: PodSpec, node = NODE): Pod => ({
        metadata: { name: `svc-${component}-${randomBytes(3).toString('hex')}`, namespace: NAMESPACE },
        spec: { ...spec, nodeName: node },
      });
      const placementOf = (pod: Pod, component: 'bridge' | 'operator' | 'ship' | 'sessions'): Placement => {
        const node = pod.spec.nodeName ?? NODE;
        const apartNode = node === NODE_3;
        return {
          pod,
          nodeRoot: apartNode ? join(sessionUserRoot!, 'node') : join(root, node === NODE ? 'node' : node),
          podRoot: join(apartNode ? sessionUserRoot! : root, 'pods', pod.metadata.name),
          // The session user's tmux socket and the ship's pane pipes are in the node's run/ (its /tmp).
          tmpOnVolume: apartNode,
          ports: component === 'ship' || component === 'sessions' ? nodePorts[node]![component] : ports[component],
          secret,
          services,
          kubeconfig:
            pod.spec.serviceAccountName && pod.spec.automountServiceAccountToken !== false
              ? serviceAccountKubeconfig
              : undefined,
          // The kubelet's TokenRequest for a projected volume: a token the API server knows as bound to this pod.
          projectedToken: (audience) => {
            const token = randomBytes(24).toString('base64url');
            const uid = (pod.metadata as { uid?: string }).uid;
            if (!uid || !pod.spec.serviceAccountName)
              throw new Error(`pod ${pod.metadata.name} has no uid or service account to bind a token to`);
            fake.addBoundToken(token, {
              namespace: NAMESPACE,
              serviceAccount: pod.spec.serviceAccountName,
              podName: pod.metadata.name,
              podUid: uid,
              audiences: [audience],
            });
            return token;
          },
        };
      };

      // Before `helm install`, the user creates the database Secret the values name (here: a fresh schema).
      fake.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: DATABASE_SECRET.name, namespace: NAMESPACE },
        type: 'Opaque',
        stringData: { [DATABASE_SECRET.key]: schema.url },
      });
      fake.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: AGENT_KEY.secret, namespace: NAMESPACE },
        type: 'Opaque',
        stringData: { [AGENT_KEY.key]: AGENT_KEY.value },
      });
      // `helm install`: of the rendered objects, the fake serves the DaemonSet (the operator watches it); the
      // Deployments' pods are this test's processes, their Services its port map.
      const daemonSet = fake.create(shipSet);
      const operatorPod = podOf('operator', operator.spec.template.spec);
      freshInstallOperator = launchOf(image, operatorPod.spec.containers[0]!, placementOf(operatorPod, 'operator'));

      await runContainer('operator', operatorPod, placementOf(operatorPod, 'operator'));
      const bridgePod = podOf('bridge', bridge.spec.template.spec);
      bridgeUrl = `http://${[...services.values()][0]}`;
      await runContainer('bridge', bridgePod, placementOf(bridgePod, 'bridge'));

      // The session holder's pod on each node (its DaemonSet is rolled only on delete: nothing watches it).
      // In the API server, as its DaemonSet controller makes it: the operator checks a drain report's pod.
      const holderDaemonSet = fake.create(holderSet);
      startHolderPod = async (node, set = holderSet) => {
        const podTemplate = set.spec.template;
        const holderPod = fake.create({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: `svc-sessions-${randomBytes(3).toString('hex')}`,
            namespace: NAMESPACE,
            labels: podTemplate.metadata.labels,
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'DaemonSet',
                name: holderDaemonSet.metadata.name,
                uid: holderDaemonSet.metadata.uid,
                controller: true,
              },
            ],
          },
          spec: { ...podTemplate.spec, nodeName: node },
        }) as unknown as Pod;
        if (node === NODE_3) runInitContainers(placementOf(holderPod, 'sessions'));
        await runContainer('sessions', holderPod, placementOf(holderPod, 'sessions'));
      };
      for (const node of [NODE, NODE_2]) await startHolderPod(node);
      if (apart) await startHolderPod(NODE_3, apart.holderSet);

      // The DaemonSet controller's pod for the node, and the kubelet: start it, forward its hostPort, mark it
      // Ready once its readiness probe answers. The kubelet knows the pod's host IP when it starts it.
      startShipPod = async (set, node = NODE) => {
        const podTemplate = set.spec.template;
        const hostIP = HOSTS[node]!;
        const created = fake.create({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: `svc-ship-${randomBytes(3).toString('hex')}`,
            namespace: NAMESPACE,
            labels: podTemplate.metadata.labels,
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'DaemonSet',
                name: daemonSet.metadata.name,
                uid: daemonSet.metadata.uid,
                controller: true,
              },
            ],
          },
          spec: { ...podTemplate.spec, nodeName: node },
        }) as unknown as Pod;
        const shipPod = { ...created, status: { hostIP, podIP: hostIP } };
        if (node === NODE_3) runInitContainers(placementOf(shipPod, 'ship'));
        await runContainer('ship', shipPod, placementOf(shipPod, 'ship'));
        fake.writeStatus(
          'v1',
          'Pod',
          shipPod.metadata.name,
          { phase: 'Running', hostIP, podIP: hostIP, conditions: [{ type: 'Ready', status: 'True' }] },
          NAMESPACE,
        );
        return shipPod.metadata.name;
      };
      for (const [node, set] of [
        [NODE, shipSet],
        [NODE_2, shipSet],
        ...(apart ? [[NODE_3, apart.shipSet] as const] : []),
      ] as const) {
        const forwarder = await forwardHostPorts(
          set.spec.template.spec.containers[0]!,
          HOSTS[node]!,
          nodePorts[node]!.ship,
        );
        closers.unshift(() => forwarder.close());
        await startShipPod(set, node);
      }
    }, 180_000);

    afterAll(async () => {
      for (const each of running.splice(0).reverse()) await each.stop();
      // A ship leaves its tmux server (the sessions) running on purpose; the node's next ship finds it.
      const shipArgv = launches.ship?.launch.argv;
      if (shipArgv) {
        const fleet = shipArgv[shipArgv.indexOf('--fleet-directory') + 1]!;
        await killFleetTmux(fleet);
        await killFleetTmux(fleet.replace(join(root, 'node'), join(root, NODE_2)));
      }
      // The third node's server runs as the session user, on its socket in the node's run/.
      const apartFleet = argvs[`ship@${NODE_3}`]?.[argvs[`ship@${NODE_3}`]!.indexOf('--fleet-directory') + 1];
      if (apartFleet && existsSync(apartFleet)) {
        const socket = join(dirname(apartFleet), 'run', `tmux-${SESSION_UID}`, tmuxSocketFor(realpathSync(apartFleet)));
        try {
          execFileSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore' });
        } catch {
          // ended with its holder
        }
      }
      for (const close of closers) await close().catch(() => undefined);
    }, 120_000);

    it(
      "the operator makes the node's Ship from the ready ship pod and registers it: Ready=True, online on the bridge",
      async () => {
        await until(
          async () =>
            ship()?.status?.conditions?.find(
              (condition: Json) => condition.type === 'Ready' && condition.status === 'True',
            ) ?? false,
          `Ship ${NODE} Ready=True; it is ${JSON.stringify(ship()?.status)}`,
          CONVERGE_MS,
          100,
        );
        const url = `http://${HOST_IP}:4700`;
        expect(ship()!.spec).toMatchObject({ url, expectedName: NODE, auth: { mode: 'Generated' } });
        expect(ship()!.status).toMatchObject({
          shipName: NODE,
          registeredURL: url,
          bridgeStatus: 'online',
          tokenSecretName: `${NODE}-tokens`,
        });
        // The operator made the node's own token pair, which the ship pod fetched from it.
        expect(fake.read('v1', 'Secret', `${NODE}-tokens`, NAMESPACE)!.metadata).toMatchObject({
          labels: { 'app.kubernetes.io/managed-by': 'svc-operator' },
          ownerReferences: [{ kind: 'Ship', name: NODE }],
        });
        const as = await asAdmin();
        await until(
          async () => ship(NODE_2)?.status?.bridgeStatus === 'online',
          `Ship ${NODE_2} online`,
          CONVERGE_MS,
          100,
        );
        expect((await as('GET', '/ships')).body).toEqual(
          expect.arrayContaining([
            { name: NODE, url, status: 'online' },
            { name: NODE_2, url: `http://${HOST_IP_2}:4700`, status: 'online' },
          ]),
        );
        // The operator did all that within the chart's Role.
        expect(fake.requests.filter((request) => request.user === serviceAccount).length).toBeGreaterThan(0);
        expect(refused).toEqual([]);
      },
      CONVERGE_MS + 10_000,
    );

    it("a workspace created through the bridge on the node's ship answers on its terminal", async () => {
      const remote = makeRemote(root);
      const port = await freePort();
      const daemon = startContainer('git daemon', {
        argv: [
          'git',
          'daemon',
          '--reuseaddr',
          '--export-all',
          `--base-path=${root}`,
          '--listen=127.0.0.1',
          `--port=${port}`,
          root,
        ],
        cwd: root,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      running.unshift(daemon);
      const url = `git://127.0.0.1:${port}/${remote.bare.slice(root.length + 1)}`;
      await until(
        async () => git(root, 'ls-remote', url).includes('refs/heads/main'),
        `git daemon serving ${url}`,
        20_000,
        100,
      );

      const as = await asAdmin();
      expect(await as('POST', '/repos', { name: 'app', url })).toMatchObject({ status: 201 });
      const created = await as('POST', '/workspaces', { ship: NODE, repoName: 'app', name: 'e2e', branch: 'main' });
      expect([created.status, created.text]).toEqual([201, expect.any(String)]);
      expect(await as('POST', path('app', 'e2e', '/activate'))).toMatchObject({ status: 200 });
      expect((await as('GET', path('app', 'e2e'))).body).toMatchObject({ name: 'e2e', state: 'active', ship: NODE });
      const { ticket } = (await as('POST', '/auth/ws-ticket')).body as { ticket: string };
      const terminal = await connectTerminal(
        `${bridgeUrl.replace(/^http/, 'ws')}${path('app', 'e2e', '/terminal')}?ticket=${ticket}`,
      );
      try {
        // The login shell's prompt first: a shell starting up may discard what was typed ahead of it.
        await terminal.until((screen) => /[$#] ?$/m.test(screen.text()), 20_000);
        terminal.input('echo chart-$((6*7)) && cat README.md\r');
        await terminal.until(
          (screen) => screen.text().includes('chart-42') && screen.text().includes('# fixture'),
          20_000,
        );
      } finally {
        await terminal.close();
      }
    }, 60_000);

    /** What `command` prints in the e2e workspace's shell, through the bridge's terminal. */
    const inShell = async (command: string, workspace = 'e2e'): Promise<string> => {
      const as = await asAdmin();
      // One terminal per session: the ship answers `exit 1` until the previous one's close has come through
      // the bridge.
      const terminal = await until(
        async () => {
          const { ticket } = (await as('POST', '/auth/ws-ticket')).body as { ticket: string };
          const opened = await connectTerminal(
            `${bridgeUrl.replace(/^http/, 'ws')}${path('app', workspace, '/terminal')}?ticket=${ticket}`,
          );
          const prompt = await Promise.race([
            opened.until((screen) => /[$#] ?$/m.test(screen.text()), 20_000).then(() => true),
            opened.exit.then(() => false),
          ]);
          if (!prompt) await opened.close();
          return prompt && opened;
        },
        `a terminal on app/${workspace}`,
        20_000,
        200,
      );
      try {
        const marker = `m${randomBytes(3).toString('hex')}`;
        // The typed line splits the marker, so only the output matches it.
        terminal.input(`echo "${marker}""_[$(${command})]"\r`);
        let answer = '';
        await terminal.until((screen) => {
          answer = new RegExp(`${marker}_\\[([^\\]\\n]*)\\]`).exec(screen.text())?.[1] ?? '';
          return answer !== '';
        }, 20_000);
        return answer;
      } finally {
        await terminal.close();
      }
    };

    /** Pids from `pid` up to init. */
    const ancestors = (pid: number): number[] => {
      const chain: number[] = [];
      for (let at = pid; at > 1; ) {
        const stat = readFileSync(`/proc/${at}/stat`, 'utf8');
        at = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        chain.push(at);
      }
      return chain;
    };

    it("wires the new workspace's agent: ship.agent.harness's configuration written, at the ship's node address", () => {
      const argv = launches.ship!.launch.argv;
      const fleet = argv[argv.indexOf('--fleet-directory') + 1]!;
      const config = readFileSync(join(fleet, 'app', 'e2e', '.codex', 'config.toml'), 'utf8');
      expect(config).toContain(`url = "http://${HOST_IP}:4700/workspaces/app/e2e/mcp"`);
    });

    it("runs the workspace's shell in the session holder, with ship.agentEnv's key from its Secret", async () => {
      expect(await inShell('echo "$MODEL_KEY"')).toBe(AGENT_KEY.value);
      expect(await inShell('echo "${SVC_BRIDGE_TOKEN:-none} ${SVC_SHIP_TOKEN:-none}"')).toBe('none none');
      const shell = Number(await inShell('echo $$'));
      const holder = running.find((each) => each.name === 'sessions')!.child.pid!;
      const ship = running.find((each) => each.name === 'ship')!.child.pid!;
      expect(ancestors(shell)).toContain(holder);
      expect(ancestors(shell)).not.toContain(ship);
    }, 60_000);

    /** The real uid a process runs as (/proc/<pid>/status). */
    const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
    const argOf = (name: string, flag: string) => argvs[name]![argvs[name]!.indexOf(flag) + 1]!;

    it.skipIf(!AS_ROOT)(
      "with ship.sessionUser, the session runs as that uid and reads neither the ship's environment nor any pod's token",
      async () => {
        await until(
          async () => ship(NODE_3)?.status?.bridgeStatus === 'online',
          `Ship ${NODE_3} online`,
          CONVERGE_MS,
          100,
        );
        const as = await asAdmin();
        const created = await as('POST', '/workspaces', {
          ship: NODE_3,
          repoName: 'app',
          name: 'apart',
          branch: 'main',
        });
        expect([created.status, created.text]).toEqual([201, expect.any(String)]);
        expect(await as('POST', path('app', 'apart', '/activate'))).toMatchObject({ status: 200 });

        const shipPid = running.find((each) => each.name === `ship@${NODE_3}`)!.child.pid!;
        const holderPid = running.find((each) => each.name === `sessions@${NODE_3}`)!.child.pid!;
        const shell = Number(await inShell('echo $$', 'apart'));
        expect(ancestors(shell)).toContain(holderPid);
        // Another uid than the ship's (root, as the chart runs it then): were sessionUser ignored, both would be root.
        expect([uidOf(shell), uidOf(shipPid)]).toEqual([SESSION_UID, 0]);
        // Its own group only: none of the pod's (no fsGroup, none of root's).
        expect(await inShell('echo "$(id -u):$(id -G)"', 'apart')).toBe(`${SESSION_UID}:${SESSION_UID}`);

        const secrets = [
          `/proc/${shipPid}/environ`,
          argOf(`ship@${NODE_3}`, '--tokens-credential'),
          argOf(`sessions@${NODE_3}`, '--drain-report-credential'),
        ];
        // Each holds something (read here as root), and the token files are as the kubelet writes them for
        // these pods: every container root, no fsGroup, so root's alone.
        for (const file of secrets) expect(readFileSync(file, 'utf8').length, file).toBeGreaterThan(0);
        for (const file of secrets.slice(1)) {
          const { mode, uid, gid } = statSync(file);
          expect([file, (mode & 0o777).toString(8), uid, gid]).toEqual([file, '600', 0, 0]);
        }
        // The session reaches each token's directory (so the file's own mode is what refuses it), and reads none.
        const each = (list: string[], test: string) =>
          list
            .map((file) => `${test.replaceAll('$f', `'${file}'`)} >/dev/null 2>&1 && printf Y || printf N`)
            .join('; ');
        expect(await inShell(each(secrets.slice(1).map(dirname), 'ls $f'), 'apart')).toBe('YY');
        expect(await inShell(each(secrets, 'cat $f'), 'apart')).toBe('NNN');
      },
      CONVERGE_MS + 60_000,
    );

    it(
      'a ship replaced by a pod of a new image tag adopts the session: the workspace active, the same shell',
      async () => {
        const shell = Number(await inShell('echo $$'));
        const upgraded = await template(['--values', VALUES, '--set', 'image.tag=e2e-next']);
        if (upgraded.code !== 0) throw new Error(`helm template exited ${upgraded.code}: ${upgraded.stderr}`);
        const upgradedObjects = parseObjects(upgraded.stdout).map(({ object }) => object);
        const shipSet = upgradedObjects.find(
          (object) => object.kind === 'DaemonSet' && object.metadata.labels?.['app.kubernetes.io/component'] === 'ship',
        )!;
        const shipTemplate = (shipSet.spec as { template: { spec: PodSpec } }).template.spec;
        expect((shipTemplate.containers[0] as { image?: string }).image).toMatch(/:e2e-next$/);
        // `helm upgrade`: the DaemonSet controller stops the node's ship pod and starts one from the new template.
        const old = running.findIndex((each) => each.name === 'ship');
        expect(await running.splice(old, 1)[0]!.stop()).toBe('terminated');
        expect(existsSync(`/proc/${shell}`)).toBe(true);
        await startShipPod(shipSet as never);
        const as = await asAdmin();
        await until(
          async () => (await as('GET', path('app', 'e2e'))).body?.state === 'active' && 'active',
          'the workspace active through the new ship',
          CONVERGE_MS,
          200,
        );
        expect(Number(await inShell('echo $$'))).toBe(shell);
      },
      CONVERGE_MS + 30_000,
    );

    /** What a node's ship answers to GET /workspaces through its node's port, presenting `token`. */
    const shipAnswer = async (node: string, token: string) =>
      (await call(`http://${HOSTS[node]}:4700`, 'GET', '/workspaces', undefined, { authorization: `Bearer ${token}` }))
        .status;
    /** The node's tokens Secret, decoded; throws (a probe polls on) until it holds both tokens. */
    const pairOf = (node: string) => {
      const data = secret(`${node}-tokens`);
      const { shipToken, bridgeToken } = data ?? {};
      if (shipToken === undefined || bridgeToken === undefined) throw new Error(`no token pair in ${node}-tokens`);
      return { ...data, shipToken, bridgeToken };
    };
    const shipArg = (flag: string) => launches.ship!.launch.argv[launches.ship!.launch.argv.indexOf(flag) + 1]!;

    it(
      "gives each node's ship a pair of its own: one node's bridge token opens its ship and no other",
      async () => {
        for (const node of [NODE, NODE_2])
          await until(
            async () => ship(node)?.status?.bridgeStatus === 'online',
            `Ship ${node} online`,
            CONVERGE_MS,
            100,
          );
        const one = pairOf(NODE);
        const two = pairOf(NODE_2);
        expect(one.bridgeToken).not.toBe(two.bridgeToken);
        expect(one.shipToken).not.toBe(two.shipToken);
        expect(await shipAnswer(NODE, one.bridgeToken)).toBe(200);
        expect(await shipAnswer(NODE_2, two.bridgeToken)).toBe(200);
        expect(await shipAnswer(NODE, two.bridgeToken)).toBe(401);
        expect(await shipAnswer(NODE_2, one.bridgeToken)).toBe(401);
        // Neither ship token opens a ship.
        expect(await shipAnswer(NODE, one.shipToken)).toBe(401);
        // No token in the ship's environment: it holds the pair in memory, from the exchange.
        expect(
          Object.keys(launches.ship!.launch.env).filter((name) => name.startsWith('SVC_') && name.endsWith('TOKEN')),
        ).toEqual([]);
        // The exchange answers the node-1 pod's credential with node 1's pair, and a credential it cannot review with 401.
        const exchange = (credential: string) =>
          fetch(shipArg('--tokens-from'), { method: 'POST', headers: { authorization: `Bearer ${credential}` } });
        const own = await exchange(readFileSync(shipArg('--tokens-credential'), 'utf8'));
        expect([own.status, await own.json()]).toEqual([
          200,
          { shipToken: one.shipToken, bridgeToken: one.bridgeToken },
        ]);
        expect(own.headers.get('cache-control')).toBe('no-store');
        expect((await exchange(randomBytes(24).toString('base64url'))).status).toBe(401);
      },
      CONVERGE_MS + 10_000,
    );

    it(
      "rotates a node's pair when its Ship asks: the ship follows, the old bridge token is refused, the bridge keeps it online",
      async () => {
        const before = pairOf(NODE_2);
        const untouched = pairOf(NODE);
        const fingerprint = ship(NODE_2)!.status!.tokenFingerprint;
        expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
        fake.patch(
          'svc.dev/v1alpha1',
          'Ship',
          NODE_2,
          { metadata: { annotations: { 'svc.dev/rotate-tokens': 'r1' } } },
          NAMESPACE,
        );
        await until(
          async () => pairOf(NODE_2).bridgeToken !== before.bridgeToken,
          "a new pair in the node's Secret",
          CONVERGE_MS,
          100,
        );
        const after = pairOf(NODE_2);
        expect(after.shipToken).not.toBe(before.shipToken);
        expect(fake.read('v1', 'Secret', `${NODE_2}-tokens`, NAMESPACE)!.metadata.annotations).toMatchObject({
          'svc.dev/tokens-rotation': 'r1',
        });
        await until(
          async () => {
            const status = ship(NODE_2)?.status;
            return (
              status?.tokenFingerprint !== fingerprint &&
              status?.bridgeStatus === 'online' &&
              status?.conditions?.some((condition: Json) => condition.type === 'Ready' && condition.status === 'True')
            );
          },
          `Ship ${NODE_2} registered again with the new pair; it is ${JSON.stringify(ship(NODE_2)?.status)}`,
          CONVERGE_MS,
          100,
        );
        expect(await shipAnswer(NODE_2, after.bridgeToken)).toBe(200);
        expect(await shipAnswer(NODE_2, before.bridgeToken)).toBe(401);
        const as = await asAdmin();
        expect((await as('GET', '/ships')).body).toContainEqual({
          name: NODE_2,
          url: `http://${HOST_IP_2}:4700`,
          status: 'online',
        });
        const events = fake
          .list('v1', 'Event', NAMESPACE)
          .filter((event: Json) => event.involvedObject?.name === NODE_2 && event.reason === 'TokensChanged');
        expect(events.length).toBeGreaterThan(0);
        // No token in any event or status.
        expect(JSON.stringify([ship(NODE_2), fake.list('v1', 'Event', NAMESPACE)])).not.toContain(after.bridgeToken);
        // The other node is untouched.
        expect(pairOf(NODE)).toEqual(untouched);
        expect(await shipAnswer(NODE, untouched.bridgeToken)).toBe(200);
      },
      2 * CONVERGE_MS + 10_000,
    );

    it("a drain reports the workspace with unpushed work on its Ship and in the bridge's log, then ends its sessions; a clean one is not named", async () => {
      const as = await asAdmin();
      expect(
        await as('POST', '/workspaces', { ship: NODE, repoName: 'app', name: 'tidy', branch: 'main' }),
      ).toMatchObject({ status: 201 });
      const shell = Number(await inShell('echo $$'));
      const work = join(shipArg('--fleet-directory'), 'app', 'e2e');
      writeFileSync(join(work, 'drain.txt'), 'local work\n');
      git(work, 'add', 'drain.txt');
      git(work, 'commit', '--quiet', '-m', 'not pushed');
      writeFileSync(join(work, 'README.md'), 'changed, not committed\n');
      // A node drain: the kubelet's SIGTERM, which tini forwards to svc alone.
      const at = running.findIndex((each) => each.name === 'sessions');
      const holder = running.splice(at, 1)[0]!;
      holder.child.kill('SIGTERM');
      await until(async () => holder.gone(), 'the session holder exited', 40_000, 100);
      expect(await holder.stop()).toBe('had exited');
      // Ended: gone, or a zombie its new parent has yet to reap.
      const alive = () => {
        try {
          return !/\) Z /.test(readFileSync(`/proc/${shell}/stat`, 'utf8'));
        } catch {
          return false;
        }
      };
      await until(async () => !alive(), `the workspace's shell ${shell} ended`, 10_000, 100);

      const events = fake
        .list('v1', 'Event', NAMESPACE)
        .filter((event: Json) => event.reason === 'UnpushedWork') as Json[];
      expect(events.map((event) => [event.type, event.involvedObject.kind, event.involvedObject.name])).toEqual([
        ['Warning', 'Ship', NODE],
      ]);
      expect(events[0]!.message).toMatch(
        /^node e2e-node-1 is draining: workspace app\/e2e has unpushed work: 1 unpushed commit on main, 1 uncommitted file/,
      );
      expect(JSON.stringify(events)).not.toContain('app/tidy');
      const bridgeLog = running.find((each) => each.name === 'bridge')!.output();
      expect(bridgeLog).toMatch(
        /drain of ship e2e-node-1: workspace app\/e2e has unpushed work: 1 unpushed commit on main, 1 uncommitted file/,
      );
      expect(bridgeLog).not.toMatch(/workspace app\/tidy has unpushed work/);
      // The report reached the operator: the holder did not fall back to its own log.
      expect(holder.output()).toMatch(/"reported":"the operator"/);
      // No token anywhere in what was reported.
      const credential = readFileSync(
        launches.sessions!.launch.argv[launches.sessions!.launch.argv.indexOf('--drain-report-credential') + 1]!,
        'utf8',
      );
      expect(JSON.stringify(events) + bridgeLog).not.toContain(credential);
      // The DaemonSet starts the node's next holder.
      await startHolderPod(NODE);
    }, 90_000);

    it('every process ran its rendered container, changed only by the listed substitutions', () => {
      expect(Object.keys(launches).sort()).toEqual(['bridge', 'operator', 'sessions', 'ship']);
      for (const [component, { launch, container, placement }] of Object.entries(launches)) {
        const args = launch.argv.slice(launch.argv.length - launch.renderedArgs.length);
        const differences = launch.renderedArgs.flatMap((arg, index) =>
          args[index] === arg ? [] : [`arg ${launch.renderedArgs[index - 1]}`],
        );
        if (
          JSON.stringify(launch.argv.slice(0, -args.length)) !== JSON.stringify(container.command ?? image.entrypoint)
        )
          differences.push('entrypoint');
        // The image's environment and the container's as the kubelet resolves it; nothing of this test's own.
        const rendered: Record<string, string | undefined> = { ...image.env };
        for (const { name, value, valueFrom } of container.env ?? []) {
          rendered[name] = valueFrom?.secretKeyRef
            ? placement.secret(valueFrom.secretKeyRef.name)?.[valueFrom.secretKeyRef.key]
            : valueFrom?.fieldRef
              ? fieldOf(placement.pod, valueFrom.fieldRef.fieldPath)
              : value;
        }
        for (const name of new Set([...Object.keys(rendered), ...Object.keys(launch.env)])) {
          if (launch.env[name] !== rendered[name])
            differences.push(name in rendered ? `env ${name}` : `env ${name} (added)`);
        }
        expect([component, differences.sort()]).toEqual([component, [...SUBSTITUTED[component]!].sort()]);
        expect([component, launch.substitutions.map((each) => each.where).sort()]).toEqual([
          component,
          [...SUBSTITUTED[component]!].sort(),
        ]);
      }
    });

    it('a fresh install can start: the operator container needs no Secret that only the operator creates', () => {
      expect(freshInstallOperator).not.toHaveProperty('waiting');
      expect(admin().password).toMatch(/^\S{20,}$/);
    });

    it('every process stops on SIGTERM, leaving nothing of its process group behind', async () => {
      const outcomes: Record<string, string> = {};
      for (const each of running.splice(0)) {
        outcomes[each.name] = await each.stop();
        expect(groupMembers(each.child.pid!)).toEqual([]);
      }
      expect(outcomes).toEqual({
        'git daemon': 'terminated',
        ship: 'terminated',
        sessions: 'terminated',
        [`ship@${NODE_2}`]: 'terminated',
        [`sessions@${NODE_2}`]: 'terminated',
        ...(AS_ROOT ? { [`ship@${NODE_3}`]: 'terminated', [`sessions@${NODE_3}`]: 'terminated' } : {}),
        bridge: 'terminated',
        operator: 'terminated',
      });
    }, 90_000);
  },
);
