// The `svc` command. Each subcommand lives in its own module; this file only assembles them and turns a
// failure into `svc: <message>` on stderr with exit code 1 (docs/cli.md).
//
// Start-up note: every command builds this whole tree (help and completion need all of it), so the modules
// that build it load only commander and small modules of their own. Anything heavier (the servers, TypeBox
// schemas through protocol/index.js, ws, yaml, the prompt package) is imported inside the action that uses
// it; from protocol/ the tree takes only TypeBox-free modules (ports.js, identifier-rules.js).
// test/cli/startup-modules.test.ts fails when an eager import creeps back; `npm run bench cli` times it.
import { Command, CommanderError } from 'commander';
import { shipCommand } from './ship-command.js';
import { clientCommand } from './client-command.js';
import { bridgeCommand } from './bridge-command.js';
import { operatorCommand } from './operator-command.js';
import { loginCommand, logoutCommand, whoamiCommand } from './auth/login-commands.js';
import { usersCommand } from './auth/users-command.js';
import { launchCommand } from './launch-command.js';
import { completionCommand } from './completion.js';
import { agentCommand } from './agent/agent-command.js';
import { sessionHolderCommand } from './session-holder-command.js';
import { SVC_VERSION } from '../protocol/version.js';
import { messageOf } from '../protocol/thrown.js';

export function buildProgram(): Command {
  const program = new Command('svc')
    .description('Workspace orchestration for coding agents: git workspaces, terminals and agent status per host.')
    .version(SVC_VERSION);
  program.addCommand(shipCommand());
  program.addCommand(launchCommand());
  program.addCommand(bridgeCommand());
  program.addCommand(clientCommand());
  program.addCommand(loginCommand());
  program.addCommand(whoamiCommand());
  program.addCommand(logoutCommand());
  program.addCommand(usersCommand());
  program.addCommand(agentCommand());
  program.addCommand(operatorCommand());
  program.addCommand(sessionHolderCommand());
  program.addCommand(completionCommand(() => program));
  // Usage errors read like every other error, `svc: <message>` then the help, and exit 2. addCommand does
  // not pass these settings down, so they are applied to every command.
  const apply = (command: Command) => {
    command
      .exitOverride()
      .configureOutput({ outputError: (text, write) => write(`svc: ${text.replace(/^error: /, '')}`) });
    command.showHelpAfterError();
    for (const sub of command.commands) apply(sub);
  };
  apply(program);
  return program;
}

export async function main(argv = process.argv): Promise<void> {
  process.umask(0o077);
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      const informational = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code);
      process.exitCode = informational ? 0 : 2;
      return;
    }
    process.stderr.write(`svc: ${messageOf(error)}\n`);
    process.exitCode = 1;
  }
}

await main();
