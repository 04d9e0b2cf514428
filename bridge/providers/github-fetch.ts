// How the GitHub provider reaches the forge. GETs and HEADs without a body or an abort signal go over
// node:http(s) on kept-alive connections, their bodies read whole (GitHubTransport): undici's fetch cost the
// bridge about twice the CPU of the rest of a forge call (web streams, header lists, per-request
// controllers: the sweep bench, issue #17). Octokit gets them through `fetch()` as a Response whose body is
// already in memory (BufferedResponse); the sweep's own reads (github-reads.ts) take the answer as is.
// Everything else goes to the global fetch, with its own rules: writes and anything with a body or a signal,
// and redirects: a GET answered with a 3xx is asked again through the global fetch, which follows it as the
// fetch standard says (the Authorization header is not carried to another origin: the Actions job log's
// pre-signed URL). No `accept-encoding` is sent; a compressed answer is decoded all the same.
// Nothing here logs or keeps a request's headers, so the token stays where the caller put it.
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** An idle kept-alive connection is closed after this, before a server's own keep-alive timeout can race a reuse. */
const IDLE_CONNECTION_MS = 4_000;
/** Silence allowed while a request is in flight (undici's fetch: 300 s for headers and for the body). */
const REQUEST_IDLE_TIMEOUT_MS = 300_000;
/** Connections per forge host; more requests queue in the agent (GitHub asks for few concurrent ones). */
const MAX_CONNECTIONS = 16;

const decoders: Record<string, (body: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

/** A GET's or HEAD's answer, its body read whole and decoded. */
export interface Answer {
  status: number;
  statusText: string;
  /** As node:http gives them: lower-case names, repeated ones joined. */
  headers: IncomingHttpHeaders;
  /** Names and values as they came, for a Headers object. */
  rawHeaders: string[];
  body: Buffer;
}

/**
 * Response's constructor, typed as making only what the subclass reads: the platform types declare text()
 * and the like as properties, which a subclass may not redefine as methods. At run time it is Response.
 */
const ResponseBase = Response as unknown as new (
  body: null,
  init: ResponseInit,
) => { readonly headers: Headers; readonly status: number; readonly statusText: string };

/** A Response (a subclass of it) whose body was read before it was made: its reads answer from memory. */
export class BufferedResponse extends ResponseBase {
  readonly #body: Buffer;
  readonly #url: string;

  constructor(body: Buffer, url: string, init: ResponseInit) {
    super(null, init);
    this.#body = body;
    this.#url = url;
  }

  get url(): string {
    return this.#url;
  }

  // A Buffer is always backed by an ArrayBuffer here (never shared); the DOM's BlobPart type (present when
  // @xterm/xterm's typings pull lib.dom in) asks for that in the type.
  #blobPart(): Uint8Array<ArrayBuffer> {
    return this.#body as Uint8Array<ArrayBuffer>;
  }

  get body(): ReadableStream<Uint8Array> {
    return new Blob([this.#blobPart()]).stream();
  }

  async text(): Promise<string> {
    return this.#body.toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.#body.toString('utf8'));
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(this.#body).buffer;
  }

  async blob(): Promise<Blob> {
    return new Blob([this.#blobPart()], { type: this.headers.get('content-type') ?? '' });
  }

  clone(): BufferedResponse {
    return new BufferedResponse(this.#body, this.#url, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    });
  }
}

/** GETs and HEADs over node:http(s), kept-alive connections per protocol. */
export class GitHubTransport {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: MAX_CONNECTIONS, timeout: IDLE_CONNECTION_MS }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: MAX_CONNECTIONS, timeout: IDLE_CONNECTION_MS }),
  };

  /** Whether `url` is http(s), the only kind this reads. */
  serves(url: URL): boolean {
    return url.protocol in this.agents;
  }

  /** One GET or HEAD; a transport failure rejects with node's error (no answer at all). */
  async read(url: URL, method: 'GET' | 'HEAD', headers: Record<string, string>): Promise<Answer> {
    const answer = await this.send(url, method, headers, true);
    const encoding = answer.headers['content-encoding']?.trim().toLowerCase();
    const decode = encoding ? decoders[encoding] : undefined;
    if (decode && answer.body.length > 0) answer.body = await decode(answer.body);
    return answer;
  }

  private send(
    url: URL,
    method: string,
    headers: Record<string, string>,
    retryOnStaleConnection: boolean,
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const transport = url.protocol === 'https:' ? https : http;
      const request = transport.request(
        url,
        {
          method,
          headers,
          agent: this.agents[url.protocol as keyof GitHubTransport['agents']],
          timeout: REQUEST_IDLE_TIMEOUT_MS,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              statusText: response.statusMessage ?? '',
              headers: response.headers,
              rawHeaders: response.rawHeaders,
              body: Buffer.concat(chunks),
            }),
          );
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${REQUEST_IDLE_TIMEOUT_MS / 1000} s`)));
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed as it was reused: once more on a fresh one (GET and HEAD only come here).
        if (retryOnStaleConnection && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE'))
          resolve(this.send(url, method, headers, false));
        else reject(error);
      });
      request.end();
    });
  }

  /** Octokit's `request.fetch`: what this transport reads, read here; the rest from `fallback` (the global fetch). */
  fetch(fallback: typeof fetch = (input, init) => fetch(input, init)): typeof fetch {
    return async (input, init = {}) => {
      const method = (init.method ?? 'GET').toUpperCase();
      const url = typeof input === 'string' ? new URL(input) : null;
      const headers = plainHeaders(init.headers);
      if (
        !url ||
        !this.serves(url) ||
        (method !== 'GET' && method !== 'HEAD') ||
        init.body != null ||
        init.signal ||
        !headers
      )
        return fallback(input, init);
      const answer = await this.read(url, method, headers);
      if (answer.status >= 300 && answer.status < 400 && answer.headers.location !== undefined)
        return fallback(input, init);
      const responseHeaders = new Headers();
      for (let i = 0; i < answer.rawHeaders.length; i += 2)
        responseHeaders.append(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
      const response = new BufferedResponse(method === 'HEAD' ? Buffer.alloc(0) : answer.body, url.href, {
        status: answer.status,
        statusText: answer.statusText,
        headers: responseHeaders,
      });
      return response as unknown as Response;
    };
  }
}

/** Headers as a plain name → value object, or null when they come in another form (the fallback takes those). */
function plainHeaders(headers: RequestInit['headers']): Record<string, string> | null {
  if (headers === undefined) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return null;
  return headers as Record<string, string>;
}
