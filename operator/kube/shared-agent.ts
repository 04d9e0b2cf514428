// One kept-alive agent for every call the operator makes to the API server. client-node 1.4 builds a new
// https.Agent for each call (KubeConfig.applySecurityAuthentication and applyToHTTPSOptions), so each call
// was a new TCP connection and TLS handshake with the CA parsed into a fresh secure context: at 500 Ships that
// cost the operator memory (bench/operator.ts; the figure in bench/RESULTS.md) and a handshake per write.
// KubeConfig still decides everything per call (headers, including a bearer token re-read from a rotating file; CA
// and client certificate); the throwaway agent it builds only says which TLS material to use, and the shared agent
// is replaced when that material changes (a rotated client certificate). Connections of a replaced agent end with
// the requests on them.
import http from 'node:http';
import https from 'node:https';
import {
  createConfiguration,
  ServerConfiguration,
  type Configuration,
  type KubeConfig,
  type RequestContext,
  type SecurityAuthentication,
} from '@kubernetes/client-node';

/** The agent options KubeConfig derives from the kubeconfig: the TLS material a connection is made with. */
const TLS_OPTIONS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

type AgentOptions = Partial<Record<(typeof TLS_OPTIONS)[number], unknown>>;

function sameValue(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => sameValue(item, b[index]));
  return a === b;
}

export class SharedAgent {
  private current: { agent: http.Agent; secure: boolean; options: AgentOptions } | null = null;

  /** The kept-alive agent to use instead of `fresh`, the one-call agent KubeConfig built. */
  replace(fresh: http.Agent | undefined): http.Agent | undefined {
    if (!fresh) return undefined;
    const secure = fresh instanceof https.Agent;
    const given = (fresh as http.Agent & { options?: AgentOptions }).options ?? {};
    const options: AgentOptions = {};
    for (const name of TLS_OPTIONS) if (given[name] !== undefined) options[name] = given[name];
    const current = this.current;
    if (
      current &&
      current.secure === secure &&
      TLS_OPTIONS.every((name) => sameValue(current.options[name], options[name]))
    )
      return current.agent;
    const agent = secure
      ? new https.Agent({ ...(options as https.AgentOptions), keepAlive: true })
      : new http.Agent({ keepAlive: true });
    this.current = { agent, secure, options };
    return agent;
  }

  /** Closes the kept-alive connections (the operator is stopping). */
  destroy(): void {
    this.current?.agent.destroy();
    this.current = null;
  }
}

/** KubeConfig's authentication for the generated clients, on the shared agent. */
function sharedAgentAuthentication(config: KubeConfig, shared: SharedAgent): SecurityAuthentication {
  return {
    getName: () => 'kubeconfig',
    async applySecurityAuthentication(context: RequestContext) {
      await config.applySecurityAuthentication(context);
      const agent = shared.replace(context.getAgent());
      if (agent) context.setAgent(agent);
    },
  };
}

/** A generated API client (CoreV1Api, …) as KubeConfig.makeApiClient builds it, on the shared agent. */
export function makeApiClient<T>(
  config: KubeConfig,
  shared: SharedAgent,
  client: new (configuration: Configuration) => T,
): T {
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  return new client(
    createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: sharedAgentAuthentication(config, shared) },
    }),
  );
}
