// The CLI talking straight to one ship (`svc client --url`), presenting SVC_BRIDGE_TOKEN when it is set,
// else the bridge token a `svc launch` on this machine recorded for that ship (local-ship-tokens.ts).
import { normalizeUrl } from '../url.js';
import { directShipToken } from '../local-ship-tokens.js';
import { httpCall, type ApiClient } from './http.js';
import { svcCommand } from '../invocation.js';

export class DirectShipClient implements ApiClient {
  readonly url: string;
  readonly viaBridge = false;
  private readonly hint: string;
  private readonly token: string | null;

  constructor(shipUrl: string, token?: string | null) {
    this.url = normalizeUrl(shipUrl);
    this.token = token !== undefined ? token : directShipToken(this.url);
    this.hint = `is the ship running? start one with \`${svcCommand()} ship --port ${new URL(this.url).port || 4700}\``;
  }

  call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return httpCall<T>(this.url, method, path, { body, token: this.token, startHint: this.hint });
  }

  text(method: string, path: string): Promise<string> {
    return httpCall<string>(this.url, method, path, { token: this.token, raw: true, startHint: this.hint });
  }
}
