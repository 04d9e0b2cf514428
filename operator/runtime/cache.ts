// The reconcilers' view of everything the runtime watches: one ListWatch per distinct (resource, selectors),
// shared by every reconciler that asks for it, read through CacheReader. A resource nobody watches is an
// error to read (it would silently be empty), not an API call.
import type { KubernetesObject } from '@kubernetes/client-node';
import { keyString, type CacheReader, type ObjectKey, type ResourceRef } from './controller.js';
import type { ListWatch } from './watch.js';

export interface WatchSpec {
  resource: ResourceRef;
  labelSelector?: string;
  fieldSelector?: string;
}

export function resourceId(resource: ResourceRef): string {
  return `${resource.plural}.${resource.group}/${resource.version}`;
}

export function watchId(spec: WatchSpec): string {
  return `${resourceId(spec.resource)}?l=${spec.labelSelector ?? ''}&f=${spec.fieldSelector ?? ''}`;
}

export class CacheSet implements CacheReader {
  private readonly byResource = new Map<string, ListWatch[]>();

  add(resource: ResourceRef, watch: ListWatch): void {
    const id = resourceId(resource);
    this.byResource.set(id, [...(this.byResource.get(id) ?? []), watch]);
  }

  private watchesOf(resource: ResourceRef): ListWatch[] {
    const watches = this.byResource.get(resourceId(resource));
    if (!watches)
      throw new Error(
        `the operator does not watch ${resourceId(resource)}: declare it as a reconciler's resource or watch`,
      );
    return watches;
  }

  get<T extends KubernetesObject = KubernetesObject>(resource: ResourceRef, key: ObjectKey): T | undefined {
    const id = keyString(key);
    for (const watch of this.watchesOf(resource)) {
      const object = watch.cache.get(id);
      if (object) return object as T;
    }
    return undefined;
  }

  list<T extends KubernetesObject = KubernetesObject>(resource: ResourceRef, namespace?: string): T[] {
    const seen = new Map<string, KubernetesObject>();
    for (const watch of this.watchesOf(resource)) {
      for (const [id, object] of watch.cache) {
        if (namespace !== undefined && (object.metadata?.namespace ?? '') !== namespace) continue;
        if (!seen.has(id)) seen.set(id, object);
      }
    }
    return [...seen.values()] as T[];
  }

  get all(): ListWatch[] {
    return [...new Set([...this.byResource.values()].flat())];
  }
}
