// What the client verbs need from a bridge or a ship (cli/auth/bridge-client.ts, cli/api/ship-client.ts). Both
// call through the shared client (server/svc-client.ts), so a refused answer reads `request failed (<status>):
// <message>`, a server that is not there one line naming the URL and how to start it, and every failure is a
// RequestFailed (server/request-failed.ts) the verbs match by status.

export interface ApiClient {
  readonly url: string;
  /** True for a bridge (workspace answers carry `ship`, create takes `--ship`). */
  readonly viaBridge: boolean;
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  text(method: string, path: string): Promise<string>;
}
