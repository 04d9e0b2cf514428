// Raw GETs against the API server for what the generated clients cannot do: list any resource by its path
// (core and custom alike, with pagination) and open a watch as a stream of JSON lines. Authentication and
// TLS come from the KubeConfig (applyToHTTPSOptions: CA, client certificate, bearer token — re-read for
// in-cluster token files on every request), over the operator's one kept-alive agent (shared-agent.ts). Each
// request gets an AbortSignal that cancels it at any stage, including before the response headers arrive
// (client-node's Watch cannot: it hands out its abort handle only once the server has answered).
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ResourceRef } from '../runtime/controller.js';
import { SharedAgent } from './shared-agent.js';

/** A non-2xx answer from the API server, with the Status body's reason/code when it sent one. */
export class KubeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'KubeHttpError';
  }
}

/** The collection path of a resource: /api/v1/namespaces/ns/pods, /apis/svc.dev/v1alpha1/ships, … */
export function collectionPath(resource: ResourceRef, namespace: string | undefined): string {
  const base = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const scope = namespace && resource.namespaced !== false ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${scope}/${resource.plural}`;
}

export type Query = Record<string, string | number | boolean | undefined>;

export class KubeHttp {
  constructor(
    private readonly config: KubeConfig,
    private readonly agent = new SharedAgent(),
  ) {}

  private async open(path: string, query: Query, signal: AbortSignal): Promise<IncomingMessage> {
    const cluster = this.config.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    const url = new URL(cluster.server.replace(/\/+$/, '') + path);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const options: RequestOptions = { method: 'GET', headers: { Accept: 'application/json' } };
    await this.config.applyToHTTPSOptions(options);
    options.agent = this.agent.replace(options.agent instanceof Agent ? options.agent : undefined);
    signal.throwIfAborted();
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { ...options, signal }, resolve);
      req.on('error', reject);
      req.end();
    });
  }

  /** GET a JSON document; a non-2xx answer rejects with KubeHttpError. */
  async getJson<T>(path: string, query: Query, signal: AbortSignal): Promise<T> {
    const response = await this.open(path, query, signal);
    const body = await readAll(response);
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) throw errorFrom(status, body);
    return JSON.parse(body) as T;
  }

  /**
   * Opens a watch. Resolves once the server answered 200 (rejects with KubeHttpError otherwise); then every
   * complete line goes to `onLine` and `done` is called exactly once: with no argument when the server ended
   * the stream cleanly, with an error when it was cut (a trailing half line is dropped and reported as a cut)
   * or aborted.
   */
  async watch(
    path: string,
    query: Query,
    signal: AbortSignal,
    onLine: (line: string) => void,
    done: (error?: Error) => void,
  ): Promise<void> {
    const response = await this.open(path, { ...query, watch: 1 }, signal);
    const status = response.statusCode ?? 0;
    if (status !== 200) throw errorFrom(status, await readAll(response).catch(() => ''));
    response.setEncoding('utf8');
    let buffer = '';
    let finished = false;
    const finish = (error?: Error) => {
      if (finished) return;
      finished = true;
      response.destroy();
      done(error);
    };
    response.on('data', (chunk: string) => {
      buffer += chunk;
      for (let newline = buffer.indexOf('\n'); !finished && newline >= 0; newline = buffer.indexOf('\n')) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line) onLine(line);
      }
    });
    response.on('end', () => finish(buffer.trim() ? new Error('watch stream ended inside an event') : undefined));
    response.on('aborted', () => finish(new Error('watch stream cut')));
    response.on('error', (error) => finish(error));
    response.on('close', () =>
      finish(
        signal.aborted ? new Error('watch aborted') : response.complete ? undefined : new Error('watch stream cut'),
      ),
    );
  }
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('response cut')));
  });
}

function errorFrom(status: number, body: string): KubeHttpError {
  let reason: string | undefined;
  let message = body.slice(0, 200);
  try {
    const parsed = JSON.parse(body) as { reason?: string; message?: string };
    reason = parsed.reason;
    if (parsed.message) message = parsed.message;
  } catch {
    // not a Status body
  }
  return new KubeHttpError(status, reason, `HTTP ${status}${reason ? ` ${reason}` : ''}: ${message}`);
}
