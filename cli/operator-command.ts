// `svc operator`: runs the Kubernetes operator (issue #19) until SIGINT/SIGTERM, with the flags of docs/architecture.md §10.
// The operator itself (client-node, pino, prom-client) is imported inside the action: see main.ts's start-up note.
import { Command, InvalidArgumentError, Option } from 'commander';
import { parsePort } from './ship-command.js';
import { normalizeUrl } from './url.js';
import { serveUntilSignal } from './run-until-signal.js';
import { parseDuration } from './duration.js';
import { messageOf } from '../protocol/thrown.js';

function parseUrl(value: string): string {
  // An empty SVC_BRIDGE_URL counts as unset (the action then says the URL is required).
  if (!value.trim()) return '';
  let url: string;
  try {
    url = normalizeUrl(value);
  } catch (error) {
    throw new InvalidArgumentError(messageOf(error));
  }
  // It is logged, and named in every BridgeUnavailable condition and Event: no credentials in it.
  const { username, password } = new URL(url);
  if (username || password)
    throw new InvalidArgumentError(
      'must not carry credentials: the operator logs in with SVC_OPERATOR_USERNAME and SVC_OPERATOR_PASSWORD, or SVC_TOKEN',
    );
  return url;
}

export function operatorCommand(): Command {
  return new Command('operator')
    .description('run the Kubernetes operator: reconcile Ship and Repo resources into the bridge')
    .addOption(
      new Option('--bridge-url <url>', 'the bridge the operator registers ships and repos with (required)')
        .env('SVC_BRIDGE_URL')
        .argParser(parseUrl),
    )
    .option('--namespace <namespace>', "namespace to watch (default: the pod's own, else the kubeconfig context's)")
    .option('--all-namespaces', 'watch every namespace')
    .addOption(
      new Option('--health-port <port>', 'port of /healthz, /readyz and /metrics').default(8081).argParser(parsePort),
    )
    .addOption(
      new Option(
        '--token-exchange-port <port>',
        "serve each ship DaemonSet pod its own node's token pair on this port (POST /ship-tokens with the pod's projected service-account token)",
      ).argParser(parsePort),
    )
    .option('--leader-elect', 'elect one active replica through a Lease (run with two replicas for failover)')
    .addOption(
      new Option('--daemonset-grace <duration>', 'how long a DaemonSet ship outlives its last pod on a node')
        .default(600_000, '10m')
        .argParser(parseDuration),
    )
    .action(
      async (options: {
        bridgeUrl?: string;
        namespace?: string;
        allNamespaces?: boolean;
        healthPort: number;
        tokenExchangePort?: number;
        leaderElect?: boolean;
        daemonsetGrace: number;
      }) => {
        const bridgeUrl = options.bridgeUrl;
        if (!bridgeUrl) throw new Error('--bridge-url (or SVC_BRIDGE_URL) is required');
        if (options.namespace && options.allNamespaces)
          throw new Error('--namespace and --all-namespaces exclude each other');
        // Loaded on use, like the servers: see the start-up note in main.ts.
        const { startOperator } = await import('../operator/runtime/start.js');
        await serveUntilSignal(() =>
          startOperator({
            bridgeUrl,
            namespace: options.namespace,
            allNamespaces: Boolean(options.allNamespaces),
            healthPort: options.healthPort,
            tokenExchangePort: options.tokenExchangePort,
            leaderElect: Boolean(options.leaderElect),
            daemonsetGraceMs: options.daemonsetGrace,
          }),
        );
      },
    );
}
