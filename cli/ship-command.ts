// `svc ship`: runs one ship until SIGINT/SIGTERM. Flags as docs/cli.md; secrets only from the environment
// (SVC_BRIDGE_TOKEN) or the operator's token exchange (--tokens-from, a credential file), never from flags. On shutdown, sessions of active workspaces stay in tmux and are
// adopted by the next start.
import { realpathSync } from 'node:fs';
import os from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
// The TypeBox-free protocol modules: see the start-up note in main.ts.
import { identifierProblem } from '../protocol/identifier-rules.js';
import { SHIP_DEFAULT_PORT } from '../protocol/ports.js';
import { normalizeUrl } from './url.js';
import { parseDuration } from './duration.js';
import { serveUntilSignal } from './run-until-signal.js';
import { messageOf } from '../protocol/thrown.js';

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidArgumentError('must be a port number (0-65535)');
  return port;
}

/** `--metrics-port`, the same on ship and bridge (issue #20): GET /metrics alone, without a credential. */
export function metricsPortOption(): Option {
  return (
    new Option(
      '--metrics-port <port>',
      'also serve GET /metrics, without a credential, on this port (and nothing else there)',
    )
      .env('SVC_METRICS_PORT')
      // An empty SVC_METRICS_PORT is no port, not port 0.
      .argParser((value) => (value.trim() === '' ? undefined : parsePort(value)))
  );
}

/** `--max-disk-fill`: a fraction of the volume, above 0 and at most 1 (a percentage is refused, not guessed). */
export function parseFill(value: string): number {
  const fill = Number(value);
  if (value.trim() === '' || !Number.isFinite(fill) || fill <= 0 || fill > 1)
    throw new InvalidArgumentError('must be a fraction above 0 and at most 1 (e.g. 0.9)');
  return fill;
}

export function parseIdentifier(value: string): string {
  const problem = identifierProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
}

/** `--session-user`, the same on ship and session holder: a refused value names the flag. */
export async function parsedSessionUser(value: string) {
  const { parseSessionUser } = await import('../ship/sessions/session-holder.js');
  try {
    return parseSessionUser(value);
  } catch (error) {
    throw new InvalidArgumentError(`--session-user ${messageOf(error)}`);
  }
}

export function shipCommand(): Command {
  return new Command('ship')
    .description('run a ship: workspaces, terminals and agent status for this host')
    .addOption(new Option('-p, --port <port>', 'port to listen on').default(SHIP_DEFAULT_PORT).argParser(parsePort))
    .addOption(
      new Option('-n, --name <name>', 'ship name reported to the bridge (default: the host name)').argParser(
        parseIdentifier,
      ),
    )
    .option('-f, --fleet-directory <dir>', 'directory holding <repo>/<name> workspaces', './fleet')
    .option('--bridge-url <url>', 'the only bridge allowed to push the armory (default: the first that pushes)')
    .option('--host <host>', 'address to listen on (localhost: loopback only; 0.0.0.0 serves other hosts)', 'localhost')
    .option('--allowed-host <name...>', 'extra Host names an open ship answers (DNS-rebinding guard)')
    .option('--no-local-repos', 'refuse file:// and local-path clone URLs')
    .option(
      '--session-holder',
      "sessions live in `svc session-holder`'s tmux server (same fleet directory): wait for it, never end it",
    )
    .option(
      '--session-user <uid[:gid]>',
      'run sessions, and git in their workspaces, as this user and group (needs CAP_SETUID and CAP_SETGID; the ship hands each clone to it)',
    )
    .option(
      '--session-url <url>',
      'URL the agents in sessions reach this ship at (SVC_SHIP_URL; default http://localhost:<port>)',
    )
    .option(
      '--repo-cache <dir>',
      "where each repo's object cache lives, so later workspaces of it copy locally (default: <fleet-directory>.repo-cache)",
    )
    .option('--no-repo-cache', 'no repo cache: every create clones from the remote')
    .addOption(
      new Option('--repo-cache-max-idle <duration>', 'remove a repo cache no create has used this long (0: never)')
        .default(14 * 86_400_000, '14d')
        .argParser(parseDuration),
    )
    .addOption(
      new Option(
        '--max-disk-fill <fraction>',
        "GET /readyz fails while the fleet directory's volume is fuller than this (e.g. 0.9)",
      ).argParser(parseFill),
    )
    .option(
      '--tokens-from <url>',
      "fetch this ship's token pair from the svc operator's token exchange (instead of SVC_BRIDGE_TOKEN/SVC_SHIP_TOKEN); needs --tokens-credential",
    )
    .option(
      '--tokens-credential <file>',
      "file holding the credential presented to --tokens-from (the pod's projected service-account token)",
    )
    .addOption(metricsPortOption())
    .action(
      async (options: {
        port: number;
        name?: string;
        fleetDirectory: string;
        bridgeUrl?: string;
        host: string;
        allowedHost?: string[];
        localRepos: boolean;
        sessionHolder?: boolean;
        sessionUser?: string;
        sessionUrl?: string;
        repoCache?: string | false;
        repoCacheMaxIdle: number;
        metricsPort?: number;
        maxDiskFill?: number;
        tokensFrom?: string;
        tokensCredential?: string;
      }) => {
        if (!options.tokensFrom !== !options.tokensCredential)
          throw new InvalidArgumentError('--tokens-from and --tokens-credential go together');
        // Configuration first: a session environment naming the ship's own variables refuses the start.
        const { sessionEnvNames, sessionEnvValues } = await import('../protocol/session-env.js');
        const sessionEnv = sessionEnvValues(sessionEnvNames(process.env.SVC_SESSION_ENV), process.env);
        const { agentHarnessFrom } = await import('../protocol/agent-harnesses.js');
        const agentHarness = agentHarnessFrom(process.env.SVC_AGENT_HARNESS);
        const sessionUser =
          options.sessionUser === undefined ? undefined : await parsedSessionUser(options.sessionUser);
        // Loaded on use: `svc --help` and the client verbs should not pay for the server's modules.
        const { startShip } = await import('../ship/server.js');
        await serveUntilSignal(
          () =>
            startShip({
              port: options.port,
              name: options.name ?? os.hostname(),
              fleetDirectory: options.fleetDirectory,
              bridgeUrl: options.bridgeUrl ? normalizeUrl(options.bridgeUrl) : undefined,
              host: options.host,
              allowedHosts: options.allowedHost ?? [],
              allowLocalRepos: options.localRepos,
              bridgeToken: process.env.SVC_BRIDGE_TOKEN || undefined,
              shipToken: process.env.SVC_SHIP_TOKEN || undefined,
              sessionCommand: process.env.SVC_SESSION_COMMAND || undefined,
              sessionEnv,
              sessionHolder: options.sessionHolder === true,
              sessionUser,
              agentHarness,
              // Sessions run svc as this process was started: this Node and the real path of its bin.
              selfCommand: [process.execPath, realpathSync(process.argv[1]!)],
              sessionUrl: options.sessionUrl ? normalizeUrl(options.sessionUrl) : undefined,
              repoCacheDirectory: options.repoCache === false ? null : options.repoCache,
              repoCacheMaxIdleMs: options.repoCacheMaxIdle,
              metricsPort: options.metricsPort,
              maxDiskFill: options.maxDiskFill,
              tokenExchange: options.tokensFrom
                ? { url: options.tokensFrom, credentialFile: options.tokensCredential! }
                : undefined,
            }),
          { announce: (signal, ship) => ship.app.log.info({ signal }, 'ship stopping') },
        );
      },
    );
}
