// The operator's Role in the chart grants exactly what the operator's code calls: the verb + resource list is
// derived here from operator/'s source, so a new API call without a rule (or a rule nothing calls) fails.
// What is read from the code:
// - typed client calls `<verb>Namespaced<Kind>[Status](…)` (client-node 1.4: read → get, replace → update);
// - custom-object calls, which live in the Cluster adapter (operator/reconcile/cluster.ts): each Cluster
//   method's verbs (following `this.<method>(` inside the class), then every `cluster.<method>(X_RESOURCE`
//   call site, X_RESOURCE resolved in operator/reconcile/names.ts. A call site passing a resource it was
//   given (a variable or property: steps shared by several kinds) counts for every custom resource of the
//   operator's API group that the code names (an over-approximation: it can only grant a verb on a kind
//   the code handles, never miss one);
// - list + watch for every reconciler's primary resource (`resource = X_RESOURCE`) and the resources in its
//   secondary watches (`watches = [{ resource: X_RESOURCE, … }]`), which the runtime lists and watches
//   through operator/kube/http.ts.
// - cluster-scoped typed calls (`create<Kind>(`, only TokenReview today: the token exchange) belong in the
//   release's ClusterRole, compared on their own.
// Anything the scan cannot resolve fails the test, naming it, instead of being skipped.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { caseObjects, helmAvailable, ROOT, type KubeObject } from './render.js';

const OPERATOR = join(ROOT, 'operator');

/** Source without comments (a comment that mentions a call is not a call). */
function code(text: string): string {
  // Line comments first: one may hold `/*` (a glob such as crds/*.yaml).
  return text.replace(/(^|\s)\/\/.*$/gm, '$1').replace(/\/\*[\s\S]*?\*\//g, '');
}

function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .sort()
    .map((name) => ({ file: relative(ROOT, join(dir, name)), text: code(readFileSync(join(dir, name), 'utf8')) }));
}

/** Built-in kinds the operator's typed calls may name: their API group and plural. */
const BUILT_IN: Record<string, { group: string; plural: string }> = {
  Secret: { group: '', plural: 'secrets' },
  Event: { group: '', plural: 'events' },
  Pod: { group: '', plural: 'pods' },
  ConfigMap: { group: '', plural: 'configmaps' },
  DaemonSet: { group: 'apps', plural: 'daemonsets' },
  Lease: { group: 'coordination.k8s.io', plural: 'leases' },
};
const VERBS: Record<string, string> = {
  read: 'get',
  get: 'get',
  list: 'list',
  create: 'create',
  replace: 'update',
  patch: 'patch',
  delete: 'delete',
  deleteCollection: 'deletecollection',
};
const TYPED_CALL = /\b(read|get|list|create|replace|patch|delete|deleteCollection)Namespaced(\w+?)(Status)?\(/g;

/** Cluster-scoped kinds the operator's typed calls may name (`create<Kind>(`, no `Namespaced`). */
const CLUSTER_SCOPED: Record<string, { group: string; plural: string }> = {
  TokenReview: { group: 'authentication.k8s.io', plural: 'tokenreviews' },
};

/** The cluster-scoped calls in operator/, as `group/resource:verb`. */
function clusterPermissions(files = sources(OPERATOR)): Set<string> {
  const found = new Set<string>();
  for (const { text } of files) {
    for (const [, kind] of text.matchAll(/\.create(\w+)\(/g)) {
      const scoped = CLUSTER_SCOPED[kind!];
      if (scoped) found.add(permission(scoped.group, scoped.plural, 'create'));
    }
  }
  return found;
}

const permission = (group: string, resource: string, verb: string) => `${group || 'core'}/${resource}:${verb}`;

/** The operator's API group (resources/common.ts) and the ResourceRef constants of names.ts: name → group/plural. */
function resourceConstants(files: { file: string; text: string }[]): {
  group: string;
  constants: Map<string, { group: string; plural: string }>;
} {
  const common = files.find(({ file }) => file.endsWith('resources/common.ts'))!.text;
  const group = /export const GROUP = '([^']+)'/.exec(common)?.[1];
  const names = files.find(({ file }) => file.endsWith('reconcile/names.ts'))!.text;
  const constants = new Map<string, { group: string; plural: string }>();
  for (const [, name, groupExpr, plural] of names.matchAll(
    /export const (\w+_RESOURCE): ResourceRef = \{\s*group: (GROUP|'[^']*'),\s*version: [^,]+,\s*plural: '([^']+)'/g,
  )) {
    constants.set(name!, { group: groupExpr === 'GROUP' ? group! : groupExpr!.slice(1, -1), plural: plural! });
  }
  return { group: group!, constants };
}

/** Each Cluster method's custom-object verbs (e.g. addFinalizer → patch), following calls inside the class. */
function clusterMethodVerbs(cluster: string): Map<string, Set<string>> {
  const starts = [...cluster.matchAll(/^ {2}(?:async )?(\w+)(?:<[^>]*>)?\(/gm)];
  const direct = new Map<string, { verbs: Set<string>; calls: Set<string> }>();
  starts.forEach((start, index) => {
    const body = cluster.slice(start.index, starts[index + 1]?.index ?? cluster.length);
    const verbs = new Set<string>();
    for (const [, verb, kind, status] of body.matchAll(TYPED_CALL)) {
      if (kind === 'CustomObject') verbs.add(`${VERBS[verb!]}${status ? ' status' : ''}`);
    }
    direct.set(start[1]!, { verbs, calls: new Set([...body.matchAll(/this\.(\w+)\(/g)].map((match) => match[1]!)) });
  });
  const resolved = new Map<string, Set<string>>();
  const resolve = (method: string, seen: Set<string>): Set<string> => {
    const entry = direct.get(method);
    if (!entry || seen.has(method)) return new Set();
    seen.add(method);
    const verbs = new Set(entry.verbs);
    for (const callee of entry.calls) for (const verb of resolve(callee, seen)) verbs.add(verb);
    return verbs;
  };
  for (const method of direct.keys()) resolved.set(method, resolve(method, new Set()));
  return resolved;
}

/** What the operator's code calls, as `group/resource:verb`, and what the scan could not resolve. */
function operatorPermissions(files = sources(OPERATOR)): { permissions: Set<string>; unresolved: string[] } {
  const permissions = new Set<string>();
  const unresolved: string[] = [];
  const { group, constants } = resourceConstants(files);
  const clusterFile = files.find(({ file }) => file.endsWith('reconcile/cluster.ts'))!;
  const methodVerbs = clusterMethodVerbs(clusterFile.text);
  const named = new Set(
    files.flatMap(({ text }) => [...text.matchAll(/\b(\w+_RESOURCE)\b/g)].map((match) => match[1]!)),
  );
  const customResources = [...constants.entries()]
    .filter(([name, resource]) => resource.group === group && named.has(name))
    .map(([, resource]) => resource);

  for (const { file, text } of files) {
    for (const [call, verb, kind, status] of text.matchAll(TYPED_CALL)) {
      if (kind === 'CustomObject') {
        if (file !== clusterFile.file) unresolved.push(`${file}: ${call} outside the Cluster adapter`);
        continue;
      }
      const builtIn = BUILT_IN[kind!];
      if (!builtIn) unresolved.push(`${file}: ${call} names a kind this test has no group for`);
      else permissions.add(permission(builtIn.group, `${builtIn.plural}${status ? '/status' : ''}`, VERBS[verb!]!));
    }
    // Type arguments (`cluster.readObject<Ship>(SHIP_RESOURCE, …)`) do not hide a call.
    for (const [call, method, argument] of text.matchAll(/\bcluster\.(\w+)(?:<[^()]*>)?\(\s*([\w.]*)/g)) {
      const verbs = methodVerbs.get(method!);
      if (!verbs?.size) continue; // not a custom-object method (readSecret, recordEvent: typed calls above)
      const constant = constants.get(argument!);
      const resources = constant
        ? [constant]
        : /^[A-Za-z_$][\w$.]*$/.test(argument!) && !/_RESOURCE$/.test(argument!)
          ? customResources
          : [];
      if (!resources.length) {
        unresolved.push(`${file}: ${call}…) names neither a ResourceRef of names.ts nor a variable holding one`);
        continue;
      }
      for (const resource of resources) {
        for (const verb of verbs) {
          const [name, sub] = verb.split(' ');
          permissions.add(permission(resource.group, `${resource.plural}${sub ? '/status' : ''}`, name!));
        }
      }
    }
    const watched = [
      ...[...text.matchAll(/\breadonly resource\s*=\s*(\w+)/g)].map((match) => match[1]!),
      ...[...text.matchAll(/\bwatches(?:\s*=|:)\s*\[([\s\S]*?)\]/g)].flatMap((match) =>
        [...match[1]!.matchAll(/\bresource:\s*(\w+)/g)].map((entry) => entry[1]!),
      ),
    ];
    for (const constant of watched) {
      const resource = constants.get(constant);
      if (!resource) unresolved.push(`${file}: watches ${constant}, not a ResourceRef of names.ts`);
      else for (const verb of ['list', 'watch']) permissions.add(permission(resource.group, resource.plural, verb));
    }
    if (/\bnew KubeHttp\(/.test(text) && file !== 'operator/runtime/runtime.ts')
      unresolved.push(`${file}: raw API requests outside the runtime's list/watch`);
  }
  return { permissions, unresolved };
}

interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

function granted(role: KubeObject): Set<string> {
  const rules = (role as unknown as { rules: PolicyRule[] }).rules;
  const result = new Set<string>();
  for (const rule of rules)
    for (const group of rule.apiGroups)
      for (const resource of rule.resources)
        for (const verb of rule.verbs) result.add(permission(group, resource, verb));
  return result;
}

describe('the scan of operator/', () => {
  const derived = operatorPermissions();
  it('resolves every API call it finds', () => {
    expect(derived.unresolved).toEqual([]);
  });
  it('finds the calls it is known to make (so a broken scan cannot pass empty)', () => {
    for (const expected of [
      'svc.dev/ships:create',
      'svc.dev/ships:delete',
      'svc.dev/ships/status:patch',
      'svc.dev/repos:patch',
      'core/secrets:create',
      'core/events:create',
      'apps/daemonsets:watch',
      'coordination.k8s.io/leases:update',
    ]) {
      expect([...derived.permissions]).toContain(expected);
    }
  });
  it('notices a new call', () => {
    const files = sources(OPERATOR);
    const extra = {
      file: 'operator/reconcile/extra.ts',
      text: 'await this.kube.core.deleteNamespacedConfigMap({ namespace, name });\nawait cluster.deleteObject(REPO_RESOURCE, repo);',
    };
    const withExtra = operatorPermissions([...files, extra]).permissions;
    expect([...withExtra].filter((entry) => !derived.permissions.has(entry)).sort()).toEqual([
      'core/configmaps:delete',
      'svc.dev/repos:delete',
    ]);
    expect(
      operatorPermissions([
        ...files,
        { file: 'operator/x.ts', text: 'await this.kube.storage.listNamespacedVolumeAttachment({})' },
      ]).unresolved,
    ).toHaveLength(1);
  });
});

describe.skipIf(!helmAvailable('test/chart/rbac.test.ts'))("the operator's RBAC in the chart", () => {
  it('grants exactly the verbs and resources the operator calls, in its namespace', async () => {
    const objects = await caseObjects('defaults');
    const roles = objects
      .filter(
        (object) =>
          object.kind === 'Role' ||
          (object.kind === 'ClusterRole' &&
            !object.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-view'] &&
            !object.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-edit']),
      )
      .sort((a, b) => (a.kind === 'Role' ? -1 : b.kind === 'Role' ? 1 : 0));
    expect(roles.map((role) => `${role.kind}/${role.metadata.name}`)).toEqual([
      'Role/svc-operator',
      'ClusterRole/svc-svc-operator-tokenreview',
    ]);
    expect([...granted(roles[0]!)].sort()).toEqual([...operatorPermissions().permissions].sort());
    // Cluster-wide, only what the token exchange calls: TokenReview.
    expect([...granted(roles[1]!)].sort()).toEqual([...clusterPermissions()].sort());
    expect([...clusterPermissions()]).toEqual(['authentication.k8s.io/tokenreviews:create']);
    const binding = objects.find((object) => object.kind === 'ClusterRoleBinding') as KubeObject & {
      roleRef: { name: string };
      subjects: { name: string; namespace: string }[];
    };
    expect(binding.roleRef.name).toBe('svc-svc-operator-tokenreview');
    expect(binding.subjects).toEqual([expect.objectContaining({ name: 'svc-operator', namespace: 'svc' })]);
  });

  it('binds that Role to the ServiceAccount the operator pods run as', async () => {
    const objects = await caseObjects('defaults');
    const binding = objects.find((object) => object.kind === 'RoleBinding') as KubeObject & {
      roleRef: { kind: string; name: string };
      subjects: { kind: string; name: string; namespace: string }[];
    };
    const deployment = objects.find(
      (object) => object.kind === 'Deployment' && object.metadata.name === 'svc-operator',
    ) as KubeObject & { spec: { template: { spec: { serviceAccountName: string } } } };
    expect(binding.roleRef).toMatchObject({ kind: 'Role', name: 'svc-operator' });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: deployment.spec.template.spec.serviceAccountName, namespace: 'svc' },
    ]);
    expect(
      objects.some(
        (object) =>
          object.kind === 'ServiceAccount' && object.metadata.name === deployment.spec.template.spec.serviceAccountName,
      ),
    ).toBe(true);
  });

  it('aggregates read access to Ships and Repos into view, write access into edit and admin', async () => {
    const objects = await caseObjects('defaults');
    const view = objects.find(
      (object) => object.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-view'] === 'true',
    )!;
    const edit = objects.find(
      (object) => object.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-edit'] === 'true',
    )!;
    expect(edit.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-admin']).toBe('true');
    for (const resource of ['ships', 'repos']) {
      for (const verb of ['get', 'list', 'watch'])
        expect([...granted(view)]).toContain(permission('svc.dev', resource, verb));
      expect([...granted(view)].filter((entry) => entry.startsWith(`svc.dev/${resource}:`)).sort()).toEqual(
        ['get', 'list', 'watch'].map((verb) => permission('svc.dev', resource, verb)),
      );
      for (const verb of ['create', 'update', 'patch', 'delete'])
        expect([...granted(edit)]).toContain(permission('svc.dev', resource, verb));
      // Status belongs to the operator: users read it, never write it.
      expect([...granted(edit)].filter((entry) => entry.startsWith(`svc.dev/${resource}/status:`)).sort()).toEqual(
        ['get', 'list', 'watch'].map((verb) => permission('svc.dev', `${resource}/status`, verb)),
      );
    }
  });
});
