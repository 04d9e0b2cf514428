// `svc bridge`: runs the central server until SIGINT/SIGTERM, with the flags of docs/cli.md.
import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { BRIDGE_DEFAULT_PORT } from '../protocol/ports.js';
import { metricsPortOption, parseIdentifier, parsePort } from './ship-command.js';
import { normalizeUrl } from './url.js';
import { serveUntilSignal } from './run-until-signal.js';

function parseMilliseconds(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(ms))
    throw new InvalidArgumentError('must be a whole number of milliseconds (0 turns it off)');
  return ms;
}

export function bridgeCommand(): Command {
  return new Command('bridge')
    .description('run the bridge: ship registry, routing, repos, events and authentication')
    .addOption(new Option('-p, --port <port>', 'port to listen on').default(BRIDGE_DEFAULT_PORT).argParser(parsePort))
    .addOption(new Option('-n, --name <name>', 'bridge name').default('bridge').argParser(parseIdentifier))
    .option('-d, --data-directory <dir>', 'data directory (PGlite store, armory, lock)', './.svc-bridge')
    .option('--public-url <url>', 'URL ships and browsers reach this bridge at (default http://localhost:<port>)')
    .option(
      '--database-url <url>',
      'PostgreSQL connection string (default: PGlite in the data directory; env SVC_DATABASE_URL)',
    )
    .option('--insecure-no-auth', 'disable authentication: every request is an admin (env SVC_INSECURE_NO_AUTH=1)')
    .addOption(
      new Option('--sweep-interval-ms <ms>', 'ephemeral cleanup interval in milliseconds, 0 = off')
        .default(300_000)
        .argParser(parseMilliseconds),
    )
    .option('--host <host>', 'address to listen on (localhost: loopback only)', 'localhost')
    .option('--allowed-host <name...>', 'extra Host names answered while authentication is off')
    .option('--no-local-repos', 'refuse file:// and local-path repo URLs')
    .addOption(metricsPortOption())
    .action(
      async (options: {
        port: number;
        name: string;
        dataDirectory: string;
        publicUrl?: string;
        databaseUrl?: string;
        insecureNoAuth?: boolean;
        host: string;
        allowedHost?: string[];
        localRepos: boolean;
        sweepIntervalMs: number;
        metricsPort?: number;
      }) => {
        // Configuration first: on a store still to be made, a partial first admin fails here, before the
        // server's modules load or any data directory is made.
        const databaseUrl = options.databaseUrl ?? (process.env.SVC_DATABASE_URL || undefined);
        const { firstAdminSource } = await import('./first-admin-prompt.js');
        const firstAdmin = firstAdminSource(!databaseUrl && !existsSync(options.dataDirectory));
        // Loaded on use, like the ship's: see the start-up note in main.ts.
        const { startBridge } = await import('../bridge/server.js');
        await serveUntilSignal(
          () =>
            startBridge({
              port: options.port,
              name: options.name,
              dataDirectory: options.dataDirectory,
              publicUrl: options.publicUrl ? normalizeUrl(options.publicUrl) : undefined,
              databaseUrl,
              insecureNoAuth: options.insecureNoAuth || process.env.SVC_INSECURE_NO_AUTH === '1',
              firstAdmin,
              host: options.host,
              allowedHosts: options.allowedHost ?? [],
              allowLocalRepos: options.localRepos,
              sweepIntervalMs: options.sweepIntervalMs,
              metricsPort: options.metricsPort,
            }),
          { releaseIdleHeap: true },
        );
      },
    );
}
