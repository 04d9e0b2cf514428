// One watch connection: `?watch=1` on a collection, answered as the apiserver does — HTTP 200 with one
// JSON event per line ({"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":…}) on a chunked response.
// Start: no resourceVersion (or "0") sends the current objects as ADDED first; a resourceVersion replays
// history after it, or answers 410 when history no longer reaches back (as an HTTP 410 Status or as an
// in-stream ERROR event, per the server's `tooOldResourceVersion` mode), or 504 "Too large resource
// version" when it is in the future; `sendInitialEvents=true` sends ADDED then a bookmark annotated
// k8s.io/initial-events-end. Filtered watches see an object leaving the selector as DELETED and entering it
// as ADDED. Bookmarks (`allowWatchBookmarks`) go out on an interval and on demand. `timeoutSeconds` ends
// the stream cleanly. Knobs for tests: drop the connection (optionally in the middle of an event line),
// expire it with an in-stream 410, close it cleanly. A consumer that falls 8 MiB behind is cut off.
import type { ServerResponse } from 'node:http';
import { errors, type KubeError } from './errors.js';
import type { Lifecycle } from './lifecycle.js';
import { apiVersionOf, resourceKey, type KubeObject, type ResourceType } from './resources.js';
import type { Selector } from './selectors.js';
import type { ObjectStore, StoredEvent } from './store.js';
import { toTable, type Rendering } from './table.js';

export interface WatchRequest {
  resource: ResourceType;
  version: string;
  namespace: string | undefined;
  labels: Selector;
  fields: Selector;
  resourceVersion: string | undefined;
  allowBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  timeoutSeconds: number | undefined;
  rendering: Rendering;
}

export interface WatchSettings {
  bookmarkIntervalMs: number;
  tooOldResourceVersion: 'http' | 'event';
  now: () => number;
}

const MAX_PENDING_BYTES = 8 * 1024 * 1024;

export class WatchStream {
  private unsubscribe: () => void = () => {};
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;
  private finished = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly lifecycle: Lifecycle,
    private readonly request: WatchRequest,
    private readonly response: ServerResponse,
    private readonly settings: WatchSettings,
    private readonly onClose: (stream: WatchStream) => void,
  ) {}

  /** Validates the start point (throwing KubeError before any byte is sent), then streams. */
  start(): void {
    const { resource, resourceVersion, sendInitialEvents } = this.request;
    const key = resourceKey(resource);
    let backlog: Array<{ type: string; object: KubeObject }>;
    let expiredFrom: number | undefined;
    if (sendInitialEvents || resourceVersion === undefined || resourceVersion === '' || resourceVersion === '0') {
      backlog = this.store
        .list(key, this.request.namespace)
        .filter((object) => this.matches(object))
        .map((object) => ({ type: 'ADDED', object }));
    } else {
      const from = Number(resourceVersion);
      if (!Number.isInteger(from) || from < 0) throw errors.badRequest(`invalid resource version: ${resourceVersion}`);
      if (from > this.store.currentRv()) throw errors.resourceVersionTooLarge();
      const events = this.store.eventsSince(from, key);
      if (events === 'gone') {
        if (this.settings.tooOldResourceVersion === 'http') throw this.tooOld(from);
        backlog = [];
        expiredFrom = from;
      } else {
        backlog = events.flatMap((event) => this.translate(event));
      }
    }
    this.response.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    this.response.flushHeaders();
    this.response.on('close', () => this.finish());
    if (expiredFrom !== undefined) {
      this.expire(this.tooOld(expiredFrom));
      return;
    }
    this.unsubscribe = this.store.subscribe({ deliver: (event) => this.deliver(event) });
    for (const event of backlog) this.send(event.type, event.object);
    if (sendInitialEvents && this.request.allowBookmarks) this.bookmark({ 'k8s.io/initial-events-end': 'true' });
    if (this.request.allowBookmarks && this.settings.bookmarkIntervalMs > 0)
      this.timers.push(setInterval(() => this.bookmark(), this.settings.bookmarkIntervalMs));
    if (this.request.timeoutSeconds !== undefined && this.request.timeoutSeconds > 0)
      this.timers.push(setTimeout(() => this.close(), this.request.timeoutSeconds * 1000));
  }

  private tooOld(from: number): KubeError {
    return errors.gone(`too old resource version: ${from} (${this.store.compactedRv + 1})`);
  }

  private matches(object: KubeObject): boolean {
    return (
      (this.request.namespace === undefined || object.metadata.namespace === this.request.namespace) &&
      this.request.labels(object) &&
      this.request.fields(object)
    );
  }

  private translate(event: StoredEvent): Array<{ type: string; object: KubeObject }> {
    if (event.key !== resourceKey(this.request.resource)) return [];
    const now = this.matches(event.object);
    const before = event.previous !== undefined && this.matches(event.previous);
    if (event.type === 'ADDED') return now ? [{ type: 'ADDED', object: event.object }] : [];
    if (event.type === 'DELETED') return before || now ? [{ type: 'DELETED', object: event.object }] : [];
    if (now && before) return [{ type: 'MODIFIED', object: event.object }];
    if (now) return [{ type: 'ADDED', object: event.object }];
    if (before) return [{ type: 'DELETED', object: event.object }];
    return [];
  }

  private deliver(event: StoredEvent): void {
    for (const translated of this.translate(event)) this.send(translated.type, translated.object);
  }

  private render(object: KubeObject): Record<string, unknown> {
    const served = this.lifecycle.output(object, this.request.resource, this.request.version);
    if (this.request.rendering.as !== 'Table') return served;
    return toTable(
      this.request.resource,
      this.request.version,
      this.request.rendering.version,
      [served],
      'Object',
      this.settings.now(),
      { resourceVersion: served.metadata.resourceVersion },
    );
  }

  private write(line: string): void {
    if (this.closed) return;
    if (this.response.writableLength > MAX_PENDING_BYTES) {
      this.drop();
      return;
    }
    this.response.write(`${line}\n`);
  }

  private send(type: string, object: KubeObject): void {
    this.write(JSON.stringify({ type, object: this.render(object) }));
  }

  /** A BOOKMARK at the current resourceVersion: every event up to it has been sent (delivery is synchronous). */
  bookmark(annotations?: Record<string, string>): void {
    if (!this.request.allowBookmarks) return;
    const { resource, version } = this.request;
    const metadata: Record<string, unknown> = { resourceVersion: String(this.store.currentRv()) };
    if (annotations) metadata.annotations = annotations;
    this.write(
      JSON.stringify({
        type: 'BOOKMARK',
        object: { kind: resource.kind, apiVersion: apiVersionOf(resource.group, version), metadata },
      }),
    );
  }

  /** An in-stream ERROR event carrying a 410 Status, then the end of the stream (as after etcd compaction). */
  expire(error: KubeError = errors.gone(`too old resource version: ${this.store.currentRv()}`)): void {
    this.write(JSON.stringify({ type: 'ERROR', object: error.toStatus() }));
    this.close();
  }

  /** Cuts the TCP connection without ending the chunked body; `midEvent` first writes half an event line. */
  drop(midEvent = false): void {
    if (this.closed) return;
    this.closed = true;
    const socket = this.response.socket;
    if (midEvent) this.response.write('{"type":"MODIFIED","object":{"kind":', () => socket?.destroy());
    else socket?.destroy();
    this.finish();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.response.end();
    this.finish();
  }

  private finish(): void {
    this.closed = true;
    if (this.finished) return;
    this.finished = true;
    this.unsubscribe();
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
    this.onClose(this);
  }
}
