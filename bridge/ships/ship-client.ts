// HTTP calls from the bridge to one ship: the bridge token as bearer, no redirects followed (security notes
// F9: a ship must not bounce a call elsewhere), a deadline per call. A transport failure is
// ShipUnreachable, whatever status the ship answers is returned as is.
export class ShipUnreachable extends Error {}

export interface ShipReply {
  status: number;
  contentType: string;
  text: string;
}

export interface ShipCall {
  method: string;
  path: string;
  body?: unknown;
  timeoutMs?: number;
}

export class ShipClient {
  constructor(readonly url: string, private readonly bridgeToken: string | null) {}

  /** The bridge token this ship expects (for the terminal proxy's upstream socket). */
  get token(): string | null {
    return this.bridgeToken;
  }

  async call(request: ShipCall): Promise<ShipReply> {
    const headers: Record<string, string> = {};
    if (this.bridgeToken) headers.authorization = `Bearer ${this.bridgeToken}`;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(new URL(request.path, this.url), {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        redirect: 'error',
        signal: AbortSignal.timeout(request.timeoutMs ?? 10_000),
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new ShipUnreachable(cause ?? (error as Error).message);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new ShipUnreachable((error as Error).message);
    }
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', text };
  }
}

/** The ship's JSON body, or null when it is not JSON. */
export function parseJson(reply: ShipReply): unknown {
  try {
    return JSON.parse(reply.text);
  } catch {
    return null;
  }
}
