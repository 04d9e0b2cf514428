// A small garbage collector, as kube-controller-manager's: after any change it sweeps (coalesced, on the
// next turn of the event loop, so deletion of dependents is observably asynchronous as in a cluster):
// - a dependent none of whose owners exists any more is deleted (background propagation; its own
//   finalizers still hold it);
// - owner references to owners that are gone are removed when other owners remain;
// - the dependents of an owner being deleted in the foreground are deleted, and the owner's
//   foregroundDeletion finalizer is removed once none is left;
// - Orphan propagation (called by the delete itself) strips the owner's references from its dependents.
// Owners are matched by uid, as the real collector does; namespaced dependents only see owners in their own
// namespace or cluster-scoped ones.
import { KubeError } from './errors.js';
import type { Lifecycle } from './lifecycle.js';
import type { ResourceRegistry } from './registry.js';
import type { KubeObject } from './resources.js';
import type { ObjectStore } from './store.js';

export class GarbageCollector {
  private scheduled = false;
  private stopped = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: ObjectStore,
    private readonly lifecycle: Lifecycle,
    private readonly registry: ResourceRegistry,
  ) {
    lifecycle.orphanDependents = (uid) => this.orphan(uid);
    this.unsubscribe = store.subscribe({ deliver: () => this.schedule() });
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.stopped) this.sweep();
    });
  }

  private owner(dependent: KubeObject, uid: string): KubeObject | undefined {
    const found = this.store.findByUid(uid);
    if (!found) return undefined;
    const ownerNamespace = found.object.metadata.namespace;
    return ownerNamespace === undefined || ownerNamespace === dependent.metadata.namespace ? found.object : undefined;
  }

  /** One pass over every object; each write it makes schedules the next pass. */
  sweep(): void {
    const dependentsOf = new Map<string, number>();
    for (const key of this.store.keys()) {
      const resource = this.registry.byKey(key);
      if (!resource) continue;
      for (const object of this.store.list(key)) {
        const references = object.metadata.ownerReferences ?? [];
        if (references.length === 0) continue;
        for (const reference of references) dependentsOf.set(reference.uid, (dependentsOf.get(reference.uid) ?? 0) + 1);
        const owners = references.map((reference) => this.owner(object, reference.uid));
        const living = owners.filter((owner): owner is KubeObject => owner !== undefined);
        const foregroundOwner = living.some(
          (owner) => owner.metadata.deletionTimestamp && owner.metadata.finalizers?.includes('foregroundDeletion'),
        );
        this.attempt(() => {
          if (living.length === 0 || foregroundOwner) {
            if (!object.metadata.deletionTimestamp)
              this.lifecycle.delete(resource, resource.versions[0]!, object.metadata.namespace, object.metadata.name, {
                propagationPolicy: 'Background',
              });
          } else if (living.length < references.length) {
            const kept = references.filter((_, index) => owners[index] !== undefined);
            this.lifecycle.patch(
              resource,
              resource.versions[0]!,
              object.metadata.namespace,
              object.metadata.name,
              'application/merge-patch+json',
              { metadata: { ownerReferences: kept } },
              undefined,
            );
          }
        });
      }
    }
    for (const key of this.store.keys()) {
      const resource = this.registry.byKey(key);
      if (!resource) continue;
      for (const object of this.store.list(key)) {
        const finalizers = object.metadata.finalizers ?? [];
        if (
          !object.metadata.deletionTimestamp ||
          !finalizers.includes('foregroundDeletion') ||
          dependentsOf.has(object.metadata.uid)
        )
          continue;
        this.attempt(() =>
          this.lifecycle.patch(
            resource,
            resource.versions[0]!,
            object.metadata.namespace,
            object.metadata.name,
            'application/merge-patch+json',
            {
              metadata: {
                finalizers: finalizers.filter((finalizer) => finalizer !== 'foregroundDeletion'),
                resourceVersion: object.metadata.resourceVersion,
              },
            },
            undefined,
          ),
        );
      }
    }
  }

  /** Removes references to `uid` from every dependent (Orphan propagation). */
  private orphan(uid: string): void {
    for (const key of this.store.keys()) {
      const resource = this.registry.byKey(key);
      if (!resource) continue;
      for (const object of this.store.list(key)) {
        const references = object.metadata.ownerReferences ?? [];
        if (!references.some((reference) => reference.uid === uid)) continue;
        this.attempt(() =>
          this.lifecycle.patch(
            resource,
            resource.versions[0]!,
            object.metadata.namespace,
            object.metadata.name,
            'application/merge-patch+json',
            { metadata: { ownerReferences: references.filter((reference) => reference.uid !== uid) } },
            undefined,
          ),
        );
      }
    }
  }

  /** A dependent changed or went meanwhile (404/409): the next pass sees the new state. */
  private attempt(write: () => unknown): void {
    try {
      write();
    } catch (error) {
      if (!(error instanceof KubeError) || (error.code !== 404 && error.code !== 409)) throw error;
    }
  }
}
