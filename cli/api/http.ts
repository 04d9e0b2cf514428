// One HTTP call from the CLI to a bridge or a ship: JSON in, JSON (or raw text) out, no redirects followed.
// A refused answer becomes `request failed (<status>): <message>`; a server that is not there becomes one
// line naming the URL and how to start it, never a stack trace.
export class ApiError extends Error {
  constructor(readonly status: number, readonly detail: string) {
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

export async function httpCall<T>(baseUrl: string, method: string, path: string, options: CallOptions): Promise<T> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(baseUrl + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      redirect: 'error',
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`cannot reach ${baseUrl} (${cause?.code ?? cause?.message ?? (error as Error).message}): ${options.startHint}`);
  }
  const text = await response.text();
  if (!response.ok) {
    let detail = `HTTP ${response.status}`;
    try {
      const parsed = JSON.parse(text) as { error?: unknown; message?: unknown };
      if (typeof parsed.error === 'string') detail = parsed.error;
      else if (typeof parsed.message === 'string') detail = parsed.message;
    } catch {
      if (text.trim()) detail = text.trim().slice(0, 200);
    }
    throw new ApiError(response.status, detail);
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
