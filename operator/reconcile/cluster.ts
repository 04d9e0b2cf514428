// The reconcilers' writes to the API server, and the few reads the cache cannot answer yet: one thin
// adapter over client-node 1.4's typed clients. Every patch is a JSON merge patch sent with its content type
// set explicitly (MERGE_PATCH: 1.4's defaults are refused, deps-node20.md); a finalizer patch carries the
// resourceVersion the decision was made on, so a concurrent change is a 409 (retried by the runtime) instead
// of a lost finalizer. Status goes to the /status subresource only, and only when it changed. Events are
// best effort: a failure to record one is logged, never fails a reconcile.
import {
  ApiException,
  type CoreV1Event,
  type KubernetesObject,
  type V1Pod,
  type V1Secret,
  type V1TokenReviewStatus,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { MERGE_PATCH, type KubeClients } from '../kube/clients.js';
import type { Clock } from '../../protocol/clock.js';
import type { ResourceRef } from '../runtime/controller.js';
import type { EventSpec } from './outcomes.js';
import { messageOf } from '../../protocol/index.js';

export function isApiStatus(error: unknown, code: number): boolean {
  return error instanceof ApiException && error.code === code;
}

/** A read's result, or undefined when the API server answers 404 (the object is absent). */
async function absentAsUndefined<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (isApiStatus(error, 404)) return undefined;
    throw error;
  }
}

/** A merge patch turning `previous` into `next` (keys only in `previous` become null), or undefined when equal. */
export function mergePatchOf(
  previous: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(previous ?? {})) if (!(key in next)) patch[key] = null;
  for (const [key, value] of Object.entries(next)) if (!deepEqual(previous?.[key], value)) patch[key] = value;
  return Object.keys(patch).length ? patch : undefined;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((value, index) => deepEqual(value, other[index]));
  }
  const keysA = Object.keys(a as object).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const keysB = Object.keys(b as object).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  return (
    keysA.length === keysB.length &&
    keysA.every((key) => deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
  );
}

interface ObjectIdentity {
  namespace: string;
  name: string;
}

function identity(object: KubernetesObject): ObjectIdentity {
  return { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
}

export class Cluster {
  constructor(
    private readonly kube: KubeClients,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly component = 'svc-operator',
  ) {}

  private custom(resource: ResourceRef, object: ObjectIdentity) {
    return {
      group: resource.group,
      version: resource.version,
      plural: resource.plural,
      namespace: object.namespace,
      name: object.name,
    };
  }

  /** Adds `finalizer` (optimistic: fails with 409 when the object changed since it was read). */
  async addFinalizer<T extends KubernetesObject>(resource: ResourceRef, object: T, finalizer: string): Promise<T> {
    const finalizers = [...(object.metadata?.finalizers ?? []), finalizer];
    return this.patchMetadata(resource, object, { finalizers, resourceVersion: object.metadata?.resourceVersion });
  }

  async removeFinalizer<T extends KubernetesObject>(
    resource: ResourceRef,
    object: T,
    finalizer: string,
  ): Promise<void> {
    const finalizers = (object.metadata?.finalizers ?? []).filter((entry) => entry !== finalizer);
    try {
      await this.patchMetadata(resource, object, {
        finalizers: finalizers.length ? finalizers : null,
        resourceVersion: object.metadata?.resourceVersion,
      });
    } catch (error) {
      if (isApiStatus(error, 404)) return; // already gone
      throw error;
    }
  }

  /** A merge patch of metadata (labels, annotations, finalizers) on a custom resource. */
  async patchMetadata<T extends KubernetesObject>(
    resource: ResourceRef,
    object: T,
    metadata: Record<string, unknown>,
  ): Promise<T> {
    return (await this.kube.custom.patchNamespacedCustomObject(
      { ...this.custom(resource, identity(object)), body: { metadata } },
      MERGE_PATCH,
    )) as T;
  }

  /** A merge patch of a custom resource's spec/metadata (e.g. a managed Ship's url). */
  async patchObject<T extends KubernetesObject>(
    resource: ResourceRef,
    object: ObjectIdentity,
    body: Record<string, unknown>,
  ): Promise<T> {
    return (await this.kube.custom.patchNamespacedCustomObject(
      { ...this.custom(resource, object), body },
      MERGE_PATCH,
    )) as T;
  }

  /** Writes `next` to the /status subresource when it differs from `previous`; true when it wrote. */
  async writeStatus(
    resource: ResourceRef,
    object: KubernetesObject,
    previous: Record<string, unknown> | undefined,
    next: Record<string, unknown>,
  ): Promise<boolean> {
    const patch = mergePatchOf(previous, next);
    if (!patch) return false;
    try {
      await this.kube.custom.patchNamespacedCustomObjectStatus(
        { ...this.custom(resource, identity(object)), body: { status: patch } },
        MERGE_PATCH,
      );
    } catch (error) {
      if (isApiStatus(error, 404)) return false; // deleted meanwhile: nothing to report on
      throw error;
    }
    return true;
  }

  async createObject<T extends KubernetesObject>(resource: ResourceRef, namespace: string, body: T): Promise<T> {
    return (await this.kube.custom.createNamespacedCustomObject({
      group: resource.group,
      version: resource.version,
      plural: resource.plural,
      namespace,
      body,
    })) as T;
  }

  /** Deletes a custom resource (foreground is not needed: its own finalizer deregisters it). */
  async deleteObject(resource: ResourceRef, object: ObjectIdentity, preconditionUid?: string): Promise<void> {
    try {
      await this.kube.custom.deleteNamespacedCustomObject({
        ...this.custom(resource, object),
        ...(preconditionUid ? { body: { preconditions: { uid: preconditionUid } } } : {}),
      });
    } catch (error) {
      if (isApiStatus(error, 404)) return;
      throw error;
    }
  }

  /** A custom resource read straight from the API server (the token exchange: any replica answers); undefined when absent. */
  async readObject<T extends KubernetesObject>(resource: ResourceRef, object: ObjectIdentity): Promise<T | undefined> {
    return (await absentAsUndefined(this.kube.custom.getNamespacedCustomObject(this.custom(resource, object)))) as
      | T
      | undefined;
  }

  /** A pod read straight from the API server; undefined when absent. */
  readPod(namespace: string, name: string): Promise<V1Pod | undefined> {
    return absentAsUndefined(this.kube.core.readNamespacedPod({ namespace, name }));
  }

  /** What the API server says about a bearer token for `audiences` (TokenReview; a cluster-scoped create). */
  async reviewToken(token: string, audiences: string[]): Promise<V1TokenReviewStatus | undefined> {
    const review = await this.kube.authentication.createTokenReview({
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences } },
    });
    return review.status;
  }

  /** A Secret read straight from the API server (when the cache has not seen it yet); undefined when absent. */
  readSecret(namespace: string, name: string): Promise<V1Secret | undefined> {
    return absentAsUndefined(this.kube.core.readNamespacedSecret({ namespace, name }));
  }

  /** Creates a Secret unless one of that name exists: never overwrites. */
  async createSecret(secret: V1Secret): Promise<'created' | 'exists'> {
    try {
      await this.kube.core.createNamespacedSecret({ namespace: secret.metadata?.namespace ?? '', body: secret });
      return 'created';
    } catch (error) {
      if (isApiStatus(error, 409)) return 'exists';
      throw error;
    }
  }

  /** Replaces a Secret the operator owns (a rotated pair); `metadata.resourceVersion` makes it conditional. */
  async replaceSecret(secret: V1Secret): Promise<void> {
    await this.kube.core.replaceNamespacedSecret({
      namespace: secret.metadata?.namespace ?? '',
      name: secret.metadata?.name ?? '',
      body: secret,
    });
  }

  /** Records a core/v1 Event about `object` (best effort; never carries a token: messages are ours). */
  async recordEvent(object: KubernetesObject, event: EventSpec): Promise<void> {
    const { namespace, name } = identity(object);
    const now = new Date(this.clock());
    const body: CoreV1Event = {
      metadata: { generateName: `${name}.`, namespace },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        name,
        namespace,
        uid: object.metadata?.uid,
        resourceVersion: object.metadata?.resourceVersion,
      },
      type: event.type,
      reason: event.reason,
      message: event.message,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      source: { component: this.component },
      reportingComponent: `svc.dev/${this.component}`,
      reportingInstance: process.env.HOSTNAME ?? this.component,
    };
    try {
      await this.kube.core.createNamespacedEvent({ namespace, body });
    } catch (error) {
      this.log.warn(
        { object: `${object.kind} ${namespace}/${name}`, reason: event.reason, error: messageOf(error) },
        'could not record an event',
      );
    }
  }
}
