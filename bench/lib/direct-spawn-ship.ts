// The status-load benchmark's reference ship: `svc ship` as it was before the spawn helper, forking every
// git and tmux command on its own main thread (ShipOptions.spawnHelper: false), in its own process. Prints
// its port on stdout once listening; SIGTERM closes it like `svc ship`.
import { pino } from 'pino';
import { startShip } from '../../ship/server.js';

process.umask(0o077);
const ship = await startShip({
  fleetDirectory: process.argv[2]!,
  port: 0,
  name: 'bench-direct',
  sessionCommand: 'bash --noprofile --norc',
  // Logs on stderr: stdout carries only the port.
  logger: pino({ level: 'warn' }, pino.destination(2)),
  spawnHelper: false,
});
process.stdout.write(`${ship.port}\n`);
process.on('SIGTERM', () => void ship.close().then(() => process.exit(0)));
