// `svc session-holder`: holds a fleet's tmux server so workspace sessions outlive the ship (on a cluster,
// its own DaemonSet; charts/svc README). The holder's module is imported inside the action (main.ts's
// start-up note). It runs until SIGINT/SIGTERM, which end every session, or until tmux itself ends. On the
// signal it first reports the workspaces with unpushed work (ship/sessions/drain-report.ts), then ends them.
import { Command, Option } from 'commander';
import { parseDuration } from './duration.js';
import { serveUntilSignal } from './run-until-signal.js';
import { parsedSessionUser } from './ship-command.js';

export function sessionHolderCommand(): Command {
  return new Command('session-holder')
    .description('hold the tmux server of a fleet so its sessions outlive `svc ship --session-holder` restarts')
    .option('-f, --fleet-directory <dir>', 'the fleet directory of the ship that uses these sessions', './fleet')
    .option(
      '--session-user <uid[:gid]>',
      "run the tmux server and every session as this user and group (the ship's --session-user; needs CAP_SETUID and CAP_SETGID)",
    )
    .option(
      '--drain-report-to <url>',
      "on SIGTERM, before ending the sessions, send the workspaces with unpushed work to this URL (the operator's /drain-report)",
    )
    .option(
      '--drain-report-credential <file>',
      'the file holding the bearer token for --drain-report-to (a projected service-account token), read when sending',
    )
    .addOption(
      new Option(
        '--drain-timeout <duration>',
        'the time the scan for unpushed work and its report may take before the sessions end',
      )
        .default(20_000, '20s')
        .argParser(parseDuration),
    )
    .action(
      async (options: {
        fleetDirectory: string;
        sessionUser?: string;
        drainReportTo?: string;
        drainReportCredential?: string;
        drainTimeout: number;
      }) => {
        if (!!options.drainReportTo !== !!options.drainReportCredential)
          throw new Error('--drain-report-to and --drain-report-credential go together');
        const [{ startSessionHolder, SHIP_LOGGER }, { reportDrain }, { createLogger }] = await Promise.all([
          import('../ship/sessions/session-holder.js'),
          import('../ship/sessions/drain-report.js'),
          import('../server/logger.js'),
        ]);
        const logger = createLogger(SHIP_LOGGER);
        const sessionUser =
          options.sessionUser === undefined ? undefined : await parsedSessionUser(options.sessionUser);
        await serveUntilSignal(
          async () => {
            const holder = await startSessionHolder({ fleetDirectory: options.fleetDirectory, logger, sessionUser });
            return {
              ended: holder.exited.then((code): never => {
                throw new Error(`the tmux server ended (exit code ${code})`);
              }),
              close: async () => {
                // Before anything is killed: a failed scan or report must not keep the sessions (or the drain) waiting.
                await reportDrain({
                  fleetDirectory: options.fleetDirectory,
                  reportTo: options.drainReportTo,
                  credentialFile: options.drainReportCredential,
                  timeoutMs: options.drainTimeout,
                  logger,
                  sessionUser,
                }).catch((error: unknown) => logger.warn({ err: error }, 'drain: the scan for unpushed work failed'));
                await holder.close();
              },
            };
          },
          { announce: (signal) => logger.info({ signal }, 'session holder stopping: every session ends') },
        );
      },
    );
}
