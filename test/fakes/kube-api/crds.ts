// CustomResourceDefinitions: validation of a CRD object, the ResourceType it defines, and the controller
// that makes it live the way apiextensions-apiserver does — once a CRD is written its resource is served
// (discovery, CRUD, watch, Table with its printer columns, its schema for validation and pruning) and its
// status says NamesAccepted and Established; when it is deleted its instances are deleted first (the
// customresourcecleanup finalizer), then the resource stops being served (or falls back to the schemaless
// default for Ship and Repo). Also: reading crds/*.yaml so a fake can start with the committed CRDs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeError, type StatusCause } from './errors.js';
import type { Lifecycle } from './lifecycle.js';
import { timestamp } from './lifecycle.js';
import type { ResourceRegistry } from './registry.js';
import { NAME_COLUMN, printerColumns, resourceKey, type KubeObject, type ResourceType } from './resources.js';
import type { StructuralSchema } from './schema.js';
import type { ObjectStore } from './store.js';

type Json = Record<string, unknown>;
interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: StructuralSchema };
  subresources?: { status?: unknown };
  additionalPrinterColumns?: Json[];
}
interface CrdSpec {
  group: string;
  scope: string;
  names: {
    plural: string;
    singular?: string;
    kind: string;
    listKind?: string;
    shortNames?: string[];
    categories?: string[];
  };
  versions: CrdVersion[];
}

const CLEANUP = 'customresourcecleanup.apiextensions.k8s.io';

/** The apiextensions.k8s.io/v1 resource itself: cluster-scoped, status subresource, validated as a CRD. */
export const CRD_RESOURCE: ResourceType = {
  validate: (object) => validateCrd(object),
  group: 'apiextensions.k8s.io',
  versions: ['v1'],
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  statusSubresource: true,
  tracksGeneration: true,
  returnDeletedObject: true,
  createOnUpdate: false,
  strategicMergePatch: false,
  fieldSelectors: [],
  finalizersOnDelete: [CLEANUP],
  columns: () => [
    NAME_COLUMN,
    {
      name: 'Created At',
      type: 'date',
      description: 'The time the CRD was created.',
      priority: 0,
      cell: (object) => object.metadata.creationTimestamp,
    },
  ],
};

function specOf(crd: KubeObject): CrdSpec {
  return crd.spec as CrdSpec;
}

export function validateCrd(crd: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = (crd.spec ?? {}) as Partial<CrdSpec>;
  const required = (field: string) => causes.push({ reason: 'FieldValueRequired', field, message: 'Required value' });
  if (!spec.group) required('spec.group');
  if (!spec.names?.plural) required('spec.names.plural');
  if (!spec.names?.kind) required('spec.names.kind');
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.scope',
      message: `Unsupported value: ${JSON.stringify(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"`,
    });
  if (spec.group && spec.names?.plural && crd.metadata.name !== `${spec.names.plural}.${spec.group}`) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'metadata.name',
      message: `Invalid value: ${JSON.stringify(crd.metadata.name)}: must be spec.names.plural+"."+spec.group`,
    });
  }
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) required('spec.versions');
  if (versions.length > 0 && versions.filter((version) => version.storage).length !== 1) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.versions',
      message: 'Invalid value: must have exactly one version marked as storage version',
    });
  }
  versions.forEach((version, index) => {
    if (!version.name) required(`spec.versions[${index}].name`);
    const schema = version.schema?.openAPIV3Schema;
    if (!schema) required(`spec.versions[${index}].schema.openAPIV3Schema`);
    else if (schema.type !== 'object')
      causes.push({
        reason: 'FieldValueInvalid',
        field: `spec.versions[${index}].schema.openAPIV3Schema.type`,
        message: 'Invalid value: must be object at the root',
      });
  });
  return causes;
}

export function resourceFromCrd(crd: KubeObject): ResourceType {
  const spec = specOf(crd);
  const served = spec.versions.filter((version) => version.served !== false);
  const storage = spec.versions.find((version) => version.storage) ?? spec.versions[0]!;
  // Preferred version first: the storage version when served, as kubectl picks it.
  const ordered = [...served].sort((a, b) => Number(b === storage) - Number(a === storage));
  const byName = new Map(spec.versions.map((version) => [version.name, version]));
  return {
    group: spec.group,
    versions: ordered.map((version) => version.name),
    plural: spec.names.plural,
    singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
    kind: spec.names.kind,
    listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    namespaced: spec.scope === 'Namespaced',
    shortNames: spec.names.shortNames ?? [],
    categories: spec.names.categories ?? [],
    statusSubresource: storage.subresources?.status !== undefined,
    tracksGeneration: true,
    returnDeletedObject: true,
    createOnUpdate: false,
    strategicMergePatch: false,
    fieldSelectors: [],
    crdName: crd.metadata.name,
    columns: (version) => printerColumns(byName.get(version)?.additionalPrinterColumns),
    schema: (version) => byName.get(version)?.schema?.openAPIV3Schema,
  };
}

/** Keeps the registry in step with the CRD objects in the store (reconcile on every change to a CRD). */
export class CrdController {
  private readonly unsubscribe: () => void;
  private scheduled = false;
  private stopped = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly lifecycle: Lifecycle,
    private readonly registry: ResourceRegistry,
    private readonly now: () => number,
  ) {
    this.unsubscribe = store.subscribe({
      deliver: (event) => {
        if (event.key === resourceKey(CRD_RESOURCE) || this.deletingCrdOwns(event.key)) this.schedule();
      },
    });
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  private deletingCrdOwns(key: string): boolean {
    const crd = this.registry.byKey(key)?.crdName;
    return (
      crd !== undefined &&
      this.store.get(resourceKey(CRD_RESOURCE), undefined, crd)?.metadata.deletionTimestamp !== undefined
    );
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.stopped) this.reconcileAll();
    });
  }

  reconcileAll(): void {
    const crdKey = resourceKey(CRD_RESOURCE);
    const present = new Set<string>();
    for (const crd of this.store.list(crdKey)) {
      const resource = resourceFromCrd(crd);
      const key = resourceKey(resource);
      present.add(key);
      if (crd.metadata.deletionTimestamp) {
        this.cleanUp(crd, resource);
        continue;
      }
      this.registry.install(resource);
      this.markEstablished(crd, resource);
    }
    for (const resource of this.registry.all()) {
      if (resource.crdName && !present.has(resourceKey(resource))) this.registry.uninstall(resourceKey(resource));
    }
  }

  private markEstablished(crd: KubeObject, resource: ResourceType): void {
    const spec = specOf(crd);
    const status = (crd.status ?? {}) as Json;
    const conditions = (status.conditions as Json[] | undefined) ?? [];
    const established = conditions.some((condition) => condition.type === 'Established' && condition.status === 'True');
    if (established && JSON.stringify(status.acceptedNames) === JSON.stringify(spec.names)) return;
    const now = timestamp(this.now());
    const condition = (type: string, reason: string, message: string) => ({
      type,
      status: 'True',
      lastTransitionTime: now,
      reason,
      message,
    });
    const storage = spec.versions.find((version) => version.storage)?.name ?? resource.versions[0]!;
    const storedVersions = [...new Set([...((status.storedVersions as string[] | undefined) ?? []), storage])];
    this.write(() =>
      this.lifecycle.update(
        CRD_RESOURCE,
        'v1',
        undefined,
        crd.metadata.name,
        {
          ...crd,
          status: {
            conditions: [
              condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
              condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
            ],
            acceptedNames: spec.names,
            storedVersions,
          },
        },
        'status',
      ),
    );
  }

  /** Deletes the CRD's instances; once none is left, drops the cleanup finalizer so the CRD goes. */
  private cleanUp(crd: KubeObject, resource: ResourceType): void {
    const key = resourceKey(resource);
    const instances = this.store.list(key);
    for (const instance of instances) {
      if (instance.metadata.deletionTimestamp) continue;
      this.write(() =>
        this.lifecycle.delete(resource, resource.versions[0]!, instance.metadata.namespace, instance.metadata.name, {
          propagationPolicy: 'Background',
        }),
      );
    }
    if (instances.length > 0 || !crd.metadata.finalizers?.includes(CLEANUP)) return;
    this.write(() =>
      this.lifecycle.patch(
        CRD_RESOURCE,
        'v1',
        undefined,
        crd.metadata.name,
        'application/merge-patch+json',
        {
          metadata: {
            finalizers: crd.metadata.finalizers!.filter((finalizer) => finalizer !== CLEANUP),
            resourceVersion: crd.metadata.resourceVersion,
          },
        },
        undefined,
      ),
    );
  }

  private write(action: () => unknown): void {
    try {
      action();
    } catch (error) {
      if (!(error instanceof KubeError) || (error.code !== 404 && error.code !== 409)) throw error;
    }
  }
}

/** Every CustomResourceDefinition document in the .yaml/.yml files of `directory` (none when it is absent). */
export function readCrdFiles(directory: string): KubeObject[] {
  let entries: string[];
  try {
    if (!statSync(directory).isDirectory()) return [];
    entries = readdirSync(directory)
      .filter((name) => /\.ya?ml$/.test(name))
      .sort();
  } catch {
    return [];
  }
  const crds: KubeObject[] = [];
  for (const entry of entries) {
    for (const document of parseAllDocuments(readFileSync(join(directory, entry), 'utf8'))) {
      const value = document.toJS() as KubeObject | null;
      if (value?.kind === 'CustomResourceDefinition') crds.push(value);
    }
  }
  return crds;
}
