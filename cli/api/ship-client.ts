// The CLI talking straight to one ship (`svc client --url`), presenting SVC_BRIDGE_TOKEN when it is set.
import { normalizeUrl } from '../url.js';
import { httpCall, type ApiClient } from './http.js';
import { svcCommand } from '../invocation.js';

export class DirectShipClient implements ApiClient {
  readonly url: string;
  readonly viaBridge = false;
  private readonly hint: string;

  constructor(shipUrl: string, private readonly token: string | null = process.env.SVC_BRIDGE_TOKEN || null) {
    this.url = normalizeUrl(shipUrl);
    this.hint = `is the ship running? start one with \`${svcCommand()} ship --port ${new URL(this.url).port || 4700}\``;
  }

  call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return httpCall<T>(this.url, method, path, { body, token: this.token, startHint: this.hint });
  }

  text(method: string, path: string): Promise<string> {
    return httpCall<string>(this.url, method, path, { token: this.token, raw: true, startHint: this.hint });
  }
}
