// `svc launch`: the whole service from one command (a bridge and its local ships in this process, remote
// ships registered), from `--config-path` (default ./svc.yaml when present) or with no file at all; and
// `svc launch init [--force]`, which writes a commented scaffold. Ctrl-C stops everything and exits 0.
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Command } from 'commander';
import type { LaunchPlan } from './launch/plan.js';
import type { Launched } from './launch/run-launch.js';
import { launchScaffold } from './launch/scaffold.js';
import { serveUntilSignal } from './run-until-signal.js';
import { svcCommand } from './invocation.js';
import { shownPath } from './shown-path.js';

const DEFAULT_CONFIG = 'svc.yaml';

function summary(launched: Launched, configPath: string | null, tokensFile: string | null): string {
  const { bridge } = launched;
  const lines = [
    `svc is running${configPath ? ` (from ${configPath})` : ''}`,
    `  bridge  ${bridge.url}  store ${bridge.store.db.engine} at ${bridge.store.location}`,
  ];
  if (bridge.publicUrl !== bridge.url) lines.push(`          public URL ${bridge.publicUrl}`);
  for (const ship of launched.local)
    lines.push(`  ship    ${ship.name}  ${ship.url}  fleet ${ship.fleetDirectory}  (token pair ${ship.tokens})`);
  for (const ship of launched.remote) {
    lines.push(
      ship.registered
        ? `  remote  ${ship.registered}  ${ship.url}`
        : `  remote  ${ship.key}  ${ship.url}  NOT registered: ${ship.error}`,
    );
  }
  const first = launched.local[0]?.name ?? launched.remote.find((r) => r.registered)?.registered ?? '<ship>';
  const bridgeFlag = bridge.port === 4800 ? '' : ` --bridge-url ${bridge.url}`;
  const svc = svcCommand();
  lines.push(
    '',
    'Try:',
    `  ${svc} login${bridgeFlag}`,
    `  ${svc} client${bridgeFlag} repos add <repo> <git url>`,
    `  ${svc} client${bridgeFlag} create <repo> <name> --ship ${first} -b main`,
    `  ${svc} client${bridgeFlag} ls`,
    `  ${svc} client${bridgeFlag} attach <repo> <name>`,
  );
  const direct = launched.local[0];
  if (direct && tokensFile) {
    // Straight to a ship: it answers only with its bridge token, which the client reads from the file.
    lines.push(
      `  ${svc} client --url ${new URL(direct.url).port} ls   (straight to ship ${direct.name}, with the bridge token in ${shownPath(tokensFile)})`,
    );
  }
  lines.push('', 'Ctrl-C stops everything.');
  return `${lines.join('\n')}\n`;
}

export function launchCommand(): Command {
  const launch = new Command('launch')
    .description('run a bridge and its ships from one command (svc.yaml when present, else one local ship)')
    .option('--config-path <file>', `launch configuration (default ./${DEFAULT_CONFIG} when it exists)`)
    .action(async (options: { configPath?: string }) => {
      // Loaded on use (YAML, the config schema, the servers): see the start-up note in main.ts.
      const { loadLaunchConfig } = await import('./launch/config-file.js');
      const { defaultPlan, planFromConfig } = await import('./launch/plan.js');
      const explicit = options.configPath !== undefined;
      const path = resolve(options.configPath ?? DEFAULT_CONFIG);
      let plan: LaunchPlan;
      let configPath: string | null = null;
      if (existsSync(path)) {
        const loaded = loadLaunchConfig(path);
        for (const warning of loaded.warnings) process.stderr.write(`svc: warning: ${warning}\n`);
        plan = planFromConfig(loaded.config, loaded.directory);
        configPath = path;
      } else if (explicit) {
        throw new Error(`no launch configuration at ${path} (\`${svcCommand()} launch init\` writes one)`);
      } else {
        plan = defaultPlan(process.cwd());
      }
      // On a store still to be made, a partial first admin fails before anything is created.
      const { firstAdminSource } = await import('./first-admin-prompt.js');
      const firstAdmin = firstAdminSource(!plan.bridge.databaseUrl && !existsSync(plan.bridge.dataDirectory));
      const { runLaunch } = await import('./launch/run-launch.js');
      // In a git checkout, the directories the launch is about to create stay out of git (issue #15 item 8).
      const { ignoreInCheckout, outermostMissing } = await import('./launch/git-ignore.js');
      const created = new Set(
        [plan.bridge.dataDirectory, ...plan.localShips.map((ship) => ship.fleetDirectory)]
          .map(outermostMissing)
          .filter((p) => p !== null),
      );
      for (const { file, lines } of ignoreInCheckout([...created].map((p) => ({ path: p, directory: true })))) {
        process.stderr.write(
          `added ${lines.join(', ')} to ${shownPath(file)} (svc's store and workspaces stay out of git)\n`,
        );
      }
      const { storeNotice } = await import('./launch/store-notice.js');
      const notice = storeNotice(plan.bridge);
      if (notice) process.stderr.write(`${notice}\n`);
      const { recordLocalShips } = await import('./local-ship-tokens.js');
      await serveUntilSignal(
        async () => {
          const launched = await runLaunch(plan, {
            firstAdmin,
            sessionCommand: process.env.SVC_SESSION_COMMAND || undefined,
          });
          const tokensFile =
            launched.local.length > 0
              ? recordLocalShips(
                  plan.bridge.dataDirectory,
                  launched.local.map(({ name, url, bridgeToken }) => ({ name, url, bridgeToken })),
                )
              : null;
          // Whoever reads "Ctrl-C stops everything." may press it at once: the handlers are already in place.
          process.stdout.write(summary(launched, configPath, tokensFile));
          return launched;
        },
        { announce: () => process.stderr.write('svc: stopping ships and bridge\n'), releaseIdleHeap: true },
      );
    });

  launch
    .command('init')
    .description('write a commented svc.yaml to start from')
    .option('--config-path <file>', 'where to write it', DEFAULT_CONFIG)
    .option('--force', 'overwrite an existing file')
    .action(async (options: { configPath: string; force?: boolean }) => {
      const path = resolve(options.configPath);
      if (existsSync(path) && !options.force) throw new Error(`${path} exists; --force overwrites it`);
      const createdFile = !existsSync(path);
      // The ship keeps the name a launch without a file gave it (issue #15 item 7).
      const { defaultPlan } = await import('./launch/plan.js');
      writeFileSync(path, launchScaffold(defaultPlan(dirname(path)).localShips[0]!.name), { mode: 0o644 });
      process.stdout.write(`wrote ${path}\n`);
      // In a git checkout, this file and the secrets file beside it stay out of git (issue #15 item 8).
      const { ignoreInCheckout } = await import('./launch/git-ignore.js');
      const { SECRETS_FILE } = await import('./launch/config-file.js');
      const secrets = join(dirname(path), SECRETS_FILE);
      const created = [...(createdFile ? [path] : []), ...(existsSync(secrets) ? [] : [secrets])].map((p) => ({
        path: p,
        directory: false,
      }));
      for (const { file, lines } of ignoreInCheckout(created)) {
        process.stdout.write(
          `added ${lines.join(', ')} to ${shownPath(file)} (this host's configuration and secrets stay out of git)\n`,
        );
      }
    });
  return launch;
}
