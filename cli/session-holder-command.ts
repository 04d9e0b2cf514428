// `svc session-holder`: holds a fleet's tmux server so workspace sessions outlive the ship (on a cluster,
// its own DaemonSet; charts/svc README). The holder's module is imported inside the action (main.ts's
// start-up note). It runs until SIGINT/SIGTERM, which end every session, or until tmux itself ends.
import { Command } from 'commander';
import { runUntilSignal } from './run-until-signal.js';

export function sessionHolderCommand(): Command {
  return new Command('session-holder')
    .description('hold the tmux server of a fleet so its sessions outlive `svc ship --session-holder` restarts')
    .option('-f, --fleet-directory <dir>', 'the fleet directory of the ship that uses these sessions', './fleet')
    .action(async (options: { fleetDirectory: string }) => {
      const [{ startSessionHolder }, { createLogger }] = await Promise.all([
        import('../ship/sessions/session-holder.js'),
        import('../ship/logger.js'),
      ]);
      const logger = createLogger();
      const holder = await startSessionHolder({ fleetDirectory: options.fleetDirectory, logger });
      const ended = holder.exited.then((code) => {
        throw new Error(`the tmux server ended (exit code ${code})`);
      });
      await Promise.race([
        runUntilSignal(
          () => holder.close(),
          (signal) => logger.info({ signal }, 'session holder stopping: every session ends'),
        ),
        ended,
      ]);
    });
}
