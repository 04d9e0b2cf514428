// Small client-side helpers for the Kubernetes tests, written against @kubernetes/client-node 1.4 only (so
// they work the same on the fake and on a real cluster): the Status body of a failed call, a watch that
// collects its events, and a raw GET with a chosen Accept header (Table output).
import { request } from 'node:https';
import { ApiException, type KubeConfig, Watch } from '@kubernetes/client-node';
import { until } from '../helpers/poll.js';

export interface Status {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: Array<{ field?: string; reason?: string; message?: string }> };
}

/** The HTTP code and Status of a rejected client-node call (1.4 keeps the body as JSON text). */
export async function rejection(call: Promise<unknown>): Promise<{ code: number; status: Status }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body =
      typeof error.body === 'string' ? (JSON.parse(error.body || '{}') as Status) : ((error.body ?? {}) as Status);
    return { code: error.code, status: body };
  }
  throw new Error('the call succeeded; a rejection was expected');
}

export interface WatchEvent {
  type: string;
  object: {
    metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
    code?: number;
    reason?: string;
    [key: string]: unknown;
  };
}

export interface CollectedWatch {
  events: WatchEvent[];
  /** Resolves with the error client-node reported when the stream ended (null for a clean end). */
  ended: Promise<unknown>;
  endedYet: () => boolean;
  stop(): void;
  /** Waits until some event satisfies `match`; returns it. */
  next(match: (event: WatchEvent) => boolean, what: string, timeoutMs?: number): Promise<WatchEvent>;
}

export async function collectWatch(
  kubeconfig: KubeConfig,
  path: string,
  query: Record<string, string | boolean | number>,
): Promise<CollectedWatch> {
  const events: WatchEvent[] = [];
  let finished = false;
  let resolveEnded: (error: unknown) => void = () => {};
  const ended = new Promise<unknown>((resolve) => {
    resolveEnded = resolve;
  });
  const controller = await new Watch(kubeconfig).watch(
    path,
    query,
    (type, object) => events.push({ type, object: object as WatchEvent['object'] }),
    (error) => {
      finished = true;
      resolveEnded(error);
    },
  );
  return {
    events,
    ended,
    endedYet: () => finished,
    stop: () => controller.abort(),
    next: (match, what, timeoutMs = 10_000) => until(async () => events.find(match) ?? null, what, timeoutMs),
  };
}

/**
 * One HTTP request as the kubeconfig authenticates it, with a JSON body sent verbatim. For what the typed
 * client cannot say: a Table Accept header, or a CRD whose schema uses `default`, `enum` and
 * `x-kubernetes-*` (client-node's models spell them `_default`, `_enum`, `x_kubernetes_…` and silently drop
 * the YAML spelling).
 */
export async function rawRequest(
  kubeconfig: KubeConfig,
  method: string,
  path: string,
  options: { accept?: string; body?: unknown; contentType?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const server = new URL(kubeconfig.getCurrentCluster()!.server);
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
  const requestOptions: Record<string, unknown> = { method, headers };
  await kubeconfig.applyToHTTPSOptions(requestOptions);
  return new Promise((resolve, reject) => {
    const call = request(new URL(path, server), requestOptions, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>,
        }),
      );
    });
    call.on('error', reject);
    call.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

export function rawGet(
  kubeconfig: KubeConfig,
  path: string,
  accept: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return rawRequest(kubeconfig, 'GET', path, { accept });
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}
