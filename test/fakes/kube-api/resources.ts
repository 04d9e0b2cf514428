// What the fake serves: one ResourceType per resource (group, versions, names, scope, which subresources,
// how writes behave, which field selectors and Table columns it has). Built-in types are declared here;
// custom resources are derived from CustomResourceDefinition objects (crds.ts). Everything else in the fake
// reads these records instead of special-casing names, so adding a resource touches this file only.
import { errors, type StatusCause } from './errors.js';
import { evaluateJsonPath, parseJsonPath } from './jsonpath.js';
import type { StructuralSchema } from './schema.js';

export type KubeObject = Record<string, unknown> & { metadata: ObjectMeta };
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  generation?: number;
  creationTimestamp: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  generateName?: string;
  [key: string]: unknown;
}
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface Column {
  name: string;
  type: string;
  format?: string;
  description: string;
  priority: number;
  cell: (object: KubeObject, now: number) => unknown;
}

export interface ResourceType {
  group: string;
  /** Served versions; the first is the preferred (and storage) version. */
  versions: string[];
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  statusSubresource: boolean;
  /** metadata.generation is kept and bumped on spec changes (CRs, workloads; not Secrets). */
  tracksGeneration: boolean;
  /** DELETE answers with the object rather than a Success Status (pods and custom resources do). */
  returnDeletedObject: boolean;
  /** PUT of a missing object creates it (leases and events, as in the apiserver). */
  createOnUpdate: boolean;
  /** Built-in types accept strategic merge patch; custom resources answer 415 as real servers do. */
  strategicMergePatch: boolean;
  /** Field selectors beyond metadata.name and metadata.namespace. */
  fieldSelectors: string[];
  columns: (version: string) => Column[];
  /** Structural schema of a version (custom resources with a CRD). */
  schema?: (version: string) => StructuralSchema | undefined;
  /** The CRD behind a custom resource; absent for built-ins and the schemaless defaults. */
  crdName?: string;
  /** Kind-specific normalisation of a write (Secret stringData → data). May throw KubeError. */
  normalize?: (object: KubeObject) => void;
  /** Kind-specific validation; `old` is absent on create. */
  validate?: (object: KubeObject, old: KubeObject | undefined) => StatusCause[];
  /** Finalizers the apiserver adds when the object is deleted (a CRD's instance cleanup). */
  finalizersOnDelete?: string[];
  /** What a freshly created object's status is when the status subresource resets it. */
  initialStatus?: () => Record<string, unknown> | undefined;
}

export function resourceKey(resource: Pick<ResourceType, 'group' | 'plural'>): string {
  return resource.group ? `${resource.plural}.${resource.group}` : resource.plural;
}

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** Kubernetes' duration.HumanDuration, which kubectl and the apiserver's Table use for AGE. */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.floor(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8)
    return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365;
    return days === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${days}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

function age(timestamp: unknown, now: number): string {
  const time = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  return Number.isNaN(time) ? '<unknown>' : humanDuration(now - time);
}

function get(object: unknown, path: string): unknown {
  let current = object;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const NAME_COLUMN: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
  cell: (object) => object.metadata.name,
};
const AGE_COLUMN: Column = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (object, now) => age(object.metadata.creationTimestamp, now),
};

/** Columns of a custom resource version: Name, then the CRD's additionalPrinterColumns (or Age when none). */
export function printerColumns(definitions: Array<Record<string, unknown>> | undefined): Column[] {
  if (!definitions || definitions.length === 0) return [NAME_COLUMN, { ...AGE_COLUMN, name: 'Age', type: 'date' }];
  return [
    NAME_COLUMN,
    ...definitions.map((definition): Column => {
      const type = String(definition.type ?? 'string');
      const steps = parseJsonPath(String(definition.jsonPath ?? ''));
      return {
        name: String(definition.name),
        type,
        ...(definition.format ? { format: String(definition.format) } : {}),
        description: String(definition.description ?? ''),
        priority: Number(definition.priority ?? 0),
        cell: (object, now) => {
          const value = evaluateJsonPath(steps, object)[0];
          if (value === undefined || value === null) return null;
          if (type === 'date') return age(value, now);
          if (type === 'integer' || type === 'number') return typeof value === 'number' ? value : null;
          if (type === 'boolean') return typeof value === 'boolean' ? value : null;
          return typeof value === 'object' ? JSON.stringify(value) : String(value);
        },
      };
    }),
  ];
}

// metav1.MicroTime decodes with Go's RFC3339Micro layout, which takes exactly six fractional digits:
// `2026-01-02T03:04:05.000000Z` is accepted, a JavaScript Date's `…05.123Z` is a 400 (client-node's
// V1MicroTime serialises correctly, a plain Date does not).
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

function requireMicroTime(kind: string, object: KubeObject, paths: string[]): void {
  for (const path of paths) {
    const value = get(object, path);
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !MICRO_TIME.test(value)) {
      throw errors.badRequest(
        `${kind} in version "v1" cannot be handled as a ${kind}: parsing time ${JSON.stringify(String(value))} as "2006-01-02T15:04:05.000000Z07:00": cannot parse ${JSON.stringify(String(value).slice(19))} as ".000000"`,
      );
    }
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const secrets: ResourceType = {
  group: '',
  versions: ['v1'],
  plural: 'secrets',
  singular: 'secret',
  kind: 'Secret',
  listKind: 'SecretList',
  namespaced: true,
  shortNames: [],
  categories: [],
  statusSubresource: false,
  tracksGeneration: false,
  returnDeletedObject: false,
  createOnUpdate: false,
  strategicMergePatch: true,
  fieldSelectors: ['type'],
  columns: () => [
    NAME_COLUMN,
    {
      name: 'Type',
      type: 'string',
      description: 'The type of the secret',
      priority: 0,
      cell: (object) => object.type ?? 'Opaque',
    },
    {
      name: 'Data',
      type: 'string',
      description: 'The number of keys in the secret',
      priority: 0,
      cell: (object) => Object.keys((object.data as object | undefined) ?? {}).length,
    },
    AGE_COLUMN,
  ],
  normalize: (object) => {
    // stringData is write-only: merged into data (base64) on every write, never stored.
    const stringData = object.stringData as Record<string, unknown> | undefined;
    if (stringData && typeof stringData === 'object') {
      const data = { ...((object.data as Record<string, string> | undefined) ?? {}) };
      for (const [key, value] of Object.entries(stringData))
        data[key] = Buffer.from(String(value), 'utf8').toString('base64');
      object.data = data;
    }
    delete object.stringData;
    if (object.type === undefined || object.type === '') object.type = 'Opaque';
    for (const [key, value] of Object.entries((object.data as Record<string, unknown> | undefined) ?? {})) {
      if (typeof value !== 'string' || !BASE64.test(value))
        throw errors.badRequest(
          `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at data[${JSON.stringify(key)}]`,
        );
    }
  },
  validate: (object, old) => {
    const causes: StatusCause[] = [];
    for (const key of Object.keys((object.data as object | undefined) ?? {})) {
      if (!/^[-._a-zA-Z0-9]+$/.test(key))
        causes.push({
          reason: 'FieldValueInvalid',
          field: `data[${key}]`,
          message: `Invalid value: "${key}": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
        });
    }
    if (old && old.type !== object.type)
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'type',
        message: `Invalid value: "${String(object.type)}": field is immutable`,
      });
    if (old && old.immutable === true && JSON.stringify(old.data ?? {}) !== JSON.stringify(object.data ?? {})) {
      causes.push({
        reason: 'FieldValueForbidden',
        field: 'data',
        message: 'Forbidden: field is immutable when `immutable` is set',
      });
    }
    return causes;
  },
};

const pods: ResourceType = {
  group: '',
  versions: ['v1'],
  plural: 'pods',
  singular: 'pod',
  kind: 'Pod',
  listKind: 'PodList',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  statusSubresource: true,
  tracksGeneration: false,
  returnDeletedObject: true,
  createOnUpdate: false,
  strategicMergePatch: true,
  fieldSelectors: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  initialStatus: () => ({ phase: 'Pending' }),
  columns: () => [
    NAME_COLUMN,
    {
      name: 'Ready',
      type: 'string',
      description: 'The aggregate readiness state of this pod for accepting traffic.',
      priority: 0,
      cell: (object) => {
        const statuses = (get(object, 'status.containerStatuses') as Array<{ ready?: boolean }> | undefined) ?? [];
        const total = ((get(object, 'spec.containers') as unknown[] | undefined) ?? []).length;
        return `${statuses.filter((status) => status.ready).length}/${total}`;
      },
    },
    {
      name: 'Status',
      type: 'string',
      description: 'The aggregate status of the containers in this pod.',
      priority: 0,
      cell: (object) =>
        object.metadata.deletionTimestamp
          ? 'Terminating'
          : (get(object, 'status.reason') ?? get(object, 'status.phase') ?? 'Unknown'),
    },
    {
      name: 'Restarts',
      type: 'string',
      description: 'The number of times the containers in this pod have been restarted.',
      priority: 0,
      cell: (object) =>
        String(
          ((get(object, 'status.containerStatuses') as Array<{ restartCount?: number }> | undefined) ?? []).reduce(
            (sum, status) => sum + (status.restartCount ?? 0),
            0,
          ),
        ),
    },
    AGE_COLUMN,
    {
      name: 'IP',
      type: 'string',
      description: 'IP address allocated to the pod.',
      priority: 1,
      cell: (object) => get(object, 'status.podIP') ?? '<none>',
    },
    {
      name: 'Node',
      type: 'string',
      description: 'Name of the Node this pod is assigned to.',
      priority: 1,
      cell: (object) => get(object, 'spec.nodeName') ?? '<none>',
    },
  ],
};

const events: ResourceType = {
  group: '',
  versions: ['v1'],
  plural: 'events',
  singular: 'event',
  kind: 'Event',
  listKind: 'EventList',
  namespaced: true,
  shortNames: ['ev'],
  categories: [],
  statusSubresource: false,
  tracksGeneration: false,
  returnDeletedObject: false,
  createOnUpdate: true,
  strategicMergePatch: true,
  normalize: (object) => requireMicroTime('Event', object, ['eventTime', 'series.lastObservedTime']),
  fieldSelectors: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  columns: () => [
    {
      name: 'Last Seen',
      type: 'string',
      description: 'Time when this Event was last observed.',
      priority: 0,
      cell: (object, now) => age(object.lastTimestamp ?? object.eventTime ?? object.metadata.creationTimestamp, now),
    },
    {
      name: 'Type',
      type: 'string',
      description: 'Type of this event (Normal, Warning).',
      priority: 0,
      cell: (object) => object.type ?? '',
    },
    {
      name: 'Reason',
      type: 'string',
      description: 'Short, machine understandable string that gives the reason for this event.',
      priority: 0,
      cell: (object) => object.reason ?? '',
    },
    {
      name: 'Object',
      type: 'string',
      description: 'The object that this event is about.',
      priority: 0,
      cell: (object) =>
        `${String(get(object, 'involvedObject.kind') ?? '').toLowerCase()}/${String(get(object, 'involvedObject.name') ?? '')}`,
    },
    {
      name: 'Message',
      type: 'string',
      description: 'A human-readable description of the status of this operation.',
      priority: 0,
      cell: (object) => object.message ?? '',
    },
  ],
};

const daemonsets: ResourceType = {
  group: 'apps',
  versions: ['v1'],
  plural: 'daemonsets',
  singular: 'daemonset',
  kind: 'DaemonSet',
  listKind: 'DaemonSetList',
  namespaced: true,
  shortNames: ['ds'],
  categories: ['all'],
  statusSubresource: true,
  tracksGeneration: true,
  returnDeletedObject: false,
  createOnUpdate: false,
  strategicMergePatch: true,
  fieldSelectors: [],
  columns: () => [
    NAME_COLUMN,
    ...(
      [
        'desiredNumberScheduled:Desired',
        'currentNumberScheduled:Current',
        'numberReady:Ready',
        'updatedNumberScheduled:Up-to-date',
        'numberAvailable:Available',
      ] as const
    ).map((spec): Column => {
      const [field, name] = spec.split(':') as [string, string];
      return {
        name,
        type: 'integer',
        description: `The ${field} of the daemon set.`,
        priority: 0,
        cell: (object) => Number(get(object, `status.${field}`) ?? 0),
      };
    }),
    {
      name: 'Node Selector',
      type: 'string',
      description: 'The node selector of the pod template.',
      priority: 0,
      cell: (object) => {
        const selector = (get(object, 'spec.template.spec.nodeSelector') as Record<string, string> | undefined) ?? {};
        return (
          Object.entries(selector)
            .map(([key, value]) => `${key}=${value}`)
            .join(',') || '<none>'
        );
      },
    },
    AGE_COLUMN,
  ],
};

const leases: ResourceType = {
  group: 'coordination.k8s.io',
  versions: ['v1'],
  plural: 'leases',
  singular: 'lease',
  kind: 'Lease',
  listKind: 'LeaseList',
  namespaced: true,
  shortNames: [],
  categories: [],
  statusSubresource: false,
  tracksGeneration: false,
  returnDeletedObject: false,
  createOnUpdate: true,
  strategicMergePatch: true,
  fieldSelectors: [],
  normalize: (object) => requireMicroTime('Lease', object, ['spec.acquireTime', 'spec.renewTime']),
  columns: () => [
    NAME_COLUMN,
    {
      name: 'Holder',
      type: 'string',
      description: 'The holder of the lease.',
      priority: 0,
      cell: (object) => get(object, 'spec.holderIdentity') ?? '',
    },
    AGE_COLUMN,
  ],
};

export const BUILT_IN_RESOURCES: ResourceType[] = [secrets, pods, events, daemonsets, leases];

export { NAME_COLUMN };

/** Ships and Repos when no CRD defines them: schemaless, with the status subresource on (docs/architecture.md §10). */
export function schemalessCustomResource(
  group: string,
  version: string,
  kind: string,
  plural: string,
  shortNames: string[] = [],
): ResourceType {
  return {
    group,
    versions: [version],
    plural,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced: true,
    shortNames,
    categories: ['svc'],
    statusSubresource: true,
    tracksGeneration: true,
    returnDeletedObject: true,
    createOnUpdate: false,
    strategicMergePatch: false,
    fieldSelectors: [],
    columns: () => printerColumns(undefined),
  };
}

export const SCHEMALESS_DEFAULTS: ResourceType[] = [
  schemalessCustomResource('svc.dev', 'v1alpha1', 'Ship', 'ships'),
  schemalessCustomResource('svc.dev', 'v1alpha1', 'Repo', 'repos'),
];
