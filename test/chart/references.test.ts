// Every name a rendered object refers to resolves, in every values case: Secrets, ConfigMaps, PVCs,
// ServiceAccounts, Services, Roles, volumes, pods behind Services and policies. A reference resolves to an
// object the same render holds, or to one of two documented kinds of outside object:
// - the Secrets the operator creates when absent (operator/reconcile/chart-secrets.ts), with the keys it
//   writes: read from the operator's own code, so a rename on either side fails here;
// - the Secrets and claims the user provides, named by a value the README documents (database URL, GitHub
//   token, TLS certificate, image pull Secrets, an existing PVC: the bridge's or the ships' sharedClaim).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chartSecrets, reconcileOptions } from '../../operator/reconcile/index.js';
import { CASES, caseObjects, helmAvailable, valuesFile, type KubeObject } from './render.js';

const haveHelm = helmAvailable('test/chart/references.test.ts');

/** Operator-created Secrets: name → the keys it writes. */
const OPERATOR_SECRETS = new Map(
  chartSecrets(reconcileOptions()).map((secret) => [secret.name, Object.keys(secret.values())]),
);

interface Values {
  database?: { existingSecret?: string | null; existingSecretKey?: string };
  bridge?: {
    github?: { existingSecret?: string; existingSecretKey?: string };
    persistence?: { existingClaim?: string };
  };
  ship?: { fleet?: { existingClaim?: string } };
  ingress?: { tls?: { secretName?: string } };
  imagePullSecrets?: (string | { name: string })[];
}

/** User-provided Secrets (name → the key used, or undefined for any) and claims, from the case's values. */
function userProvided(values: Values): { secrets: Map<string, string | undefined>; claims: Set<string> } {
  const secrets = new Map<string, string | undefined>();
  // values.yaml: database.existingSecret unset means `svc-database`, key `url` (NOTES.txt tells how to make it).
  secrets.set(values.database?.existingSecret ?? 'svc-database', values.database?.existingSecretKey ?? 'url');
  if (values.bridge?.github?.existingSecret)
    secrets.set(values.bridge.github.existingSecret, values.bridge.github.existingSecretKey ?? 'token');
  if (values.ingress?.tls?.secretName) secrets.set(values.ingress.tls.secretName, undefined);
  // values.schema.json: a Secret name or a `{name}` object, as in a pod spec.
  for (const entry of values.imagePullSecrets ?? [])
    secrets.set(typeof entry === 'string' ? entry : entry.name, undefined);
  const claims = new Set(
    [values.bridge?.persistence?.existingClaim, values.ship?.fleet?.existingClaim].filter(
      (claim): claim is string => !!claim,
    ),
  );
  return { secrets, claims };
}

type Json = Record<string, any>;

interface PodOwner {
  object: KubeObject;
  pod: Json;
  labels: Record<string, string>;
  claimTemplates: string[];
}

function podOwners(objects: KubeObject[]): PodOwner[] {
  return objects
    .filter((object) => ['Deployment', 'DaemonSet', 'StatefulSet'].includes(object.kind))
    .map((object) => {
      const spec = object.spec as Json;
      return {
        object,
        pod: spec.template.spec,
        labels: spec.template.metadata.labels,
        claimTemplates: (spec.volumeClaimTemplates ?? []).map((claim: Json) => claim.metadata.name),
      };
    });
}

const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

function unresolved(objects: KubeObject[], values: Values): string[] {
  const problems: string[] = [];
  const rendered = (kind: string, name: string) =>
    objects.some((object) => object.kind === kind && object.metadata.name === name);
  const user = userProvided(values);
  const secretKey = (where: string, name: string, key: string | undefined) => {
    if (rendered('Secret', name)) return;
    const operatorKeys = OPERATOR_SECRETS.get(name);
    if (operatorKeys) {
      if (key !== undefined && !operatorKeys.includes(key))
        problems.push(`${where}: Secret ${name} has no key ${key} (the operator writes ${operatorKeys.join(', ')})`);
      return;
    }
    if (!user.secrets.has(name))
      problems.push(
        `${where}: Secret ${name} is neither rendered, nor the operator's, nor named by a documented value`,
      );
    else if (key !== undefined && user.secrets.get(name) !== undefined && user.secrets.get(name) !== key)
      problems.push(`${where}: Secret ${name} is read at key ${key}, the values say ${user.secrets.get(name)}`);
  };
  const configMap = (where: string, name: string) => {
    if (!rendered('ConfigMap', name)) problems.push(`${where}: ConfigMap ${name} is not rendered`);
  };

  for (const { object, pod, labels, claimTemplates } of podOwners(objects)) {
    const at = `${object.kind} ${object.metadata.name}`;
    const volumes = new Set<string>([...(pod.volumes ?? []).map((volume: Json) => volume.name), ...claimTemplates]);
    for (const volume of pod.volumes ?? []) {
      if (volume.secret) secretKey(`${at} volume ${volume.name}`, volume.secret.secretName, undefined);
      if (volume.configMap) {
        configMap(`${at} volume ${volume.name}`, volume.configMap.name);
        const data =
          (
            objects.find((each) => each.kind === 'ConfigMap' && each.metadata.name === volume.configMap.name) as
              | Json
              | undefined
          )?.data ?? {};
        for (const item of volume.configMap.items ?? [])
          if (!(item.key in data))
            problems.push(`${at} volume ${volume.name}: ConfigMap ${volume.configMap.name} has no key ${item.key}`);
      }
      if (volume.persistentVolumeClaim) {
        const claim = volume.persistentVolumeClaim.claimName;
        if (!rendered('PersistentVolumeClaim', claim) && !user.claims.has(claim))
          problems.push(
            `${at} volume ${volume.name}: PVC ${claim} is neither rendered nor bridge.persistence.existingClaim or ship.fleet.existingClaim`,
          );
      }
    }
    for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
      const where = `${at} container ${container.name}`;
      for (const env of container.env ?? []) {
        if (env.valueFrom?.secretKeyRef)
          secretKey(`${where} env ${env.name}`, env.valueFrom.secretKeyRef.name, env.valueFrom.secretKeyRef.key);
        if (env.valueFrom?.configMapKeyRef) configMap(`${where} env ${env.name}`, env.valueFrom.configMapKeyRef.name);
      }
      for (const source of container.envFrom ?? []) {
        if (source.secretRef) secretKey(`${where} envFrom`, source.secretRef.name, undefined);
        if (source.configMapRef) configMap(`${where} envFrom`, source.configMapRef.name);
      }
      for (const mount of container.volumeMounts ?? [])
        if (!volumes.has(mount.name)) problems.push(`${where}: mounts ${mount.name}, which is no volume of the pod`);
      // `$(NAME)` in args and env values expands only variables defined earlier in the container's env.
      const defined: string[] = [];
      for (const env of container.env ?? []) {
        for (const [, name] of String(env.value ?? '').matchAll(/\$\((\w+)\)/g))
          if (!defined.includes(name!)) problems.push(`${where} env ${env.name}: $(${name}) is not defined before it`);
        defined.push(env.name);
      }
      for (const arg of container.args ?? [])
        for (const [, name] of String(arg).matchAll(/\$\((\w+)\)/g))
          if (!defined.includes(name!)) problems.push(`${where} args: $(${name}) is not in its env`);
    }
    if (pod.serviceAccountName && !rendered('ServiceAccount', pod.serviceAccountName))
      problems.push(`${at}: ServiceAccount ${pod.serviceAccountName} is not rendered`);
    if (!pod.serviceAccountName && pod.automountServiceAccountToken !== false)
      problems.push(`${at}: runs as the default ServiceAccount with its token mounted`);
    for (const { name } of pod.imagePullSecrets ?? []) secretKey(`${at} imagePullSecrets`, name, undefined);
    if (object.kind === 'StatefulSet' && !rendered('Service', (object.spec as Json).serviceName))
      problems.push(`${at}: serviceName ${(object.spec as Json).serviceName} is not rendered`);
    if (!matches((object.spec as Json).selector.matchLabels, labels))
      problems.push(`${at}: its selector does not match its pod template`);
  }

  const pods = podOwners(objects);
  for (const object of objects) {
    const spec = object.spec as Json;
    const at = `${object.kind} ${object.metadata.name}`;
    if (object.kind === 'Service' && !pods.some((pod) => matches(spec.selector, pod.labels)))
      problems.push(`${at}: selects no rendered pod`);
    if (object.kind === 'Service') {
      for (const port of spec.ports) {
        const named = typeof port.targetPort === 'string';
        const backed = pods
          .filter((pod) => matches(spec.selector, pod.labels))
          .every((pod) =>
            pod.pod.containers.some((container: Json) =>
              (container.ports ?? []).some((each: Json) =>
                named ? each.name === port.targetPort : each.containerPort === (port.targetPort ?? port.port),
              ),
            ),
          );
        if (!backed) problems.push(`${at}: port ${port.name} targets ${port.targetPort}, which its pods do not expose`);
      }
    }
    if (object.kind === 'NetworkPolicy' && !pods.some((pod) => matches(spec.podSelector.matchLabels, pod.labels)))
      problems.push(`${at}: applies to no rendered pod`);
    if (object.kind === 'Ingress') {
      for (const tls of spec.tls ?? []) secretKey(`${at} tls`, tls.secretName, undefined);
      for (const rule of spec.rules)
        for (const path of rule.http.paths)
          if (!rendered('Service', path.backend.service.name))
            problems.push(`${at}: backend Service ${path.backend.service.name} is not rendered`);
    }
    if (object.kind === 'HTTPRoute') {
      for (const rule of spec.rules)
        for (const backend of rule.backendRefs)
          if (!rendered('Service', backend.name))
            problems.push(`${at}: backend Service ${backend.name} is not rendered`);
    }
    if (object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding') {
      const binding = object as Json;
      if (!rendered(binding.roleRef.kind, binding.roleRef.name))
        problems.push(`${at}: ${binding.roleRef.kind} ${binding.roleRef.name} is not rendered`);
      for (const subject of binding.subjects)
        if (subject.kind === 'ServiceAccount' && !rendered('ServiceAccount', subject.name))
          problems.push(`${at}: ServiceAccount ${subject.name} is not rendered`);
    }
    if (
      object.kind === 'ServiceMonitor' &&
      !objects.some((each) => each.kind === 'Service' && matches(spec.selector.matchLabels, each.metadata.labels ?? {}))
    )
      problems.push(`${at}: selects no rendered Service`);
  }
  return problems;
}

describe('the check itself', () => {
  const pod = (env: Json[]) =>
    ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: {
          metadata: { labels: { a: 'b' } },
          spec: { automountServiceAccountToken: false, containers: [{ name: 'c', env }] },
        },
      },
    }) as KubeObject;
  it("accepts the operator's Secrets with their keys and a documented user Secret", () => {
    expect(
      unresolved(
        [
          pod([
            { name: 'A', valueFrom: { secretKeyRef: { name: 'svc-admin', key: 'password' } } },
            { name: 'B', valueFrom: { secretKeyRef: { name: 'svc-database', key: 'url' } } },
          ]),
        ],
        {},
      ),
    ).toEqual([]);
  });
  it('refuses an unknown Secret, a key the operator does not write, a missing ConfigMap and an undefined $(VAR)', () => {
    expect(
      unresolved(
        [
          pod([
            { name: 'A', valueFrom: { secretKeyRef: { name: 'mystery', key: 'x' } } },
            { name: 'B', valueFrom: { secretKeyRef: { name: 'svc-admin', key: 'token' } } },
            { name: 'C', valueFrom: { configMapKeyRef: { name: 'cm', key: 'x' } } },
            { name: 'D', value: 'postgres://$(LATER)@db' },
            { name: 'LATER', value: 'x' },
          ]),
        ],
        {},
      ),
    ).toHaveLength(4);
  });
});

describe.skipIf(!haveHelm)('every reference in the rendered chart resolves', () => {
  it('the operator creates the Secrets the chart names', () => {
    expect([...OPERATOR_SECRETS.keys()].sort()).toEqual(['svc-admin', 'svc-postgres']);
  });

  it.each(CASES)('%s', async (name) => {
    const values = (parse(readFileSync(valuesFile(name), 'utf8')) ?? {}) as Values;
    expect(unresolved(await caseObjects(name), values)).toEqual([]);
  });
});
