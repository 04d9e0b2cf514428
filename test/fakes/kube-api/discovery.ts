// Discovery and OpenAPI documents, built from the registry on every request so an installed CRD shows up at
// once. Legacy discovery only (/api, /apis, /apis/<g>, /api/v1, /apis/<g>/<v>): kubectl asks for the
// aggregated form first and falls back when it gets plain application/json, as with older servers.
// OpenAPI v3 carries what kubectl reads from it: for each resource's PATCH operation, its
// x-kubernetes-group-version-kind and a `fieldValidation` query parameter (so kubectl leaves validation to
// the server), and the accepted patch media types. Strategic merge is not advertised, so kubectl computes
// strategic patches for built-in kinds from its own compiled-in types; the server still accepts them.
// There is no /openapi/v2 (kubectl treats it as optional for what the tests run).
import { createHash } from 'node:crypto';
import { acceptedPatchTypes } from './lifecycle.js';
import type { ResourceRegistry } from './registry.js';
import { apiVersionOf, type ResourceType } from './resources.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDocument(name: string, versions: string[]): Record<string, unknown> {
  const entries = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

export function apiGroupList(registry: ResourceRegistry): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry.groups().map((group) => groupDocument(group.name, group.versions)),
  };
}

export function apiGroup(registry: ResourceRegistry, name: string): Record<string, unknown> | undefined {
  const group = registry.groups().find((candidate) => candidate.name === name);
  return group && { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group.name, group.versions) };
}

export function apiResourceList(
  registry: ResourceRegistry,
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const resources = registry.in(group, version);
  if (resources.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf(group, version),
    resources: resources.flatMap((resource) => [
      {
        name: resource.plural,
        singularName: resource.singular,
        namespaced: resource.namespaced,
        kind: resource.kind,
        verbs: VERBS,
        ...(resource.shortNames.length > 0 ? { shortNames: resource.shortNames } : {}),
        ...(resource.categories.length > 0 ? { categories: resource.categories } : {}),
      },
      ...(resource.statusSubresource
        ? [
            {
              name: `${resource.plural}/status`,
              singularName: '',
              namespaced: resource.namespaced,
              kind: resource.kind,
              verbs: ['get', 'patch', 'update'],
            },
          ]
        : []),
    ]),
  };
}

function prefix(group: string, version: string): string {
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

function definitionName(resource: ResourceType, version: string): string {
  return `${resource.group ? resource.group.split('.').reverse().join('.') : 'io.k8s.api.core'}.${version}.${resource.kind}`;
}

const query = (name: string) => ({ name, in: 'query', schema: { type: 'string', uniqueItems: true } });
const pathParameter = (name: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', uniqueItems: true },
});

function operations(resource: ResourceType, version: string): Record<string, unknown> {
  const gvk = { group: resource.group, version, kind: resource.kind };
  const ref = { $ref: `#/components/schemas/${definitionName(resource, version)}` };
  const ok = { 200: { description: 'OK', content: { 'application/json': { schema: ref } } } };
  const scope = resource.namespaced ? '/namespaces/{namespace}' : '';
  const base = `${prefix(resource.group, version)}${scope}/${resource.plural}`;
  const scopeParameters = resource.namespaced ? [pathParameter('namespace')] : [];
  const writeParameters = [query('dryRun'), query('fieldManager'), query('fieldValidation')];
  const operation = (action: string, extra: Record<string, unknown> = {}) => ({
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    responses: ok,
    ...extra,
  });
  const item = {
    parameters: [pathParameter('name'), ...scopeParameters],
    get: operation('get'),
    put: operation('put', { parameters: writeParameters, requestBody: { content: { '*/*': { schema: ref } } } }),
    patch: operation('patch', {
      parameters: [...writeParameters, query('force')],
      requestBody: {
        content: Object.fromEntries(
          acceptedPatchTypes(resource)
            .filter((type) => !type.includes('strategic'))
            .map((type) => [type, { schema: { type: 'object' } }]),
        ),
      },
    }),
    delete: operation('delete'),
  };
  const paths: Record<string, unknown> = {
    [base]: {
      parameters: scopeParameters,
      get: operation('list'),
      post: operation('post', { parameters: writeParameters, requestBody: { content: { '*/*': { schema: ref } } } }),
      delete: operation('deletecollection'),
    },
    [`${base}/{name}`]: item,
  };
  if (resource.statusSubresource) paths[`${base}/{name}/status`] = { ...item, delete: undefined };
  return paths;
}

export function openApiDocument(
  registry: ResourceRegistry,
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const resources = registry.in(group, version);
  if (resources.length === 0) return undefined;
  const schemas: Record<string, unknown> = {};
  for (const resource of resources) {
    schemas[definitionName(resource, version)] = {
      ...(resource.schema?.(version) ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
      'x-kubernetes-group-version-kind': [{ group: resource.group, version, kind: resource.kind }],
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.33.0-fake' },
    paths: Object.assign({}, ...resources.map((resource) => operations(resource, version))),
    components: { schemas },
  };
}

export function openApiRoot(registry: ResourceRegistry): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const groupVersions = [
    { group: '', version: 'v1' },
    ...registry.groups().flatMap((group) => group.versions.map((version) => ({ group: group.name, version }))),
  ];
  for (const { group, version } of groupVersions) {
    const document = openApiDocument(registry, group, version);
    if (!document) continue;
    const hash = createHash('sha512').update(JSON.stringify(document)).digest('hex').slice(0, 64).toUpperCase();
    paths[prefix(group, version).slice(1)] = { serverRelativeURL: `/openapi/v3${prefix(group, version)}?hash=${hash}` };
  }
  return { paths };
}
