// The resource endpoints: a URL under /api/v1 or /apis/<group>/<version> parsed into resource, namespace,
// name and subresource, and each HTTP method mapped to its verb — list (with selectors, limit/continue and
// Table or metadata-only rendering), watch (handed to watch.ts), get, create, update, patch (by content
// type), delete (DeleteOptions from the body or the query) and deletecollection. Write rules live in
// lifecycle.ts; this file only translates HTTP to them and their results back.
import type { ServerResponse } from 'node:http';
import { errors } from './errors.js';
import {
  acceptedPatchTypes,
  type DeleteOptions,
  type FieldValidation,
  type Lifecycle,
  type WriteOptions,
} from './lifecycle.js';
import type { ResourceRegistry } from './registry.js';
import { apiVersionOf, resourceKey, type KubeObject, type ResourceType } from './resources.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { ObjectStore } from './store.js';
import { toPartial, toPartialList, toTable, type IncludeObject, type Rendering } from './table.js';
import type { WatchRequest } from './watch.js';

export interface ResourcePath {
  group: string;
  version: string;
  namespace: string | undefined;
  plural: string;
  name: string | undefined;
  subresource: string | undefined;
}

export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string | string[]>;
}

export function parseResourcePath(pathname: string): ResourcePath | undefined {
  const segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) [group, version, rest] = ['', segments[1]!, segments.slice(2)];
  else if (segments[0] === 'apis' && segments.length >= 4)
    [group, version, rest] = [segments[1]!, segments[2]!, segments.slice(3)];
  else return undefined;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  return { group, version, namespace, plural: rest[0]!, name: rest[1], subresource: rest[2] };
}

export interface HandlerSettings {
  now: () => number;
}

/** What a request carries besides its path: parsed query, body, content type and Accept rendering. */
export interface ResourceRequest {
  method: string;
  path: ResourcePath;
  query: URLSearchParams;
  body: unknown;
  contentType: string;
  rendering: Rendering;
}

function continueToken(rv: number, after: string): string {
  return Buffer.from(JSON.stringify({ rv, after })).toString('base64url');
}

function warningHeaders(warnings: string[]): Record<string, string[]> | undefined {
  return warnings.length > 0 ? { Warning: warnings.map((warning) => `299 - ${JSON.stringify(warning)}`) } : undefined;
}

function writeOptions(query: URLSearchParams): WriteOptions {
  const validation = query.get('fieldValidation');
  if (validation !== null && !['Strict', 'Warn', 'Ignore'].includes(validation))
    throw errors.badRequest(
      `fieldValidation must be one of "Ignore", "Warn", or "Strict", got ${JSON.stringify(validation)}`,
    );
  return { dryRun: query.getAll('dryRun').includes('All'), fieldValidation: (validation ?? 'Warn') as FieldValidation };
}

export class ResourceHandlers {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly store: ObjectStore,
    private readonly lifecycle: Lifecycle,
    private readonly settings: HandlerSettings,
    private readonly startWatch: (request: WatchRequest, response: ServerResponse) => void,
  ) {}

  resolve(path: ResourcePath): ResourceType {
    const resource = this.registry.lookup(path.group, path.version, path.plural);
    if (!resource) throw errors.pathNotFound();
    if (path.namespace !== undefined && !resource.namespaced) throw errors.pathNotFound();
    if (path.subresource !== undefined && (path.subresource !== 'status' || !resource.statusSubresource))
      throw errors.pathNotFound();
    return resource;
  }

  /** The verb, for authorization and the request log. */
  verbOf(method: string, path: ResourcePath, query: URLSearchParams): string {
    if (path.name === undefined) {
      if (method === 'GET') return query.get('watch') === 'true' || query.get('watch') === '1' ? 'watch' : 'list';
      return { POST: 'create', DELETE: 'deletecollection' }[method] ?? method.toLowerCase();
    }
    return { GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[method] ?? method.toLowerCase();
  }

  handle(request: ResourceRequest, response: ServerResponse): Answer | 'streaming' {
    const { path, query, method } = request;
    const resource = this.resolve(path);
    const verb = this.verbOf(method, path, query);
    const scoped = resource.namespaced ? path.namespace : undefined;
    const needsNamespace = resource.namespaced && path.namespace === undefined && !['list', 'watch'].includes(verb);
    if (needsNamespace) throw errors.pathNotFound();
    const subresource = path.subresource as 'status' | undefined;
    if (subresource && !['get', 'update', 'patch'].includes(verb)) throw errors.methodNotAllowed(verb, resource);
    switch (verb) {
      case 'list':
        return this.list(resource, path, query, request.rendering);
      case 'watch': {
        this.startWatch(
          {
            resource,
            version: path.version,
            namespace: scoped,
            labels: parseLabelSelector(query.get('labelSelector')),
            fields: parseFieldSelector(query.get('fieldSelector'), resource),
            resourceVersion: query.get('resourceVersion') ?? undefined,
            allowBookmarks: query.get('allowWatchBookmarks') === 'true' || query.get('allowWatchBookmarks') === '1',
            sendInitialEvents: query.has('sendInitialEvents') ? query.get('sendInitialEvents') === 'true' : undefined,
            timeoutSeconds: query.has('timeoutSeconds') ? Number(query.get('timeoutSeconds')) : undefined,
            rendering: request.rendering,
          },
          response,
        );
        return 'streaming';
      }
      case 'get': {
        const object = this.store.get(resourceKey(resource), scoped, path.name!);
        if (!object) throw errors.notFound(resource, path.name!);
        return {
          status: 200,
          body: this.render(
            resource,
            path.version,
            [this.lifecycle.output(object, resource, path.version)],
            request.rendering,
            query,
            { resourceVersion: object.metadata.resourceVersion },
            true,
          ),
        };
      }
      case 'create': {
        const result = this.lifecycle.create(resource, path.version, scoped, request.body, writeOptions(query));
        return { status: 201, body: result.object, headers: warningHeaders(result.warnings) };
      }
      case 'update': {
        const result = this.lifecycle.update(
          resource,
          path.version,
          scoped,
          path.name!,
          request.body,
          subresource,
          writeOptions(query),
        );
        return { status: result.created ? 201 : 200, body: result.object, headers: warningHeaders(result.warnings) };
      }
      case 'patch': {
        if (!acceptedPatchTypes(resource).includes(request.contentType))
          throw errors.unsupportedMediaType(acceptedPatchTypes(resource));
        const result = this.lifecycle.patch(
          resource,
          path.version,
          scoped,
          path.name!,
          request.contentType,
          request.body,
          subresource,
          writeOptions(query),
        );
        return { status: 200, body: result.object, headers: warningHeaders(result.warnings) };
      }
      case 'delete': {
        const result = this.lifecycle.delete(resource, path.version, scoped, path.name!, this.deleteOptions(request));
        if (result.gone && !resource.returnDeletedObject)
          return { status: 200, body: this.success(resource, result.object) };
        return { status: 200, body: result.object };
      }
      case 'deletecollection': {
        const options = this.deleteOptions(request);
        const deleted = this.matching(resource, path, query).map(
          (object) =>
            this.lifecycle.delete(resource, path.version, object.metadata.namespace, object.metadata.name, options)
              .object,
        );
        return {
          status: 200,
          body: {
            kind: resource.listKind,
            apiVersion: apiVersionOf(resource.group, path.version),
            metadata: { resourceVersion: String(this.store.currentRv()) },
            items: deleted,
          },
        };
      }
      default:
        throw errors.methodNotAllowed(verb, resource);
    }
  }

  private success(resource: ResourceType, object: KubeObject): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: {
        name: object.metadata.name,
        ...(resource.group ? { group: resource.group } : {}),
        kind: resource.plural,
        uid: object.metadata.uid,
      },
    };
  }

  private deleteOptions(request: ResourceRequest): DeleteOptions {
    const body = (request.body && typeof request.body === 'object' ? request.body : {}) as DeleteOptions & {
      dryRun?: unknown;
    };
    const policy = request.query.get('propagationPolicy') ?? body.propagationPolicy;
    if (policy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(policy)) {
      throw errors.unprocessable(
        `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`,
      );
    }
    const orphan = request.query.get('orphanDependents');
    return {
      propagationPolicy: policy as DeleteOptions['propagationPolicy'],
      orphanDependents: orphan !== null ? orphan === 'true' : body.orphanDependents,
      preconditions: body.preconditions,
      dryRun:
        request.query.getAll('dryRun').includes('All') || (Array.isArray(body.dryRun) && body.dryRun.includes('All')),
    };
  }

  private matching(resource: ResourceType, path: ResourcePath, query: URLSearchParams): KubeObject[] {
    const labels = parseLabelSelector(query.get('labelSelector'));
    const fields = parseFieldSelector(query.get('fieldSelector'), resource);
    return this.store.list(resourceKey(resource), path.namespace).filter((object) => labels(object) && fields(object));
  }

  private list(resource: ResourceType, path: ResourcePath, query: URLSearchParams, rendering: Rendering): Answer {
    let items = this.matching(resource, path, query);
    let listRv = this.store.currentRv();
    const token = query.get('continue');
    if (token) {
      let parsed: { rv: number; after: string };
      try {
        parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { rv: number; after: string };
      } catch {
        throw errors.badRequest('continue key is not valid: illegal base64 data');
      }
      if (parsed.rv < this.store.compactedRv) {
        throw errors.gone(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      }
      listRv = parsed.rv;
      items = items.filter((object) => `${object.metadata.namespace ?? ''}/${object.metadata.name}` > parsed.after);
    }
    const limit = Number(query.get('limit') ?? 0);
    const metadata: Record<string, unknown> = { resourceVersion: String(listRv) };
    if (limit > 0 && items.length > limit) {
      const last = items[limit - 1]!;
      metadata.continue = continueToken(listRv, `${last.metadata.namespace ?? ''}/${last.metadata.name}`);
      metadata.remainingItemCount = items.length - limit;
      items = items.slice(0, limit);
    }
    const served = items.map((object) => this.lifecycle.output(object, resource, path.version));
    return { status: 200, body: this.render(resource, path.version, served, rendering, query, metadata, false) };
  }

  private render(
    resource: ResourceType,
    version: string,
    objects: KubeObject[],
    rendering: Rendering,
    query: URLSearchParams,
    metadata: Record<string, unknown>,
    single: boolean,
  ): unknown {
    if (rendering.as === 'Table') {
      const include = (query.get('includeObject') ?? 'Metadata') as IncludeObject;
      return toTable(resource, version, rendering.version, objects, include, this.settings.now(), metadata);
    }
    if (rendering.as === 'PartialObjectMetadata')
      return single ? toPartial(objects[0]!, rendering.version) : toPartialList(objects, rendering.version, metadata);
    if (single) return objects[0];
    return { kind: resource.listKind, apiVersion: apiVersionOf(resource.group, version), metadata, items: objects };
  }
}
