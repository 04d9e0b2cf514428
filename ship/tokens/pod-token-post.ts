// A POST to the operator with this pod's projected service-account token as bearer: the ship's token
// exchange (exchanged-tokens.ts) and the session holder's drain report (sessions/drain-report.ts). The token
// is read from its file at each call (the kubelet renews it) and never logged; no redirect is followed.
import { readFile } from 'node:fs/promises';

export interface PodTokenPost {
  url: string;
  /** The file holding the pod's projected service-account token. */
  credentialFile: string;
  /** A JSON body (none: an empty POST). */
  json?: unknown;
  timeoutMs: number;
  fetch?: typeof fetch;
}

export async function postWithPodToken(request: PodTokenPost): Promise<Response> {
  const token = (await readFile(request.credentialFile, 'utf8')).trim();
  const json = request.json !== undefined;
  return (request.fetch ?? fetch)(request.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify(request.json) : undefined,
    redirect: 'error',
    signal: AbortSignal.timeout(request.timeoutMs),
  });
}
