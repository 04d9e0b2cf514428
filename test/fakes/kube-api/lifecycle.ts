// The apiserver's write rules, applied to every create, update, status update, patch and delete before the
// store commits: apiVersion/kind/name/namespace checks, uid, creationTimestamp and resourceVersion stamping,
// optimistic concurrency (a stale resourceVersion is a 409), metadata.generation bumped on spec changes only,
// the status subresource split (the main resource cannot write status, /status can write nothing else),
// no-op updates that change nothing (no new resourceVersion, no event — controllers depend on it), CRD
// schemas (prune, default, validate) with fieldValidation Strict/Warn/Ignore, label and ownerReference
// validation, finalizers and deletionTimestamp (a delete with finalizers only marks; the object goes when
// the last finalizer is removed), propagation policies (Orphan strips owner references from dependents,
// Foreground holds the owner with the foregroundDeletion finalizer until the collector has removed them).
// The garbage collector (gc.ts) and the CRD controller (crds.ts) write through this too.
import { randomUUID } from 'node:crypto';
import { errors, KubeError, type StatusCause } from './errors.js';
import { jsonPatch, mergePatch, PATCH_TYPES, strategicMergePatch } from './patch.js';
import { apiVersionOf, resourceKey, type KubeObject, type ObjectMeta, type ResourceType } from './resources.js';
import { applyDefaults, prune, validate } from './schema.js';
import type { ObjectStore } from './store.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';
export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
}
export interface WriteResult {
  object: KubeObject;
  warnings: string[];
  created: boolean;
}
export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}
/** What DELETE answers: the object (still there with deletionTimestamp, or its last state) and whether it is gone. */
export interface DeleteResult {
  object: KubeObject;
  gone: boolean;
}

const KNOWN_METADATA = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);
const SERVER_METADATA = [
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'selfLink',
] as const;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const FOREGROUND = 'foregroundDeletion';

export function timestamp(milliseconds: number): string {
  return new Date(milliseconds).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const clone = <T>(value: T): T => structuredClone(value);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** What generation tracks: everything but metadata (and status, when status is a subresource). */
function specPart(resource: ResourceType, object: KubeObject): string {
  const copy: Record<string, unknown> = { ...object };
  delete copy.metadata;
  delete copy.apiVersion;
  delete copy.kind;
  if (resource.statusSubresource) delete copy.status;
  return JSON.stringify(copy);
}

function sameContent(a: KubeObject, b: KubeObject): boolean {
  const strip = (object: KubeObject) =>
    JSON.stringify({ ...object, apiVersion: undefined, metadata: { ...object.metadata, resourceVersion: undefined } });
  return strip(a) === strip(b);
}

export class Lifecycle {
  /** Set by the garbage collector: removes owner references to `uid` from every dependent. */
  orphanDependents: (uid: string) => void = () => {};

  constructor(
    private readonly store: ObjectStore,
    private readonly now: () => number,
  ) {}

  create(
    resource: ResourceType,
    version: string,
    namespace: string | undefined,
    body: unknown,
    options: WriteOptions = {},
  ): WriteResult {
    const object = this.admitShape(resource, version, namespace, body);
    const meta = object.metadata;
    if (meta.resourceVersion)
      throw new KubeError(500, 'InternalError', 'resourceVersion should not be set on objects to be created');
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomSuffix()}`;
    if (!meta.name)
      throw errors.invalid(resource.kind, resource.group, '', [
        {
          reason: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'Required value: name or generateName is required',
        },
      ]);
    for (const field of SERVER_METADATA) delete meta[field];
    if (resource.statusSubresource) {
      const initial = resource.initialStatus?.();
      if (initial) object.status = initial;
      else delete object.status;
    }
    const warnings = this.admitContent(resource, version, object, undefined, options);
    if (this.store.get(resourceKey(resource), namespace, meta.name)) throw errors.alreadyExists(resource, meta.name);
    meta.uid = randomUUID();
    meta.creationTimestamp = timestamp(this.now());
    if (resource.tracksGeneration) meta.generation = 1;
    if (options.dryRun) return { object: this.output(object, resource, version), warnings, created: true };
    meta.resourceVersion = String(this.store.nextRv());
    this.store.put(resourceKey(resource), object);
    return { object: this.output(object, resource, version), warnings, created: true };
  }

  /** PUT on the object (`subresource` undefined) or on its /status. */
  update(
    resource: ResourceType,
    version: string,
    namespace: string | undefined,
    name: string,
    body: unknown,
    subresource: 'status' | undefined,
    options: WriteOptions = {},
  ): WriteResult {
    const old = this.store.get(resourceKey(resource), namespace, name);
    if (!old) {
      if (resource.createOnUpdate && !subresource) return this.create(resource, version, namespace, body, options);
      throw errors.notFound(resource, name);
    }
    const incoming = this.admitShape(resource, version, namespace, body);
    if (incoming.metadata.name && incoming.metadata.name !== name)
      throw errors.badRequest(
        `the name of the object (${incoming.metadata.name}) does not match the name on the URL (${name})`,
      );
    if (incoming.metadata.resourceVersion && incoming.metadata.resourceVersion !== old.metadata.resourceVersion)
      throw errors.conflict(resource, name);
    if (incoming.metadata.uid && incoming.metadata.uid !== old.metadata.uid) {
      throw errors.conflict(
        resource,
        name,
        `Precondition failed: UID in precondition: ${incoming.metadata.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    let next: KubeObject;
    if (subresource === 'status') {
      // A status write changes status and nothing else (apiextensions statusStrategy.PrepareForUpdate).
      next = clone(old);
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else {
      next = incoming;
      next.metadata.name = name;
      for (const field of SERVER_METADATA) {
        if (old.metadata[field] === undefined) delete next.metadata[field];
        else (next.metadata as Record<string, unknown>)[field] = old.metadata[field];
      }
      if (resource.statusSubresource) {
        if (old.status === undefined) delete next.status;
        else next.status = clone(old.status);
      }
      if (old.metadata.deletionTimestamp) {
        const added = (next.metadata.finalizers ?? []).filter(
          (finalizer) => !(old.metadata.finalizers ?? []).includes(finalizer),
        );
        if (added.length > 0) {
          throw errors.invalid(resource.kind, resource.group, name, [
            {
              reason: 'FieldValueForbidden',
              field: 'metadata.finalizers',
              message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((finalizer) => JSON.stringify(finalizer)).join(', ')}}`,
            },
          ]);
        }
      }
    }
    next.metadata.namespace = old.metadata.namespace;
    if (!resource.namespaced) delete next.metadata.namespace;
    const warnings = this.admitContent(resource, version, next, old, options);
    if (resource.tracksGeneration && specPart(resource, next) !== specPart(resource, old))
      next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    return {
      object: this.output(this.commit(resource, old, next, options), resource, version),
      warnings,
      created: false,
    };
  }

  patch(
    resource: ResourceType,
    version: string,
    namespace: string | undefined,
    name: string,
    contentType: string,
    patch: unknown,
    subresource: 'status' | undefined,
    options: WriteOptions = {},
  ): WriteResult {
    const old = this.store.get(resourceKey(resource), namespace, name);
    if (!old) throw errors.notFound(resource, name);
    const current = this.output(old, resource, version);
    let patched: unknown;
    if (contentType === PATCH_TYPES.merge) patched = mergePatch(current, patch);
    else if (contentType === PATCH_TYPES.json) patched = jsonPatch(current, patch);
    else if (contentType === PATCH_TYPES.strategic && resource.strategicMergePatch)
      patched = strategicMergePatch(current, patch);
    else throw errors.unsupportedMediaType(acceptedPatchTypes(resource));
    if (!isObject(patched)) throw errors.badRequest('the patch did not produce an object');
    // The patched object carries the old resourceVersion unless the patch set one: a precondition only then.
    return this.update(resource, version, namespace, name, patched, subresource, options);
  }

  delete(
    resource: ResourceType,
    version: string,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): DeleteResult {
    const old = this.store.get(resourceKey(resource), namespace, name);
    if (!old) throw errors.notFound(resource, name);
    const { uid, resourceVersion } = options.preconditions ?? {};
    if (uid && uid !== old.metadata.uid)
      throw errors.conflict(
        resource,
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${old.metadata.uid}`,
      );
    if (resourceVersion && resourceVersion !== old.metadata.resourceVersion) {
      throw errors.conflict(
        resource,
        name,
        `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
      );
    }
    const policy = options.propagationPolicy ?? (options.orphanDependents === true ? 'Orphan' : 'Background');
    if (options.dryRun) return { object: this.output(old, resource, version), gone: !old.metadata.finalizers?.length };
    if (policy === 'Orphan') this.orphanDependents(old.metadata.uid);
    const next = clone(old);
    const finalizers = [...(next.metadata.finalizers ?? [])];
    for (const finalizer of [
      ...(policy === 'Foreground' ? [FOREGROUND] : []),
      ...(resource.finalizersOnDelete ?? []),
    ]) {
      if (!finalizers.includes(finalizer) && !old.metadata.deletionTimestamp) finalizers.push(finalizer);
    }
    if (finalizers.length === 0)
      return { object: this.output(this.commit(resource, old, next, {}, true), resource, version), gone: true };
    if (old.metadata.deletionTimestamp) return { object: this.output(old, resource, version), gone: false };
    next.metadata.finalizers = finalizers;
    next.metadata.deletionTimestamp = timestamp(this.now());
    next.metadata.deletionGracePeriodSeconds = 0;
    if (resource.tracksGeneration) next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    return { object: this.output(this.commit(resource, old, next, {}), resource, version), gone: false };
  }

  /** Writes `next` over `old`: deleted when marked and out of finalizers, untouched when nothing changed. */
  private commit(
    resource: ResourceType,
    old: KubeObject,
    next: KubeObject,
    options: WriteOptions,
    remove = false,
  ): KubeObject {
    const key = resourceKey(resource);
    if (remove || (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0)) {
      if (options.dryRun) return next;
      if (next.metadata.finalizers && next.metadata.finalizers.length === 0) delete next.metadata.finalizers;
      next.metadata.resourceVersion = String(this.store.nextRv());
      this.store.remove(key, next, old);
      return next;
    }
    if (sameContent(old, next)) return old;
    if (options.dryRun) return next;
    next.metadata.resourceVersion = String(this.store.nextRv());
    this.store.put(key, next, old);
    return next;
  }

  /** The body as an object of this resource: apiVersion/kind set, namespace checked, unknown metadata dropped. */
  private admitShape(
    resource: ResourceType,
    version: string,
    namespace: string | undefined,
    body: unknown,
  ): KubeObject {
    if (!isObject(body)) throw errors.badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    const object = clone(body) as KubeObject;
    const apiVersion = apiVersionOf(resource.group, version);
    if (object.apiVersion !== undefined && object.apiVersion !== apiVersion) {
      throw errors.badRequest(
        `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${apiVersion})`,
      );
    }
    if (object.kind !== undefined && object.kind !== resource.kind)
      throw errors.badRequest(
        `the kind in the data (${String(object.kind)}) does not match the expected kind (${resource.kind})`,
      );
    object.apiVersion = apiVersion;
    object.kind = resource.kind;
    if (!isObject(object.metadata)) object.metadata = {} as ObjectMeta;
    const meta = object.metadata;
    for (const key of Object.keys(meta)) if (!KNOWN_METADATA.has(key)) delete meta[key];
    delete meta.managedFields;
    delete meta.selfLink;
    if (resource.namespaced) {
      if (meta.namespace && meta.namespace !== namespace)
        throw errors.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
    return object;
  }

  /** Kind rules, schema (prune, default, validate) and metadata validation; returns warnings. */
  private admitContent(
    resource: ResourceType,
    version: string,
    object: KubeObject,
    old: KubeObject | undefined,
    options: WriteOptions,
  ): string[] {
    const warnings: string[] = [];
    resource.normalize?.(object);
    const causes: StatusCause[] = [];
    const schema = resource.schema?.(version);
    if (schema) {
      const unknown = prune(schema, object);
      if (unknown.length > 0) {
        if (options.fieldValidation === 'Strict') {
          throw errors.badRequest(
            `${resource.kind} in version "${version}" cannot be handled as a ${resource.kind}: strict decoding error: ${unknown.map((field) => `unknown field "${field}"`).join(', ')}`,
          );
        }
        if (options.fieldValidation !== 'Ignore') warnings.push(...unknown.map((field) => `unknown field "${field}"`));
      }
      applyDefaults(schema, object);
      const context = { old: old ? { value: old } : undefined, ignoredRules: [] as string[] };
      causes.push(...validate(schema, object, '', context));
      warnings.push(...context.ignoredRules.map((rule) => `fake kube-api did not evaluate CEL rule ${rule}`));
    }
    causes.push(...validateMetadata(object.metadata, !old));
    causes.push(...(resource.validate?.(object, old) ?? []));
    if (causes.length > 0) throw errors.invalid(resource.kind, resource.group, object.metadata.name ?? '', causes);
    return warnings;
  }

  /** A copy of the stored object as served in `version` (one schema for every version: no conversion). */
  output(object: KubeObject, resource: ResourceType, version: string): KubeObject {
    const copy = clone(object);
    copy.apiVersion = apiVersionOf(resource.group, version);
    copy.kind = resource.kind;
    return copy;
  }
}

export function acceptedPatchTypes(resource: ResourceType): string[] {
  return [PATCH_TYPES.json, PATCH_TYPES.merge, ...(resource.strategicMergePatch ? [PATCH_TYPES.strategic] : [])];
}

function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return Array.from({ length: 5 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
}

function validateMetadata(meta: ObjectMeta, creating: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  if (creating && (meta.name.length > 253 || !SUBDOMAIN.test(meta.name))) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'metadata.name',
      message: `Invalid value: ${JSON.stringify(meta.name)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    });
  }
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    const [prefix, name] = key.includes('/')
      ? [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)]
      : ['', key];
    if ((prefix && (prefix.length > 253 || !SUBDOMAIN.test(prefix))) || name.length > 63 || !LABEL_NAME.test(name)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.labels',
        message: `Invalid value: ${JSON.stringify(key)}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      });
    }
    if (typeof value !== 'string' || value.length > 63 || !LABEL_VALUE.test(value)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.labels',
        message: `Invalid value: ${JSON.stringify(value)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      });
    }
  }
  const references = meta.ownerReferences ?? [];
  references.forEach((reference, index) => {
    for (const field of ['apiVersion', 'kind', 'name', 'uid'] as const) {
      if (!reference[field])
        causes.push({
          reason: 'FieldValueRequired',
          field: `metadata.ownerReferences[${index}].${field}`,
          message: 'Required value',
        });
    }
  });
  if (references.filter((reference) => reference.controller).length > 1) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'metadata.ownerReferences',
      message: 'Invalid value: only one reference can have Controller set to true',
    });
  }
  return causes;
}
