// The CLI talking straight to one ship (`svc client --url`), presenting SVC_BRIDGE_TOKEN when it is set,
// else the bridge token a `svc launch` on this machine recorded for that ship (local-ship-tokens.ts).
import { fixedToken, SvcClient } from '../../server/svc-client.js';
import { svcCommand } from '../invocation.js';
import { directShipToken } from '../local-ship-tokens.js';
import { normalizeUrl } from '../url.js';
import type { ApiClient } from './api-client.js';

export class DirectShipClient implements ApiClient {
  readonly url: string;
  readonly viaBridge = false;
  private readonly http: SvcClient;

  constructor(shipUrl: string, token?: string | null) {
    this.url = normalizeUrl(shipUrl);
    this.http = new SvcClient({
      url: this.url,
      credential: fixedToken(token !== undefined ? token : directShipToken(this.url)),
      unreachableHint: `is the ship running? start one with \`${svcCommand()} ship --port ${new URL(this.url).port || 4700}\``,
    });
  }

  call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.http.request<T>({ method, path, body });
  }

  text(method: string, path: string): Promise<string> {
    return this.http.request<string>({ method, path, text: true });
  }
}
