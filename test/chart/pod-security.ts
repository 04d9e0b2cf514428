// The Pod Security Standards (https://kubernetes.io/docs/concepts/security/pod-security-standards/) as far
// as a rendered pod spec shows them, for the chart tests: the strictest level a pod template meets and what
// keeps it from the next one. Pod Security admission itself needs a cluster (README, "Not testable here");
// this checks the same fields statically: host namespaces, privileged, capabilities, hostPath, hostPorts,
// seccomp and procMount for `baseline`; volume types, privilege escalation, non-root, seccomp and
// dropped capabilities for `restricted`.

type Json = Record<string, any>;
export type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';

const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
const RESTRICTED_VOLUMES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);

function containersOf(pod: Json): Json[] {
  return [...(pod.initContainers ?? []), ...(pod.containers ?? []), ...(pod.ephemeralContainers ?? [])];
}

/** What a pod template does that `baseline` forbids. */
export function baselineViolations(pod: Json): string[] {
  const found: string[] = [];
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) if (pod[field]) found.push(`${field}: true`);
  for (const volume of pod.volumes ?? []) if (volume.hostPath) found.push(`hostPath volume ${volume.name}`);
  if (pod.securityContext?.seccompProfile?.type === 'Unconfined') found.push('pod seccompProfile Unconfined');
  for (const container of containersOf(pod)) {
    const context = container.securityContext ?? {};
    if (context.privileged) found.push(`${container.name}: privileged`);
    for (const added of context.capabilities?.add ?? [])
      if (!BASELINE_CAPABILITIES.has(added)) found.push(`${container.name}: capability ${added}`);
    for (const port of container.ports ?? [])
      if (port.hostPort) found.push(`${container.name}: hostPort ${port.hostPort}`);
    if (context.seccompProfile?.type === 'Unconfined') found.push(`${container.name}: seccompProfile Unconfined`);
    if (context.procMount && context.procMount !== 'Default')
      found.push(`${container.name}: procMount ${context.procMount}`);
  }
  return found;
}

/** What a pod template does (or leaves unset) that `restricted` forbids, beyond `baseline`. */
export function restrictedViolations(pod: Json): string[] {
  const found: string[] = [];
  for (const volume of pod.volumes ?? []) {
    const type = Object.keys(volume).find((key) => key !== 'name');
    if (!type || !RESTRICTED_VOLUMES.has(type)) found.push(`volume ${volume.name} of type ${type}`);
  }
  const podContext = pod.securityContext ?? {};
  for (const container of containersOf(pod)) {
    const context = container.securityContext ?? {};
    if (context.allowPrivilegeEscalation !== false) found.push(`${container.name}: allowPrivilegeEscalation not false`);
    if ((context.runAsNonRoot ?? podContext.runAsNonRoot) !== true)
      found.push(`${container.name}: runAsNonRoot not true`);
    if ((context.runAsUser ?? podContext.runAsUser) === 0) found.push(`${container.name}: runAsUser 0`);
    const seccomp = context.seccompProfile?.type ?? podContext.seccompProfile?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost')
      found.push(`${container.name}: seccompProfile ${seccomp ?? 'unset'}`);
    if (!(context.capabilities?.drop ?? []).includes('ALL'))
      found.push(`${container.name}: capabilities not dropping ALL`);
    for (const added of context.capabilities?.add ?? [])
      if (added !== 'NET_BIND_SERVICE') found.push(`${container.name}: adds capability ${added}`);
  }
  return found;
}

/** The strictest level `pod` (a pod spec) meets. */
export function podSecurityLevel(pod: Json): PodSecurityLevel {
  if (baselineViolations(pod).length) return 'privileged';
  return restrictedViolations(pod).length ? 'baseline' : 'restricted';
}

/** The pod spec of a workload object (Deployment, DaemonSet, StatefulSet, Job, Pod). */
export function podSpecOf(object: { kind: string; spec?: unknown }): Json | undefined {
  const spec = object.spec as Json | undefined;
  if (object.kind === 'Pod') return spec;
  if (object.kind === 'CronJob') return spec?.jobTemplate?.spec?.template?.spec;
  return ['Deployment', 'DaemonSet', 'StatefulSet', 'ReplicaSet', 'Job'].includes(object.kind)
    ? spec?.template?.spec
    : undefined;
}
