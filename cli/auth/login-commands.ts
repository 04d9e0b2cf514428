// `svc login`, `svc whoami`, `svc logout` (spec "Clients", docs/cli.md): the username from -u or a prompt,
// the password always prompted without echo; the session stored per bridge URL.
import { Command } from 'commander';
import type { User } from '../../protocol/index.js';
import { ask, askSecret, interactive } from '../prompt.js';
import { BridgeClient } from './bridge-client.js';
import { readSession, removeSession } from './session-files.js';

const BRIDGE_URL_HELP = 'the bridge (4800, host:port or a URL)';

export function loginCommand(): Command {
  return new Command('login')
    .description('log in to a bridge and keep the session for later commands')
    .option('--bridge-url <bridge>', BRIDGE_URL_HELP, '4800')
    .option('-u, --username <user>', 'user name (asked when omitted)')
    .action(async (options: { bridgeUrl: string; username?: string }) => {
      if (!interactive())
        throw new Error('svc login asks for the password at a terminal; in scripts set SVC_TOKEN instead');
      const client = new BridgeClient(options.bridgeUrl);
      const username = options.username ?? (await ask('Username: '));
      const password = await askSecret('Password: ');
      const answer = await client.login(username, password);
      process.stdout.write(`logged in to ${client.url} as ${answer.user.username} (${answer.user.role})\n`);
    });
}

export function whoamiCommand(): Command {
  return new Command('whoami')
    .description('show the user the stored session (or SVC_TOKEN) belongs to')
    .option('--bridge-url <bridge>', BRIDGE_URL_HELP, '4800')
    .option('--json', 'print the user as JSON')
    .action(async (options: { bridgeUrl: string; json?: boolean }) => {
      const user = await new BridgeClient(options.bridgeUrl).call<User>('GET', '/auth/me');
      process.stdout.write(
        options.json ? `${JSON.stringify(user)}\n` : `${user.username} <${user.email}> (${user.role})\n`,
      );
    });
}

export function logoutCommand(): Command {
  return new Command('logout')
    .description('end the stored session on the bridge and forget it here')
    .option('--bridge-url <bridge>', BRIDGE_URL_HELP, '4800')
    .action(async (options: { bridgeUrl: string }) => {
      const client = new BridgeClient(options.bridgeUrl);
      const stored = readSession(client.url);
      if (!stored) {
        process.stdout.write(`not logged in to ${client.url}\n`);
        return;
      }
      try {
        await client.anonymousWith('POST', '/auth/logout', stored.token);
      } finally {
        removeSession(client.url);
      }
      process.stdout.write(`logged out of ${client.url}\n`);
    });
}
