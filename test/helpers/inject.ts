// An `app.inject` answer in the shape the socket helpers give (test/helpers/ship.ts `call`): status, the body
// parsed as JSON (null when it is not JSON), the text and the headers.
import type { LightMyRequestResponse } from 'fastify';
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
