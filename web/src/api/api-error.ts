// The one error type of the API client: the HTTP status and the bridge's own message (`{error}`, or the
// 422 validation body's `message`), shown to the user as the bridge wrote it.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The message of an error body, whatever its shape; `fallback` when it has none. */
export function messageOf(body: unknown, fallback: string): string {
  if (body && typeof body === 'object') {
    const record = body as { error?: unknown; message?: unknown };
    if (typeof record.error === 'string') return record.error;
    if (typeof record.message === 'string') return record.message;
  }
  return fallback;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
