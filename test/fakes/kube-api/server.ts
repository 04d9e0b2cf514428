// The fake Kubernetes API server: a real HTTPS server (certificate generated at start, kubeconfig written
// with its CA and a bearer token) that speaks the apiserver's wire protocol for the resources in
// resources.ts and any CRD applied to it. This file owns the connection-level behaviour — authentication
// (401 without the token), an optional authorization hook (403), injected failures, the request log,
// discovery/OpenAPI routing, body parsing and Status error bodies — and the knobs tests turn: compaction,
// a new resourceVersion history after a restart, dropping or expiring watches, bookmarks on demand.
// Object semantics live in lifecycle.ts, storage in store.ts, watches in watch.ts.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { CrdController, CRD_RESOURCE, readCrdFiles } from './crds.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, openApiDocument, openApiRoot } from './discovery.js';
import { errors, KubeError } from './errors.js';
import { GarbageCollector } from './gc.js';
import { parseResourcePath, ResourceHandlers, type Answer } from './handlers.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { Lifecycle } from './lifecycle.js';
import { ResourceRegistry } from './registry.js';
import { BUILT_IN_RESOURCES, SCHEMALESS_DEFAULTS, type KubeObject, type ResourceType } from './resources.js';
import { ObjectStore } from './store.js';
import { negotiate } from './table.js';
import { generateServingCertificate, type ServingCertificate } from './tls.js';
import { WatchStream, type WatchRequest } from './watch.js';

/** The repository's committed CRDs (loaded by default when the directory exists). */
export const COMMITTED_CRDS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'crds');

export interface RequestAttributes {
  user: string;
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface FakeKubeApiOptions {
  /** Bearer token of the default user `admin` (random when absent). More with addToken(). */
  token?: string;
  /** Port to listen on (default: any free port). Kept across restart(). */
  port?: number;
  /** Clock for creationTimestamp, deletionTimestamp and Table ages (default Date.now). */
  now?: () => number;
  /** CRDs to install at start: a directory of YAML, 'committed' (crds/ of this repo, if present; default) or 'none'. */
  crds?: string;
  /** Serve svc.dev/v1alpha1 ships and repos without a schema until a CRD defines them (default true). */
  schemalessDefaults?: boolean;
  /** Interval of BOOKMARK events on watches that allow them (default 5 s; 0 = only on sendBookmarks()). */
  bookmarkIntervalMs?: number;
  /** How a watch from a compacted resourceVersion is refused: in-stream ERROR event (default, as the watch cache does) or HTTP 410. */
  tooOldResourceVersion?: 'event' | 'http';
  /** Events kept for watch resume before the oldest are compacted away (default 10,000). */
  maxHistory?: number;
  /** Namespace of the kubeconfig's context (default 'default'). */
  namespace?: string;
  /** Return false to answer 403 Forbidden (default: everything allowed). */
  authorize?: (attributes: RequestAttributes) => boolean;
}

export interface InjectedFault {
  status: number;
  reason?: string;
  message?: string;
  method?: string;
  /** Only requests whose path (with query) contains this. */
  pathIncludes?: string;
  /** How many matching requests get it (default 1; Infinity until clearFaults()). */
  times?: number;
  retryAfterSeconds?: number;
}

export interface SeenRequest {
  method: string;
  path: string;
  query: string;
  verb?: string;
  user?: string;
  contentType?: string;
  status?: number;
}

const MAX_BODY = 3 * 1024 * 1024;
const MAX_LOG = 10_000;

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(errors.tooLarge());
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

function parseBody(method: string, contentType: string, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  if (method !== 'PATCH' && (contentType === 'application/yaml' || contentType === 'application/x-yaml')) {
    try {
      return parseYaml(text);
    } catch (error) {
      throw errors.badRequest(`error converting YAML to JSON: ${(error as Error).message}`);
    }
  }
  if (method !== 'PATCH' && method !== 'DELETE' && contentType !== 'application/json' && contentType !== '') {
    throw errors.unsupportedMediaType(['application/json', 'application/yaml']);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw errors.badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
}

export class FakeKubeApi {
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
  readonly lifecycle: Lifecycle;
  readonly requests: SeenRequest[] = [];
  /** TCP connections accepted since start: how many handshakes the clients made. */
  connectionsAccepted = 0;
  readonly token: string;
  readonly namespace: string;
  private readonly tokens = new Map<string, string>();
  private readonly boundTokens = new Map<string, BoundToken>();
  private readonly faults: InjectedFault[] = [];
  private readonly watches = new Set<WatchStream>();
  private readonly sockets = new Set<Socket>();
  private readonly handlers: ResourceHandlers;
  private readonly gc: GarbageCollector;
  private readonly crdController: CrdController;
  private readonly now: () => number;
  private server: Server | undefined;
  private certificate: ServingCertificate | undefined;
  private directory: string | undefined;
  private listenPort: number;
  bookmarkIntervalMs: number;
  tooOldResourceVersion: 'event' | 'http';

  constructor(private readonly options: FakeKubeApiOptions = {}) {
    this.now = options.now ?? Date.now;
    this.token = options.token ?? randomBytes(24).toString('hex');
    this.tokens.set(this.token, 'admin');
    this.namespace = options.namespace ?? 'default';
    this.listenPort = options.port ?? 0;
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 5_000;
    this.tooOldResourceVersion = options.tooOldResourceVersion ?? 'event';
    this.store = new ObjectStore(options.maxHistory);
    this.registry = new ResourceRegistry(
      [...BUILT_IN_RESOURCES, CRD_RESOURCE],
      options.schemalessDefaults === false ? [] : SCHEMALESS_DEFAULTS,
    );
    this.lifecycle = new Lifecycle(this.store, this.now);
    this.gc = new GarbageCollector(this.store, this.lifecycle, this.registry);
    this.crdController = new CrdController(this.store, this.lifecycle, this.registry, this.now);
    this.handlers = new ResourceHandlers(
      this.registry,
      this.store,
      this.lifecycle,
      { now: this.now },
      (request, response) => this.openWatch(request, response),
    );
    const crds = options.crds ?? 'committed';
    if (crds !== 'none')
      for (const crd of readCrdFiles(crds === 'committed' ? COMMITTED_CRDS : crds)) this.installCrd(crd);
  }

  /** Creates (or replaces) a CRD and serves its resource at once, without waiting for the controller. */
  installCrd(crd: KubeObject): void {
    const existing = this.store.get('customresourcedefinitions.apiextensions.k8s.io', undefined, crd.metadata.name);
    if (existing)
      this.lifecycle.update(
        CRD_RESOURCE,
        'v1',
        undefined,
        crd.metadata.name,
        { ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata.resourceVersion } },
        undefined,
      );
    else this.lifecycle.create(CRD_RESOURCE, 'v1', undefined, crd);
    this.crdController.reconcileAll();
  }

  async start(): Promise<this> {
    this.certificate = generateServingCertificate(new Date(this.now()));
    this.directory = mkdtempSync(join(tmpdir(), 'svc-test-kube-api-'));
    await this.listen();
    writeFileSync(this.kubeconfigPath, this.kubeconfig, { mode: 0o600 });
    return this;
  }

  private listen(): Promise<void> {
    const server = createServer(
      { key: this.certificate!.keyPem, cert: this.certificate!.certPem },
      (request, response) => {
        void this.serve(request, response);
      },
    );
    server.on('connection', (socket: Socket) => {
      this.connectionsAccepted++;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('tlsClientError', () => {});
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listenPort, '127.0.0.1', () => {
        this.listenPort = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  get port(): number {
    return this.listenPort;
  }

  get url(): string {
    return `https://127.0.0.1:${this.listenPort}`;
  }

  get caPem(): string {
    return this.certificate!.caPem;
  }

  get kubeconfig(): string {
    return kubeconfigYaml({ server: this.url, caPem: this.caPem, token: this.token, namespace: this.namespace });
  }

  /** A kubeconfig file (mode 0600) for the default user, inside a temp directory removed by close(). */
  get kubeconfigPath(): string {
    return join(this.directory!, 'kubeconfig');
  }

  /** Writes a kubeconfig for another user's token (see addToken) next to the default one. */
  kubeconfigFor(token: string): string {
    const path = join(this.directory!, `kubeconfig-${this.tokens.get(token) ?? 'unknown'}`);
    writeFileSync(path, kubeconfigYaml({ server: this.url, caPem: this.caPem, token, namespace: this.namespace }), {
      mode: 0o600,
    });
    return path;
  }

  addToken(token: string, user: string): void {
    this.tokens.set(token, user);
  }

  /**
   * A projected service-account token bound to a pod, as the kubelet gets it through TokenRequest: it
   * authenticates nothing by itself here (no API access), and TokenReview answers for it while the pod exists
   * with that uid and the audience matches.
   */
  addBoundToken(token: string, binding: BoundToken): void {
    this.boundTokens.set(token, binding);
  }

  /** POST /apis/authentication.k8s.io/v1/tokenreviews, as kube-apiserver answers for bound tokens. */
  private tokenReview(body: unknown): Answer {
    const spec = (body as { spec?: { token?: string; audiences?: string[] } } | undefined)?.spec ?? {};
    const binding = spec.token ? this.boundTokens.get(spec.token) : undefined;
    const pod = binding && this.read('v1', 'Pod', binding.podName, binding.namespace);
    const audiences = (spec.audiences ?? []).filter((audience) => binding?.audiences.includes(audience));
    const valid =
      binding && pod && pod.metadata.uid === binding.podUid && !pod.metadata.deletionTimestamp && audiences.length > 0;
    const status = valid
      ? {
          authenticated: true,
          audiences,
          user: {
            username: `system:serviceaccount:${binding.namespace}:${binding.serviceAccount}`,
            groups: ['system:serviceaccounts', `system:serviceaccounts:${binding.namespace}`, 'system:authenticated'],
            extra: {
              'authentication.kubernetes.io/pod-name': [binding.podName],
              'authentication.kubernetes.io/pod-uid': [binding.podUid],
            },
          },
        }
      : { authenticated: false, error: 'invalid bearer token' };
    return {
      status: 201,
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { audiences: spec.audiences ?? [] },
        status,
      },
    };
  }

  // ---- knobs -------------------------------------------------------------------------------------------

  inject(fault: InjectedFault): void {
    this.faults.push({ times: 1, ...fault });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  get openWatches(): number {
    return this.watches.size;
  }

  /** Cuts every open watch's connection; `midEvent` leaves half an event line on the wire first. */
  dropWatches(options: { midEvent?: boolean } = {}): void {
    for (const watch of [...this.watches]) watch.drop(options.midEvent);
  }

  /** Ends every open watch with an in-stream ERROR event carrying 410 Expired. */
  expireWatches(): void {
    for (const watch of [...this.watches]) watch.expire();
  }

  /** Ends every open watch cleanly (as when timeoutSeconds runs out). */
  closeWatches(): void {
    for (const watch of [...this.watches]) watch.close();
  }

  /** Sends a BOOKMARK now on every watch that allows them. */
  sendBookmarks(): void {
    for (const watch of this.watches) watch.bookmark();
  }

  /** Forgets the event history: resuming a watch from any earlier resourceVersion is answered 410. */
  compact(): void {
    this.store.compact();
  }

  currentResourceVersion(): string {
    return String(this.store.currentRv());
  }

  /**
   * The API server goes away and comes back on the same port with the same objects but a new
   * resourceVersion history (as after an etcd restore): every connection is cut, old resourceVersions are
   * too old (410) — or, with `rewind`, from the future (504) — and objects carry new ones.
   */
  async restart(options: { rewind?: boolean; downMs?: number } = {}): Promise<void> {
    await this.stopListening();
    this.store.newHistory(options.rewind);
    // The API server stays down for downMs (an outage the caller asked for).
    if (options.downMs) await new Promise((resolve) => setTimeout(resolve, options.downMs));
    await this.listen();
  }

  private async stopListening(): Promise<void> {
    this.dropWatches();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  async close(): Promise<void> {
    this.gc.stop();
    this.crdController.stop();
    if (this.directory) rmSync(this.directory, { recursive: true, force: true });
    this.directory = undefined;
    await this.stopListening();
  }

  // ---- direct access for tests (the same rules as over HTTP, without a client) --------------------------

  private resourceFor(apiVersion: string, kind: string): { resource: ResourceType; version: string } {
    const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
    const resource = this.registry
      .all()
      .find(
        (candidate) => candidate.group === group && candidate.kind === kind && candidate.versions.includes(version),
      );
    if (!resource) throw new Error(`fake kube-api: no resource for ${apiVersion} ${kind}`);
    return { resource, version };
  }

  create(object: KubeObject | Record<string, unknown>): KubeObject {
    const { resource, version } = this.resourceFor(String(object.apiVersion), String(object.kind));
    const namespace = resource.namespaced
      ? ((object.metadata as { namespace?: string } | undefined)?.namespace ?? this.namespace)
      : undefined;
    return this.lifecycle.create(resource, version, namespace, object).object;
  }

  read(
    apiVersion: string,
    kind: string,
    name: string,
    namespace: string | undefined = this.namespace,
  ): KubeObject | undefined {
    const { resource, version } = this.resourceFor(apiVersion, kind);
    const object = this.store.get(
      `${resource.plural}${resource.group ? `.${resource.group}` : ''}`,
      resource.namespaced ? namespace : undefined,
      name,
    );
    return object && this.lifecycle.output(object, resource, version);
  }

  list(apiVersion: string, kind: string, namespace?: string): KubeObject[] {
    const { resource, version } = this.resourceFor(apiVersion, kind);
    return this.store
      .list(`${resource.plural}${resource.group ? `.${resource.group}` : ''}`, namespace)
      .map((object) => this.lifecycle.output(object, resource, version));
  }

  writeStatus(
    apiVersion: string,
    kind: string,
    name: string,
    status: unknown,
    namespace: string | undefined = this.namespace,
  ): KubeObject {
    const { resource, version } = this.resourceFor(apiVersion, kind);
    return this.lifecycle.patch(
      resource,
      version,
      resource.namespaced ? namespace : undefined,
      name,
      'application/merge-patch+json',
      { status },
      resource.statusSubresource ? 'status' : undefined,
    ).object;
  }

  /** A JSON merge patch of the object itself (as `kubectl annotate`/`kubectl patch --type merge` send). */
  patch(
    apiVersion: string,
    kind: string,
    name: string,
    body: Record<string, unknown>,
    namespace: string | undefined = this.namespace,
  ): KubeObject {
    const { resource, version } = this.resourceFor(apiVersion, kind);
    return this.lifecycle.patch(
      resource,
      version,
      resource.namespaced ? namespace : undefined,
      name,
      'application/merge-patch+json',
      body,
      undefined,
    ).object;
  }

  remove(apiVersion: string, kind: string, name: string, namespace: string | undefined = this.namespace): void {
    const { resource, version } = this.resourceFor(apiVersion, kind);
    this.lifecycle.delete(resource, version, resource.namespaced ? namespace : undefined, name);
  }

  // ---- HTTP ---------------------------------------------------------------------------------------------

  private openWatch(request: WatchRequest, response: ServerResponse): void {
    const stream = new WatchStream(
      this.store,
      this.lifecycle,
      request,
      response,
      {
        bookmarkIntervalMs: this.bookmarkIntervalMs,
        tooOldResourceVersion: this.tooOldResourceVersion,
        now: this.now,
      },
      (closed) => this.watches.delete(closed),
    );
    stream.start();
    this.watches.add(stream);
  }

  private send(response: ServerResponse, answer: Answer): void {
    const body = JSON.stringify(answer.body);
    response.writeHead(answer.status, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      ...(answer.headers ?? {}),
    });
    response.end(body);
  }

  private fault(method: string, pathWithQuery: string): KubeError | undefined {
    const index = this.faults.findIndex(
      (fault) =>
        (!fault.method || fault.method === method) &&
        (!fault.pathIncludes || pathWithQuery.includes(fault.pathIncludes)),
    );
    if (index < 0) return undefined;
    const fault = this.faults[index]!;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    const headers: Record<string, string> =
      fault.retryAfterSeconds !== undefined ? { 'Retry-After': String(fault.retryAfterSeconds) } : {};
    return new KubeError(
      fault.status,
      fault.reason ?? 'InternalError',
      fault.message ?? `injected ${fault.status}`,
      fault.retryAfterSeconds !== undefined ? { retryAfterSeconds: fault.retryAfterSeconds } : undefined,
      headers,
    );
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    const method = request.method ?? 'GET';
    const seen: SeenRequest = {
      method,
      path: url.pathname,
      query: url.search,
      contentType: request.headers['content-type'],
    };
    this.requests.push(seen);
    if (this.requests.length > MAX_LOG) this.requests.splice(0, this.requests.length - MAX_LOG);
    try {
      const answer = await this.route(request, response, url, method, seen);
      if (answer !== 'streaming') {
        seen.status = answer.status;
        this.send(response, answer);
      } else {
        seen.status = 200;
      }
    } catch (error) {
      const kubeError =
        error instanceof KubeError
          ? error
          : new KubeError(500, 'InternalError', `Internal error occurred: ${(error as Error).message}`);
      seen.status = kubeError.code;
      if (response.headersSent) {
        response.destroy();
        return;
      }
      this.send(response, { status: kubeError.code, body: kubeError.toStatus(), headers: kubeError.headers });
    }
  }

  private async route(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    method: string,
    seen: SeenRequest,
  ): Promise<Answer | 'streaming'> {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (['/healthz', '/livez', '/readyz'].includes(path)) return { status: 200, body: 'ok' };
    if (path === '/version')
      return { status: 200, body: { major: '1', minor: '33', gitVersion: 'v1.33.0-fake', platform: 'linux/amd64' } };
    const authorization = request.headers.authorization ?? '';
    const user = authorization.startsWith('Bearer ')
      ? this.tokens.get(authorization.slice('Bearer '.length).trim())
      : undefined;
    if (!user) throw errors.unauthorized();
    seen.user = user;
    const injected = this.fault(method, `${url.pathname}${url.search}`);
    if (injected) throw injected;
    if (method === 'GET') {
      if (path === '/api') return { status: 200, body: apiVersions(`127.0.0.1:${this.listenPort}`) };
      if (path === '/apis') return { status: 200, body: apiGroupList(this.registry) };
      if (path === '/openapi/v3') return { status: 200, body: openApiRoot(this.registry) };
      const openapi = /^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
      if (openapi) {
        const document = openapi[1]
          ? openApiDocument(this.registry, '', 'v1')
          : openApiDocument(this.registry, openapi[2]!, openapi[3]!);
        if (document) return { status: 200, body: document };
        throw errors.pathNotFound();
      }
      const group = /^\/apis\/([^/]+)$/.exec(path);
      if (group) {
        const document = apiGroup(this.registry, group[1]!);
        if (document) return { status: 200, body: document };
        throw errors.pathNotFound();
      }
      const groupVersion = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
      if (groupVersion) {
        const document = groupVersion[1]
          ? apiResourceList(this.registry, '', 'v1')
          : apiResourceList(this.registry, groupVersion[2]!, groupVersion[3]!);
        if (document) return { status: 200, body: document };
        throw errors.pathNotFound();
      }
    }
    if (method === 'POST' && path === '/apis/authentication.k8s.io/v1/tokenreviews') {
      seen.verb = 'create';
      if (
        this.options.authorize &&
        !this.options.authorize({ user, verb: 'create', group: 'authentication.k8s.io', resource: 'tokenreviews' })
      ) {
        throw errors.forbidden(
          user,
          'create',
          { group: 'authentication.k8s.io', plural: 'tokenreviews' } as never,
          undefined,
          undefined,
        );
      }
      return this.tokenReview(parseBody(method, mediaType(request.headers['content-type']), await readBody(request)));
    }
    const resourcePath = parseResourcePath(path);
    if (!resourcePath) throw errors.pathNotFound();
    const resource = this.handlers.resolve(resourcePath);
    const verb = this.handlers.verbOf(method, resourcePath, url.searchParams);
    seen.verb = verb;
    if (
      this.options.authorize &&
      !this.options.authorize({
        user,
        verb,
        group: resource.group,
        resource: resource.plural,
        subresource: resourcePath.subresource,
        namespace: resourcePath.namespace,
        name: resourcePath.name,
      })
    ) {
      throw errors.forbidden(user, verb, resource, resourcePath.namespace, resourcePath.name);
    }
    const rendering = negotiate(request.headers.accept);
    if (!rendering)
      throw errors.notAcceptable(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
    const contentType = mediaType(request.headers['content-type']);
    const body = parseBody(method, contentType, await readBody(request));
    return this.handlers.handle(
      { method, path: resourcePath, query: url.searchParams, body, contentType, rendering },
      response,
    );
  }
}

/** A pod-bound projected service-account token (addBoundToken). */
export interface BoundToken {
  namespace: string;
  serviceAccount: string;
  podName: string;
  podUid: string;
  audiences: string[];
}

/** Starts a fake API server; `await fake.close()` when done. */
export async function startFakeKubeApi(options: FakeKubeApiOptions = {}): Promise<FakeKubeApi> {
  return new FakeKubeApi(options).start();
}
