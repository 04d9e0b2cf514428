// `svc users` (DESIGN §4): list, add (password asked twice, never an argument), remove, change a role,
// a password or an email, through the bridge's /users routes with the stored session.
import { Argument, Command, Option } from 'commander';
import type { User } from '../../protocol/index.js';
import { askNewPassword, interactive } from '../prompt.js';
import { formatTable } from '../table.js';
import { BridgeClient } from './bridge-client.js';
import { readSession } from './session-files.js';

const userPath = (name: string, suffix = '') => `/users/${encodeURIComponent(name)}${suffix}`;

function newPassword(): Promise<string> {
  if (!interactive()) throw new Error('the password is asked at a terminal and never taken as an argument');
  return askNewPassword('New password: ');
}

export function usersCommand(): Command {
  const users = new Command('users')
    .description('manage the bridge\'s users (admins; anyone may change their own password or email)')
    .option('--bridge-url <bridge>', 'the bridge (4800, host:port or a URL)', '4800')
    .option('--json', 'print JSON instead of tables');
  const client = () => new BridgeClient(users.opts<{ bridgeUrl: string }>().bridgeUrl);
  const json = () => users.opts<{ json?: boolean }>().json === true;
  const print = (user: User): void => void process.stdout.write(json() ? `${JSON.stringify(user)}\n` : `${user.username} <${user.email}> (${user.role})\n`);

  users.command('ls').description('list users, oldest first').action(async () => {
    const list = await client().call<User[]>('GET', '/users');
    if (json()) process.stdout.write(`${JSON.stringify(list)}\n`);
    else process.stdout.write(formatTable(['USERNAME', 'EMAIL', 'ROLE', 'CREATED'], list.map((u) => [u.username, u.email, u.role, new Date(u.createdAt).toISOString()])));
  });

  users
    .command('add')
    .description('create a user; the password is asked twice')
    .argument('<username>')
    .argument('<email>')
    .addOption(new Option('--role <role>', 'role').choices(['member', 'admin']).default('member'))
    .action(async (username: string, email: string, options: { role: string }) => {
      const bridge = client();
      await bridge.token(); // log in first, so the prompts come in a sensible order
      const password = await newPassword();
      print(await bridge.call<User>('POST', '/users', { username, email, password, role: options.role }));
    });

  users.command('rm').description('remove a user and end their sessions').argument('<username>').action(async (username: string) => {
    await client().call('DELETE', userPath(username));
    process.stdout.write(`removed ${username}\n`);
  });

  users
    .command('role')
    .description('change a user\'s role')
    .argument('<username>')
    .addArgument(new Argument('<role>', 'member or admin').choices(['member', 'admin']))
    .action(async (username: string, role: string) => print(await client().call<User>('POST', userPath(username, '/role'), { role })));

  users
    .command('passwd')
    .description('change a password (yours when no user is named); ends every session of that user')
    .argument('[username]')
    .action(async (username?: string) => {
      const bridge = client();
      const name = username ?? readSession(bridge.url)?.username ?? (await bridge.call<User>('GET', '/auth/me')).username;
      await bridge.token();
      const password = await newPassword();
      await bridge.call('POST', userPath(name, '/password'), { password });
      process.stdout.write(`password changed for ${name}; their sessions have ended\n`);
    });

  users
    .command('email')
    .description('change a user\'s email')
    .argument('<username>')
    .argument('<email>')
    .action(async (username: string, email: string) => print(await client().call<User>('POST', userPath(username, '/email'), { email })));
  return users;
}
