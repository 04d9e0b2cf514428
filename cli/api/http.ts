// One HTTP call from the CLI to a bridge or a ship: JSON in, JSON (or raw text) out, no redirects followed.
// A refused answer becomes `request failed (<status>): <message>`; a server that is not there becomes one
// line naming the URL and how to start it, never a stack trace.
//
// Through node:http(s), one connection per call (`agent: false`), not `fetch`: a CLI process makes one or two
// calls and exits. `fetch` loads and compiles undici on its first call (~60–100 ms here) and its kept-alive
// socket held the process ~150 ms past the last answer; node:http with `Connection: close` costs neither
// (measured in docs/DECISIONS.md, "CLI start-up").
//
// node:http(s) come from `process.getBuiltinModule` at the call, not an `import`: on Node 24 an ESM import of
// node:http builds its namespace by reading every export, and the lazy `WebSocket` getters among them load
// undici and http2 — the very cost this module avoids. `svc --help` loads neither.
import type { IncomingMessage } from 'node:http';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`request failed (${status}): ${detail}`);
  }
}

export interface CallOptions {
  body?: unknown;
  token?: string | null;
  /** Return the body as text (a diff), not parsed JSON. */
  raw?: boolean;
  /** Said after "cannot reach …" when nothing answers (how to start it). */
  startHint: string;
}

interface Answer {
  status: number;
  location?: string;
  text: string;
}

function send(url: URL, method: string, headers: Record<string, string>, body: string | undefined): Promise<Answer> {
  const transport = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http');
  return new Promise((resolve, reject) => {
    const request = transport.request(url, { method, headers, agent: false }, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          location: response.headers.location,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** The short reason a connection failed: the system's code (ECONNREFUSED, ENOTFOUND…) when there is one. */
function reason(error: unknown): string {
  const failure = error as { code?: string; message?: string; errors?: { code?: string }[] };
  return failure.code ?? failure.errors?.[0]?.code ?? failure.message ?? String(error);
}

export async function httpCall<T>(baseUrl: string, method: string, path: string, options: CallOptions): Promise<T> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  let answer: Answer;
  try {
    answer = await send(new URL(baseUrl + path), method, headers, body);
  } catch (error) {
    throw new Error(`cannot reach ${baseUrl} (${reason(error)}): ${options.startHint}`);
  }
  const { status, text } = answer;
  if (status >= 300 && status < 400)
    throw new ApiError(status, `redirected to ${answer.location ?? 'another URL'}, which svc does not follow`);
  if (status < 200 || status >= 300) {
    let detail = `HTTP ${status}`;
    try {
      const parsed = JSON.parse(text) as { error?: unknown; message?: unknown };
      if (typeof parsed.error === 'string') detail = parsed.error;
      else if (typeof parsed.message === 'string') detail = parsed.message;
    } catch {
      if (text.trim()) detail = text.trim().slice(0, 200);
    }
    throw new ApiError(status, detail);
  }
  if (options.raw) return text as T;
  return (text ? JSON.parse(text) : null) as T;
}

/** What the client verbs need from a bridge or a ship. */
export interface ApiClient {
  readonly url: string;
  /** True for a bridge (workspace answers carry `ship`, create takes `--ship`). */
  readonly viaBridge: boolean;
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  text(method: string, path: string): Promise<string>;
}
