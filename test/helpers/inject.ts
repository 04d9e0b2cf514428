// An `app.inject` answer in the shape the socket helpers give (test/helpers/ship.ts `call`): status, the body
// parsed as JSON (null when it is not JSON), the text and the headers; and the one request helper the built
// apps (bridge-app.ts, ship-app.ts) give their suites.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Reply } from './ship.js';

export type InjectedReply = Reply<any>;

export function injected(response: LightMyRequestResponse): InjectedReply {
  let body: unknown = null;
  try {
    body = JSON.parse(response.body);
  } catch {
    body = null;
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const one of [value ?? []].flat()) headers.append(name, String(one));
  }
  return { status: response.statusCode, body, text: response.body, headers };
}

/** A request through `app.inject`, answered as `injected`. */
export type Inject = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string | string[]>,
) => Promise<InjectedReply>;

/** `app.inject` as an `Inject`: `body` is sent as JSON. */
export function injector(app: FastifyInstance): Inject {
  return async (method, path, body, headers = {}) => {
    const request: InjectOptions = { method: method as InjectOptions['method'], url: path, headers };
    if (body !== undefined) request.payload = body as InjectOptions['payload'];
    return injected(await app.inject(request));
  };
}
