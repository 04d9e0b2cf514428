// This machine standing in for a node's kubelet and the svc image, for test/chart/service-e2e.test.ts: a
// container of the rendered chart becomes a process here the way the kubelet would start it in the image —
// the image's ENTRYPOINT, WORKDIR and ENV (read from the Dockerfile), the container's args, its environment
// resolved from the pod (downward API) and from Secrets in the (fake) API server, `$(VAR)` expanded — and
// only what cannot be the same on one machine is changed, each change recorded so the test lists them:
//   - entrypoint: tini is PID 1 only, and `svc` is /usr/local/bin/svc → /app/bin/svc.js: `node bin/svc.js`
//     of this checkout, which stands for /app (WORKDIR);
//   - ports: a flag whose value is one of the container's ports gets a free port (every pod has a network
//     namespace of its own; here they share one), and a hostPort is a forwarder on the pod's host IP;
//   - paths: a value under a volume mount points into the directory standing for that volume; the image's
//     own paths (HOME where nothing is mounted) into one standing for the image;
//   - /tmp (an emptyDir in every svc pod): TMPDIR and TMUX_TMPDIR, the suite's temp directory (Node and
//     tmux find /tmp through them, and the suite's leak guard watches the tmux servers there);
//   - Services: `<service>.<namespace>.svc:<port>` → 127.0.0.1 and the free port of its target;
//   - the service-account mount: KUBECONFIG with the service account's token;
//   - PATH: this machine's, for its git, tmux and node (the image's comes from its node base image).
//   - projected service-account tokens: a random token the fake API server knows as bound to the pod
//     (Placement.projectedToken), written where the volume puts it, with the mode and owner the kubelet
//     gives it (tokenFileMode; changing an owner needs root, so only a root test sees owners);
//   - /tmp with a session user (Placement.tmpOnVolume): the directory of its volume, as for any mount, since
//     that user cannot reach the suite's temp directory.
// Init containers run only where a test asks (runInitContainers: `sh -c` with its mounts' paths put in), as
// this test's user. Not emulated: resources, the containers' security contexts (every process runs as this
// test's user), liveness probes. Readiness probes are run to mark pods Ready.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.js';
import { until } from '../helpers/poll.js';
import { groupAlive, signalGroupOf } from '../helpers/process-group.js';
import { ROOT } from './render.js';

type Json = Record<string, any>;

export interface Container {
  name: string;
  command?: string[];
  securityContext?: { runAsUser?: number };
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: Json }[];
  envFrom?: unknown[];
  ports?: { name?: string; containerPort: number; hostPort?: number }[];
  volumeMounts?: { name: string; mountPath: string; subPath?: string }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: { runAsUser?: number; fsGroup?: number };
  volumes?: Json[];
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  nodeName?: string;
}

/** What the downward API reads: the pod as the API server has it. */
export interface Pod {
  metadata: { name: string; namespace: string };
  spec: PodSpec;
  status?: { hostIP?: string; podIP?: string };
}

/** The runtime stage of the Dockerfile, as far as starting a container needs it. */
export interface Image {
  entrypoint: string[];
  cmd: string[];
  workdir: string;
  env: Record<string, string>;
}

/** The image's ENTRYPOINT this machine knows how to run, and what runs it here. */
const ENTRYPOINT = ['/usr/bin/tini', '--', 'svc'];
const SVC_HERE = [process.execPath, join(ROOT, 'bin', 'svc.js')];

export function imageOf(dockerfile: string): Image {
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim());
  const runtime = lines.slice(lines.findLastIndex((line) => line.startsWith('FROM ')));
  const last = (instruction: string) =>
    runtime
      .filter((line) => line.startsWith(`${instruction} `))
      .at(-1)
      ?.slice(instruction.length + 1);
  const env: Record<string, string> = {};
  for (const line of runtime.filter((each) => each.startsWith('ENV '))) {
    for (const [, name, value] of line.matchAll(/(\w+)=(\S+)/g)) env[name!] = value!;
  }
  return {
    entrypoint: JSON.parse(last('ENTRYPOINT') ?? '[]'),
    cmd: JSON.parse(last('CMD') ?? '[]'),
    workdir: last('WORKDIR') ?? '/',
    env,
  };
}

export interface Substitution {
  /** `entrypoint`, `arg <flag>`, `env <NAME>` (`(added)` for a variable the container did not have). */
  where: string;
  from?: string;
  to: string;
}

export interface Launch {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The container's args, `$(VAR)` expanded, before any substitution (the test compares them to argv). */
  renderedArgs: string[];
  substitutions: Substitution[];
}

export interface Placement {
  pod: Pod;
  /** Directories standing for the node (hostPath volumes) and for the pod (emptyDirs, the image). */
  nodeRoot: string;
  podRoot: string;
  /** Free ports for the pod's container ports (`podPorts`). */
  ports: Map<number, number>;
  /** Secret data, decoded, as the API server holds it now; undefined when there is no such Secret. */
  secret(name: string): Record<string, string> | undefined;
  /** `<service>.<namespace>.svc:<port>` → `127.0.0.1:<port>` (`serviceRoutes`). */
  services: Map<string, string>;
  /** The service account's kubeconfig, for a pod that mounts its token. */
  kubeconfig?: string;
  /** A token bound to the pod for `audience`, as the kubelet requests one for a projected volume. */
  projectedToken?(audience: string): string;
  /** /tmp where its volume is, not the suite's temp directory (a session user must reach its socket there). */
  tmpOnVolume?: boolean;
}

/** A free port for every container port of the pod. */
export async function podPorts(spec: PodSpec): Promise<Map<number, number>> {
  const ports = new Map<number, number>();
  for (const port of spec.containers.flatMap((container) => container.ports ?? []))
    ports.set(port.containerPort, await freePort());
  return ports;
}

function containerPort(spec: PodSpec, port: string | number): number {
  if (typeof port === 'number') return port;
  const found = spec.containers.flatMap((container) => container.ports ?? []).find((each) => each.name === port);
  if (!found) throw new Error(`no container port named ${port}`);
  return found.containerPort;
}

/** How a rendered Service's cluster DNS names reach its backend pod's ports here. */
export function serviceRoutes(service: Json, backend: PodSpec, ports: Map<number, number>): Map<string, string> {
  const routes = new Map<string, string>();
  const { name, namespace } = service.metadata;
  for (const port of service.spec.ports as Json[]) {
    const target = `127.0.0.1:${ports.get(containerPort(backend, port.targetPort ?? port.port))}`;
    for (const host of [`${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`])
      routes.set(`${host}:${port.port}`, target);
  }
  return routes;
}

/** `$(NAME)` as the kubelet expands it; `$$` is a literal `$`. A reference to an undefined variable fails the test. */
function expand(text: string, variables: Record<string, string>): string {
  return text.replace(/\$\$|\$\((\w+)\)/g, (_match, name?: string) => {
    if (!name) return '$';
    if (variables[name] === undefined) throw new Error(`$(${name}) names no variable of the container`);
    return variables[name]!;
  });
}

export function fieldOf(pod: Pod, path: string): string {
  const fields: Record<string, string | undefined> = {
    'metadata.name': pod.metadata.name,
    'metadata.namespace': pod.metadata.namespace,
    'spec.nodeName': pod.spec.nodeName,
    'status.hostIP': pod.status?.hostIP,
    'status.podIP': pod.status?.podIP,
  };
  if (!(path in fields))
    throw new Error(`the test cannot resolve fieldRef ${path}: handle it in test/chart/kubelet.ts`);
  if (fields[path] === undefined) throw new Error(`fieldRef ${path} is not set on pod ${pod.metadata.name}`);
  return fields[path]!;
}

/**
 * The mode and owner the kubelet gives a projected token file (pkg/volume/projected): 0600 owned by the pod's
 * fsUser (the one runAsUser every container, init containers included, runs as; root when they differ)
 * when there is an fsUser or an fsGroup, else the volume's defaultMode (0644); with an fsGroup the file is
 * then given to that group and made group-readable (the volume is read-only: 0440 added), so 0640.
 */
export function tokenFileMode(spec: PodSpec, defaultMode = 0o644): { mode: number; uid: number; gid: number } {
  const users = [...(spec.initContainers ?? []), ...spec.containers].map(
    (container) => container.securityContext?.runAsUser ?? spec.securityContext?.runAsUser,
  );
  const fsUser = users.every((uid) => uid !== undefined && uid === users[0]) ? users[0] : undefined;
  const fsGroup = spec.securityContext?.fsGroup;
  const mode = fsUser !== undefined || fsGroup !== undefined ? 0o600 : defaultMode;
  return fsGroup === undefined
    ? { mode, uid: fsUser ?? 0, gid: 0 }
    : { mode: mode | 0o440, uid: fsUser ?? 0, gid: fsGroup };
}

/** A projected volume of service-account tokens, written into a directory standing for it. */
function projectedVolume(volume: Json, placement: Placement): string {
  const directory = join(placement.podRoot, 'volumes', volume.name);
  mkdirSync(directory, { recursive: true, mode: 0o755 });
  const file = tokenFileMode(placement.pod.spec, volume.projected.defaultMode);
  for (const source of volume.projected.sources as Json[]) {
    const token = source.serviceAccountToken;
    if (!token || Object.keys(source).length !== 1)
      throw new Error(`the test cannot project ${JSON.stringify(source)}: handle it in test/chart/kubelet.ts`);
    if (!placement.projectedToken)
      throw new Error(
        `pod ${placement.pod.metadata.name} projects a service-account token: give its placement projectedToken`,
      );
    const path = join(directory, token.path);
    writeFileSync(path, placement.projectedToken(token.audience), { mode: 0o600 });
    if (process.getuid?.() === 0) chownSync(path, file.uid, file.gid);
    chmodSync(path, file.mode);
  }
  return directory;
}

/** Where each mount path of the container is on this machine (longest first). */
function mountsOf(container: Container, placement: Placement): [string, string][] {
  const volumes = new Map((placement.pod.spec.volumes ?? []).map((volume) => [volume.name as string, volume]));
  const mounts: [string, string][] = (container.volumeMounts ?? []).map((mount) => {
    if (mount.mountPath === '/tmp' && !placement.tmpOnVolume) return [mount.mountPath, tmpdir()];
    const volume = volumes.get(mount.name);
    let directory: string;
    if (volume?.hostPath) directory = join(placement.nodeRoot, volume.hostPath.path);
    else if (volume?.emptyDir) directory = join(placement.podRoot, 'volumes', mount.name);
    else if (volume?.persistentVolumeClaim)
      directory = join(placement.nodeRoot, 'claims', volume.persistentVolumeClaim.claimName);
    else if (volume?.projected) directory = projectedVolume(volume, placement);
    else
      throw new Error(
        `the test cannot provide volume ${mount.name} (${JSON.stringify(volume)}): handle it in test/chart/kubelet.ts`,
      );
    directory = mount.subPath ? join(directory, mount.subPath) : directory;
    mkdirSync(directory, { recursive: true });
    return [mount.mountPath, directory];
  });
  return mounts.sort(([a], [b]) => b.length - a.length);
}

/**
 * The process the kubelet would start for `container` of `placement.pod`, on this machine; or what it waits
 * for (a Secret or key absent: the kubelet's CreateContainerConfigError, retried until it appears).
 * Throws on anything in the container it cannot resolve, so a new kind of reference fails the test.
 */
export function launchOf(image: Image, container: Container, placement: Placement): Launch | { waiting: string } {
  if (container.envFrom?.length)
    throw new Error(`the test cannot resolve envFrom of ${container.name}: handle it in test/chart/kubelet.ts`);
  const own: Record<string, string> = {};
  for (const { name, value, valueFrom } of container.env ?? []) {
    if (valueFrom === undefined) {
      own[name] = expand(value ?? '', own);
    } else if (Object.keys(valueFrom).length === 1 && valueFrom.secretKeyRef) {
      const { name: secret, key, optional } = valueFrom.secretKeyRef;
      const data = placement.secret(secret);
      if (data?.[key] !== undefined) own[name] = data[key]!;
      else if (!optional) return { waiting: `${name}: key ${key} of Secret ${secret}` };
    } else if (Object.keys(valueFrom).length === 1 && valueFrom.fieldRef) {
      own[name] = fieldOf(placement.pod, valueFrom.fieldRef.fieldPath);
    } else {
      throw new Error(
        `the test cannot resolve env ${name} from ${JSON.stringify(valueFrom)}: handle it in test/chart/kubelet.ts`,
      );
    }
  }
  const substitutions: Substitution[] = [];
  const mounts = mountsOf(container, placement);
  const onMachine = (value: string, where: string, imagePath = false) => {
    let mapped = value;
    const mount = mounts.find(([path]) => value === path || value.startsWith(`${path}/`));
    if (mount) mapped = mount[1] + value.slice(mount[0].length);
    else if (imagePath && value.startsWith('/')) {
      mapped = join(placement.podRoot, 'image', value);
      mkdirSync(mapped, { recursive: true });
    }
    for (const [from, to] of placement.services) mapped = mapped.replaceAll(`://${from}`, `://${to}`);
    if (mapped !== value) substitutions.push({ where, from: value, to: mapped });
    return mapped;
  };
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(image.env)) env[name] = onMachine(value, `env ${name}`, true);
  for (const [name, value] of Object.entries(own)) env[name] = own[name] = onMachine(value, `env ${name}`);
  const add = (name: string, value: string) => {
    env[name] = value;
    substitutions.push({ where: `env ${name} (added)`, to: value });
  };
  // Without what `npm exec`/npx put in front (node_modules/.bin): those are this checkout's, not the machine's.
  add(
    'PATH',
    (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin')
      .split(':')
      .filter((directory) => !directory.includes('node_modules'))
      .join(':'),
  );
  // Unless the container sets them (TMUX_TMPDIR=/tmp with a session user, already on this machine's /tmp).
  const tmp = mounts.find(([path]) => path === '/tmp')?.[1];
  if (tmp) for (const name of ['TMPDIR', 'TMUX_TMPDIR']) if (own[name] === undefined) add(name, tmp);
  if (placement.pod.spec.automountServiceAccountToken !== false) {
    if (!placement.kubeconfig)
      throw new Error(`pod ${placement.pod.metadata.name} mounts a service-account token: give it a kubeconfig`);
    add('KUBECONFIG', placement.kubeconfig);
  }

  const entrypoint = container.command ?? image.entrypoint;
  if (JSON.stringify(entrypoint) !== JSON.stringify(ENTRYPOINT))
    throw new Error(
      `the test runs the entrypoint ${JSON.stringify(ENTRYPOINT)} only, not ${JSON.stringify(entrypoint)}`,
    );
  substitutions.push({ where: 'entrypoint', from: entrypoint.join(' '), to: SVC_HERE.join(' ') });
  const renderedArgs = (container.command ? (container.args ?? []) : (container.args ?? image.cmd)).map((arg) =>
    expand(arg, own),
  );
  const containerPorts = new Set((container.ports ?? []).map((port) => String(port.containerPort)));
  const args = renderedArgs.map((arg, index) => {
    const flag = renderedArgs[index - 1]?.startsWith('--') ? renderedArgs[index - 1]! : `#${index}`;
    if (!containerPorts.has(arg) || flag.startsWith('#')) return onMachine(arg, `arg ${flag}`);
    const port = String(placement.ports.get(Number(arg)));
    substitutions.push({ where: `arg ${flag}`, from: arg, to: port });
    return port;
  });
  if (image.workdir !== '/app')
    throw new Error(`the checkout stands for /app, the image's WORKDIR is ${image.workdir}`);
  return { argv: [...SVC_HERE, ...args], cwd: ROOT, env, renderedArgs, substitutions };
}

/**
 * The pod's init containers, in order, as this test's user: each a `sh -c` script whose mount paths are put
 * where their volumes are on this machine (so the chart's fleet-owner chowns and opens the node's
 * directories). Throws on any other command.
 */
export function runInitContainers(placement: Placement): void {
  for (const container of placement.pod.spec.initContainers ?? []) {
    const [shell, flag, script, ...rest] = container.command ?? [];
    if (shell !== 'sh' || flag !== '-c' || script === undefined || rest.length || container.args?.length)
      throw new Error(`the test runs init containers of \`sh -c <script>\` only, not ${container.name}'s`);
    let here = script;
    for (const [path, directory] of mountsOf(container, placement))
      here = here.replace(
        new RegExp(`(?<=^|\\s)${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|\\s|$)`, 'g'),
        directory,
      );
    execFileSync('sh', ['-c', here], { stdio: 'pipe' });
  }
}

/** Whether the container's readiness probe answers (2xx or 3xx), as the kubelet probes it. */
export async function probeReady(container: Container, spec: PodSpec, ports: Map<number, number>): Promise<boolean> {
  // As the kubelet: a container without a readiness probe is ready once it runs.
  if (!container.readinessProbe) return true;
  const probe = container.readinessProbe.httpGet;
  if (!probe) throw new Error(`container ${container.name} has a readiness probe the test cannot run (only httpGet)`);
  const response = await fetch(`http://127.0.0.1:${ports.get(containerPort(spec, probe.port))}${probe.path}`, {
    redirect: 'manual',
  });
  await response.arrayBuffer();
  return response.status >= 200 && response.status < 400;
}

/** The container's hostPorts on `hostIP`, each forwarded to the free port standing for its container port. */
export async function forwardHostPorts(
  container: Container,
  hostIP: string,
  ports: Map<number, number>,
): Promise<{ close(): Promise<void> }> {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  for (const port of (container.ports ?? []).filter((each) => each.hostPort)) {
    const server = createServer((inbound) => {
      const outbound = connect(ports.get(port.containerPort)!, '127.0.0.1');
      track(inbound);
      track(outbound);
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('close', () => outbound.destroy());
      outbound.on('close', () => inbound.destroy());
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port.hostPort, hostIP, resolve));
    servers.push(server);
  }
  return {
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

/** A container's process, the leader of its own process group (so its children stop with it). */
export interface ContainerProcess {
  name: string;
  child: ChildProcess;
  output(): string;
  /** Whether the process has exited. */
  gone(): boolean;
  /**
   * SIGTERM to the group, then SIGKILL to the group (at once when the leader has exited within `graceMs`, to
   * take any child it left); resolves once nothing of the group lives, with whether the leader needed SIGKILL
   * (or had exited before).
   */
  stop(graceMs?: number): Promise<'terminated' | 'killed' | 'had exited'>;
}

export function startContainer(name: string, launch: Pick<Launch, 'argv' | 'cwd' | 'env'>): ContainerProcess {
  const child = spawn(launch.argv[0]!, launch.argv.slice(1), {
    cwd: launch.cwd,
    env: launch.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const signal = (which: NodeJS.Signals) => void signalGroupOf(child, which);
  const membersLeft = () => (groupAlive(child) ? groupMembers(child.pid!) : []);
  return {
    name,
    child,
    output: () => output,
    gone,
    async stop(graceMs = 15_000) {
      if (gone() && membersLeft().length === 0) return 'had exited';
      signal('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      const outcome = gone() ? 'terminated' : 'killed';
      signal('SIGKILL');
      await until(async () => membersLeft().length === 0, `process group of ${name} gone`, 10_000);
      return outcome;
    },
  };
}

/** Live (not zombie) processes of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z' && Number(group) === pgid) members.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

/** Waits for the container's readiness probe; fails with its output when it exits or the deadline passes. */
export async function waitReady(
  running: ContainerProcess,
  container: Container,
  spec: PodSpec,
  ports: Map<number, number>,
  timeoutMs = 60_000,
): Promise<void> {
  let answer: string | undefined;
  try {
    answer = await until(
      async () => (running.gone() ? 'exited' : (await probeReady(container, spec, ports)) && 'ready'),
      `${running.name} ready`,
      timeoutMs,
      100,
    );
  } catch (error) {
    answer = (error as Error).message;
  }
  if (answer !== 'ready') throw new Error(`${running.name}: ${answer}; its output:\n${running.output().slice(-6000)}`);
}
