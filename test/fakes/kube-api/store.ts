// The fake's etcd: every object by resource and namespace/name, one global resourceVersion counter (as
// etcd's revision), the event history that watches resume from, and the subscribers that get each event as
// it is committed. History is bounded (oldest events fall off, as etcd compaction does) and can be compacted
// or rewritten on demand, which is how tests get 410 Gone and "the API server came back with a new
// resourceVersion history". The store has no rules about objects: lifecycle.ts decides what is written.
import type { KubeObject } from './resources.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  rv: number;
  type: EventType;
  /** resourceKey of the object's resource (`secrets`, `ships.svc.dev`). */
  key: string;
  namespace: string | undefined;
  object: KubeObject;
  /** The object before this event (MODIFIED, DELETED), so filtered watches can turn it into ADDED/DELETED. */
  previous?: KubeObject;
}

export interface Subscriber {
  deliver(event: StoredEvent): void;
}

function pathOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export class ObjectStore {
  private counter = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly uids = new Map<string, { key: string; path: string }>();
  private history: StoredEvent[] = [];
  private readonly subscribers = new Set<Subscriber>();
  /** Events with rv ≤ this are gone: a watch resuming from an older rv is told 410. */
  compactedRv = 0;

  constructor(private readonly maxHistory = 10_000) {}

  currentRv(): number {
    return this.counter;
  }

  nextRv(): number {
    this.counter += 1;
    return this.counter;
  }

  get(key: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(key)?.get(pathOf(namespace, name));
  }

  /** Objects of a resource (all namespaces when `namespace` is undefined), ordered by namespace then name. */
  list(key: string, namespace?: string): KubeObject[] {
    const all = [...(this.objects.get(key)?.values() ?? [])].filter(
      (object) => namespace === undefined || object.metadata.namespace === namespace,
    );
    // Code-unit order, the order continue tokens compare in (handlers.ts).
    const order = (object: KubeObject) => pathOf(object.metadata.namespace, object.metadata.name);
    return all.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  }

  keys(): string[] {
    return [...this.objects.keys()];
  }

  findByUid(uid: string): { key: string; object: KubeObject } | undefined {
    const where = this.uids.get(uid);
    const object = where && this.objects.get(where.key)?.get(where.path);
    return where && object ? { key: where.key, object } : undefined;
  }

  /** Stores `object` (its resourceVersion already taken from nextRv) and records the event. */
  put(key: string, object: KubeObject, previous?: KubeObject): void {
    const path = pathOf(object.metadata.namespace, object.metadata.name);
    let resource = this.objects.get(key);
    if (!resource) {
      resource = new Map();
      this.objects.set(key, resource);
    }
    resource.set(path, object);
    this.uids.set(object.metadata.uid, { key, path });
    this.record({
      rv: Number(object.metadata.resourceVersion),
      type: previous ? 'MODIFIED' : 'ADDED',
      key,
      namespace: object.metadata.namespace,
      object,
      previous,
    });
  }

  /** Removes the object; `final` is its last state, stamped with the deletion's resourceVersion. */
  remove(key: string, final: KubeObject, previous: KubeObject): void {
    this.objects.get(key)?.delete(pathOf(final.metadata.namespace, final.metadata.name));
    this.uids.delete(final.metadata.uid);
    this.record({
      rv: Number(final.metadata.resourceVersion),
      type: 'DELETED',
      key,
      namespace: final.metadata.namespace,
      object: final,
      previous,
    });
  }

  private record(event: StoredEvent): void {
    this.history.push(event);
    if (this.history.length > this.maxHistory) {
      const dropped = this.history.splice(0, this.history.length - this.maxHistory);
      this.compactedRv = Math.max(this.compactedRv, dropped[dropped.length - 1]!.rv);
    }
    for (const subscriber of [...this.subscribers]) subscriber.deliver(event);
  }

  /** Events of `key` after `rv`, or 'gone' when history no longer reaches back that far. */
  eventsSince(rv: number, key: string): StoredEvent[] | 'gone' {
    if (rv < this.compactedRv) return 'gone';
    return this.history.filter((event) => event.rv > rv && event.key === key);
  }

  subscribe(subscriber: Subscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /** Forgets all history: every resume from an rv before now gets 410. */
  compact(): void {
    this.history = [];
    this.compactedRv = this.counter;
  }

  /**
   * A new resourceVersion history, as after an etcd restore: every object gets a fresh resourceVersion and
   * history is empty. Forward (default), old versions are too old (410); `rewind` restarts the counter at
   * zero, so old versions are in the future ("too large resource version", 504).
   */
  newHistory(rewind = false): void {
    this.counter = rewind ? 0 : this.counter + 1_000_000;
    for (const resource of this.objects.values()) {
      for (const object of resource.values()) object.metadata.resourceVersion = String(this.nextRv());
    }
    this.history = [];
    this.compactedRv = this.counter;
  }
}
